// Rewriting part of the page to new markup in place, writing only what differs.
//
// Rewriting a part of the page to new markup in place: the elements, attributes and
// text that the new markup still has stay as they are, and only what differs is
// written. A view rebuilt from its markup (innerHTML, outerHTML) makes Chromium style,
// lay out and shape the text of every new node again, and a new content-visibility
// block (each card is one) starts with its visibility unknown, which Chromium settles
// with a second layout in the frame that draws it.

/** Form fields keep what the learner did to them apart from their markup: they are replaced, never rewritten. */
const FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA", "OPTION"]);

/**
 * Make container's children what markup describes.
 * @param {Element} container @param {string} markup
 */
export function morphChildren(container, markup) {
  rewriteChildren(container, parsedAs(container, markup));
}

/**
 * Make element what markup (one element of the same kind) describes, keeping the
 * element itself; other markup takes its place.
 * @param {Element} element  an element with a parent @param {string} markup
 */
export function morphElement(element, markup) {
  const parsed = parsedAs(/** @type {Element} */ (element.parentElement), markup);
  if (parsed.childNodes.length === 1) rewriteNode(element, /** @type {ChildNode} */ (parsed.firstChild));
  else element.replaceWith(...parsed.childNodes);
}

/**
 * Markup parsed as the children of an element like container, so in the same parsing
 * context (rows parse as rows in a table body). Parsed into an element of the page's
 * own document, the nodes move into the page without being adopted from another.
 * @param {Element} container @param {string} markup
 */
function parsedAs(container, markup) {
  const holder = /** @type {Element} */ (container.cloneNode(false));
  holder.innerHTML = markup;
  return holder;
}

/** @param {Node} a @param {Node} b */
function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName && !FIELDS.has(a.nodeName);
}

/** @param {Element} target @param {Element} source  a parsed copy of what target is to be */
function rewrite(target, source) {
  for (const name of target.getAttributeNames()) if (!source.hasAttribute(name)) target.removeAttribute(name);
  for (const name of source.getAttributeNames()) {
    const value = /** @type {string} */ (source.getAttribute(name));
    if (target.getAttribute(name) !== value) target.setAttribute(name, value);
  }
  rewriteChildren(target, source);
}

/** @param {Element} target @param {Element} source  its children are what target's are to be */
function rewriteChildren(target, source) {
  const wanted = [...source.childNodes];
  const present = [...target.childNodes];
  if (wanted.length !== present.length) {
    target.replaceChildren(...wanted);
    return;
  }
  wanted.forEach((node, i) => rewriteNode(present[i], node));
}

/** Make old what node is: rewritten when of the same kind, replaced otherwise. @param {ChildNode} old @param {ChildNode} node */
function rewriteNode(old, node) {
  if (old.isEqualNode(node)) return; // compared natively, a whole subtree at once
  if (!sameKind(old, node)) old.replaceWith(node);
  else if (node instanceof Element) rewrite(/** @type {Element} */ (old), node);
  else old.nodeValue = node.nodeValue;
}
