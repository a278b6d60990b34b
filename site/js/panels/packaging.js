// The downloads panel: the site, a SCORM 1.2 or a cmi5 package, made in this browser.
//
// Around the store in force (the default, or one opened from a file), with build.py's
// options, by build.py's own code (sitebuild/assemble.py) run in Python's worker on the
// files this page already holds (packageStore below, which the store editor can call with
// its draft's text too). Nothing of it loads before a download is asked for: the worker's
// packaging code and its zip, and the page's prerender module (views/prerender.js), are
// fetched then. A store that cannot be built is refused with build.py's list of problems.

/** @typedef {import("../python/engine-client.js").EngineClient} EngineClient */
/** @typedef {import("../python/engine-client.js").PackageStep} PackageStep */
/** @typedef {"site" | "scorm" | "cmi5"} Kind */

import { openedStoreText } from "../browser/store-file.js";

// build.py's names for the same zips (sitebuild/assemble.py, ZIP_NAMES).
/** @type {Record<Kind, string>} */
export const ZIP_NAMES = { site: "dist.zip", scorm: "dist-scorm.zip", cmi5: "dist-cmi5.zip" };

/**
 * The zip build.py writes for a store (`python build.py --store THAT.json`, with --scorm,
 * --cmi5 or plain dist/ zipped), made in Python's worker; or the problems build.py would
 * print refusing it. The store is its JSON text, or with fromBoot the page's boot block.
 * @param {EngineClient} engine
 * @param {{store: string, fromBoot?: boolean, kind: Kind, score?: boolean}} request
 * @param {(step: PackageStep) => void} [onProgress]
 * @returns {Promise<{problems: string[]} | {zip: Uint8Array<ArrayBuffer>, name: string}>}
 */
export async function packageStore(engine, { store, fromBoot = false, kind, score = true }, onProgress = () => {}) {
  const source = { store, fromBoot };
  const checked = await engine.checkPackage(source, onProgress);
  if ("problems" in checked) return { problems: checked.problems };
  onProgress({ label: "Drawing the page", done: 0, total: 0 });
  const { prerender } = await import("../views/prerender.js");
  const fragments = prerender(checked.request);
  const { zip } = await engine.makePackage({ ...source, fragments, kind, score }, onProgress);
  return { zip, name: ZIP_NAMES[kind] };
}

/** @param {number} bytes */
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

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
    const status = byId("package-status");
    const bar = /** @type {HTMLProgressElement} */ (byId("package-progress"));
    const problems = byId("package-problems");
    problems.hidden = true;
    problems.replaceChildren();
    bar.hidden = false;
    bar.removeAttribute("value");
    const started = performance.now();
    const onProgress = (/** @type {PackageStep} */ step) => {
      status.textContent = step.total ? `${step.label}: ${step.done} of ${step.total} files…` : `${step.label}…`;
      if (step.total) bar.value = step.done / step.total;
      else bar.removeAttribute("value");
    };
    try {
      const score = !(/** @type {HTMLInputElement} */ (byId("package-no-score")).checked);
      const made = await packageStore(engine, { ...inForce(), kind, score }, onProgress);
      if ("problems" in made) {
        status.textContent = "";
        const head = document.createElement("p");
        head.textContent = `This store cannot be packaged: ${made.problems.length} problem${made.problems.length === 1 ? "" : "s"}, as build.py lists them.`;
        const list = document.createElement("ul");
        for (const line of made.problems) {
          const item = document.createElement("li");
          item.textContent = line;
          list.append(item);
        }
        problems.append(head, list);
        problems.hidden = false;
        return;
      }
      save(made.zip, made.name);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      status.textContent = `${made.name} is ready: ${megabytes(made.zip.length)}, made in ${seconds} s. Your browser saves it with your downloads.`;
      status.dataset.size = String(made.zip.length);
    } catch (error) {
      status.textContent = `The package could not be made: ${error instanceof Error ? error.message : error}`;
    } finally {
      bar.hidden = true;
      for (const button of buttons) button.disabled = false;
      busy = false;
    }
  };

  panel.querySelector("summary")?.addEventListener("click", build);
  // The store's title as the panel opens (the store may have changed while it was closed).
  panel.addEventListener("toggle", () => panel.open && (build(), showStore()));
  return {};
}

/** Hand the zip to the browser as a download. @param {Uint8Array<ArrayBuffer>} zip @param {string} name */
function save(zip, name) {
  const url = URL.createObjectURL(new Blob([zip], { type: "application/zip" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Once the browser has taken it: a download started from a click reads the blob at once.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
