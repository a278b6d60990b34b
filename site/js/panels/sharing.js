// The address and the share panel.
//
// The address follows the configuration shown, keeping
// the instructor's options from the link (hidden controls and explanations, a stage,
// embedding) and whether the scoreboard measures; the panel writes a link and an iframe
// snippet for chosen options.

import { addressParams } from "../core/page-core.js";
import { NO_SHARE_OPTIONS, iframeSnippet, shareParams } from "../core/share.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, state, link }) {
  const panel = /** @type {HTMLDetailsElement} */ (byId("share"));

  /** The options an instructor chose in the share panel. @returns {import("../core/share.js").ShareOptions} */
  const panelOptions = () => {
    const stage = /** @type {HTMLSelectElement} */ (byId("share-stage")).value;
    return {
      stage: stage ? Number(stage) : null,
      hide: [...panel.querySelectorAll('input[name="share-hide"]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value),
      hideExplanations: /** @type {HTMLInputElement} */ (byId("share-explain")).checked,
      embed: false,
      scoreboard: /** @type {HTMLInputElement} */ (byId("share-scoreboard")).checked,
    };
  };
  // The scoreboard box follows the page's scoreboard when that changes, and the
  // instructor's choice otherwise.
  let scoreboardFollowed = false;
  // The panel's controls come from its template the first time it opens (index.html.j2
  // says why they are not in the page from the start).
  let built = false;
  const build = () => {
    const body = /** @type {HTMLTemplateElement} */ (byId("share-body"));
    panel.append(body.content);
    body.remove();
    built = true;
    const snippet = /** @type {HTMLTextAreaElement} */ (byId("embed-snippet"));
    byId("copy-share-link").addEventListener("click", () =>
      copyText(/** @type {HTMLInputElement} */ (byId("share-link")).value, byId("share-status"), "Share link copied."),
    );
    byId("copy-embed").addEventListener("click", () => {
      snippet.select();
      copyText(snippet.value, byId("share-status"), "Embed code copied.");
    });
  };
  const refresh = () => {
    // Written only while the panel is open (and when it opens): setting a text field's
    // value makes Chromium lay the page out, on every control change otherwise.
    if (!panel.open) return;
    if (!built) build();
    if (state().scoreboard !== scoreboardFollowed) {
      scoreboardFollowed = state().scoreboard;
      /** @type {HTMLInputElement} */ (byId("share-scoreboard")).checked = scoreboardFollowed;
    }
    const options = panelOptions();
    /** @type {HTMLInputElement} */ (byId("share-link")).value = link(shareParams(options));
    /** @type {HTMLTextAreaElement} */ (byId("embed-snippet")).value = iframeSnippet(
      link(shareParams({ ...options, embed: true })),
      `Retrieval Workbench: ${state().store.title}`,
    );
  };

  const { sharing } = state();
  for (const name of sharing.hide) {
    const element = /** @type {HTMLFormElement} */ (byId("policy-form")).elements.namedItem(name);
    (element instanceof HTMLElement ? element.closest(".control") : null)?.setAttribute("hidden", "");
  }
  byId("explanations").hidden = sharing.hideExplanations;
  panel.addEventListener("change", refresh);
  // Built on the summary's click, before the panel opens, so no frame shows it empty; a
  // panel opened otherwise (by a script) is built when it says it has opened.
  panel.querySelector("summary")?.addEventListener("click", () => built || build());
  panel.addEventListener("toggle", refresh);
  byId("copy-link").addEventListener("click", () =>
    copyLink(link(shareParams({ ...NO_SHARE_OPTIONS, scoreboard: state().scoreboard })), byId("copy-link-status")),
  );
  refresh();
  if (sharing.embed) embed();

  // In Chromium, history.replaceState holds the main thread for a while, so
  // it runs in a task of its own after the answer's (the two would add up to one long
  // task on a slow phone), and once for answers shown in the same task. A message
  // channel rather than a timer: a background tab does not defer it, and a test's fake
  // clock leaves it alone.
  let addressDue = false;
  const nextTask = new MessageChannel();
  nextTask.port1.onmessage = () => {
    addressDue = false;
    history.replaceState(history.state, "", link(addressParams(state())));
  };
  return {
    // The core asks for this once the answer is shown (or at once, when no answer can
    // come soon): history.replaceState would otherwise delay the answer (core/requests.js).
    "write-address": () => {
      if (addressDue) return;
      addressDue = true;
      nextTask.port2.postMessage(null);
    },
    "refresh-share": refresh,
  };
}

/** A compact layout; inside a frame, the host page learns our height so it can size the iframe without a scrollbar. */
function embed() {
  document.documentElement.dataset.embed = "1";
  if (window.parent === window) return;
  const last = { height: 0 };
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height === last.height) return;
    last.height = height;
    window.parent.postMessage({ type: "retrieval-workbench:resize", height }, "*");
  }).observe(document.body);
}

/** @param {string} text @param {HTMLElement} status */
async function copyLink(text, status) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = "Link copied: it opens this exact configuration.";
  } catch {
    // Clipboard access can be refused (an iframe without permission, an old browser):
    // show the link so it can be copied by hand.
    status.textContent = `Copy this link: ${text}`;
  }
}

/** Copy text, or leave it selected with a hint where the clipboard is refused. @param {string} text @param {HTMLElement} status @param {string} done */
async function copyText(text, status, done) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = done;
  } catch {
    status.textContent = "The browser refused clipboard access here: select the text and copy it yourself.";
  }
}
