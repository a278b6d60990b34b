// The downloads panel's work, loaded when a learner first asks for a package.
//
// packageStore makes the zip build.py writes for a store (`python build.py --store THAT.json`,
// with --scorm, --cmi5 or plain dist/ zipped) in Python's worker, by build.py's own code
// (sitebuild/assemble.py) on the files this page already holds; the store editor can call
// it with its draft's text. download runs it for the panel (panels/packaging.js) with its
// progress, the zip's size, or build.py's list of problems.

import { saveFile } from "../browser/save-file.js";
import { stepsReadVectors } from "../python/engine-client.js";
import { prerender } from "../views/prerender.js";

/** @typedef {import("../python/engine-client.js").EngineClient} EngineClient */
/** @typedef {import("../python/engine-client.js").PackageStep} PackageStep */
/** @typedef {"site" | "scorm" | "cmi5"} Kind */

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
  // Guided steps under the embedding's scorers are checked with its vectors: as the editor's
  // check does, this loads them first (build.py always has them), so the page refuses only
  // what build.py refuses.
  const text = fromBoot ? JSON.stringify(JSON.parse(store).store) : store;
  if (stepsReadVectors(text)) await engine.checkStore(text);
  const checked = await engine.checkPackage(source, onProgress);
  if ("problems" in checked) return { problems: checked.problems };
  onProgress({ label: "Drawing the page", done: 0, total: 0 });
  const fragments = prerender(checked.request);
  const { zip } = await engine.makePackage({ ...source, fragments, kind, score }, onProgress);
  return { zip, name: ZIP_NAMES[kind] };
}

/** @param {number} bytes */
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * Make a package for the panel and hand it to the browser, showing each step, then the
 * zip's size, or the store's problems.
 * @param {{engine: EngineClient, byId: (id: string) => HTMLElement}} panel
 * @param {{store: string, fromBoot: boolean, kind: Kind, score: boolean}} request
 */
export async function download({ engine, byId }, request) {
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
    const made = await packageStore(engine, request, onProgress);
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
    saveFile(made.name, made.zip, "application/zip");
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    status.textContent = `${made.name} is ready: ${megabytes(made.zip.length)}, made in ${seconds} s. Your browser saves it with your downloads.`;
  } catch (error) {
    status.textContent = `The package could not be made: ${error instanceof Error ? error.message : error}`;
  } finally {
    bar.hidden = true;
  }
}
