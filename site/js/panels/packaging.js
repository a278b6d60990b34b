// The downloads panel: the site, a SCORM 1.2 or a cmi5 package, made in this browser.
//
// Around the store in force (the default, or one opened from a file), with build.py's
// options. Only the panel's set-up loads with the page: the work (panels/packaging-flow.js,
// the worker's packaging code and its zip, the page's prerender module) is fetched when a
// download is first asked for.

import { openedStoreText } from "../browser/store-file.js";

/** @typedef {"site" | "scorm" | "cmi5"} Kind */

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, state, engine, boot }) {
  const panel = /** @type {HTMLDetailsElement} */ (byId("packages"));
  /** The store in force, as a package is made from it. @returns {{store: string, fromBoot: boolean}} */
  const inForce = () => {
    const text = state().custom ? openedStoreText() : null;
    if (text !== null) return { store: text, fromBoot: false };
    if (state().custom) return { store: JSON.stringify(state().store), fromBoot: false };
    return { store: document.getElementById("boot")?.textContent ?? JSON.stringify({ store: boot.store }), fromBoot: true };
  };
  let built = false;
  let busy = false;
  const showStore = () => {
    if (built) byId("package-store").textContent = state().store.title;
  };
  /** @param {Kind} kind */
  const download = async (kind) => {
    if (busy) return;
    busy = true;
    showStore();
    const buttons = /** @type {HTMLButtonElement[]} */ ([...panel.querySelectorAll("button[data-package]")]);
    for (const button of buttons) button.disabled = true;
    const score = !(/** @type {HTMLInputElement} */ (byId("package-no-score")).checked);
    try {
      const flow = await import("./packaging-flow.js");
      await flow.download({ engine, byId }, { ...inForce(), kind, score });
    } catch (error) {
      byId("package-status").textContent = `The package could not be made: ${error instanceof Error ? error.message : error}`;
    } finally {
      for (const button of buttons) button.disabled = false;
      busy = false;
    }
  };
  const build = () => {
    if (built) return;
    const body = /** @type {HTMLTemplateElement} */ (byId("packages-body"));
    panel.append(body.content);
    body.remove();
    built = true;
    for (const button of panel.querySelectorAll("button[data-package]")) {
      button.addEventListener("click", () => download(/** @type {Kind} */ (/** @type {HTMLElement} */ (button).dataset.package)));
    }
    showStore();
  };

  panel.querySelector("summary")?.addEventListener("click", build);
  // The store's title as the panel opens (the store may have changed while it was closed).
  panel.addEventListener("toggle", () => panel.open && (build(), showStore()));
  return {};
}
