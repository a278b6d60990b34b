// The code-cache warmer, a short-lived second worker.
//
// The code-cache warmer: a short-lived second worker that loads Python's JavaScript and
// the page's modules once more, so that a repeat visit finds their compiled code (V8's
// code cache), and that keeps the snapshot made for the next visit.

import { MSG } from "./protocol.js";
import { keepSnapshot } from "./worker-snapshots.js";

// The warmer is terminated after this long even if its imports hang.
const WARM_MS = 10_000;

/**
 * Load Python's JavaScript and the page's modules a second time, in a worker of its own
 * that only imports them. Chromium keeps a script's compiled code (V8's code cache) only
 * from the second time the script is loaded, and uses it from the third: without this,
 * the first visit that restores the snapshot would compile Python's JavaScript
 * (pyodide.asm.mjs, its largest script) again. For the page's modules
 * this is their first load out of the service worker's cache: what a worker compiles
 * does not serve a document, so once this is done the page is told, and loads them
 * once more itself (page-code-cache.js). Made once the snapshot is stored, while the
 * page is idle; the worker goes as soon as its imports are done. A module that fails to
 * load here (one that has come to use the DOM as it loads) is only compiled on the next
 * visit, as before.
 *
 * The same worker keeps the snapshot made for the next visit. Whatever a browser API
 * has been handed (the snapshot's bytes, given to Cache Storage) is held until the
 * next full garbage collection, which may come long after; a worker's memory is all
 * freed the moment it is terminated.
 * @param {import("./worker-state.js").WorkerState} state @param {import("./protocol.js").Runtime} runtime
 * @param {import("./worker-snapshots.js").Snapshot | null} snapshot
 */
export function warmCodeCache(state, runtime, snapshot) {
  let warmer;
  try {
    warmer = new Worker(state.script, { type: "module" });
  } catch {
    // Nested workers unsupported: the next visit compiles, as it would have.
    if (snapshot) keepSnapshot(snapshot);
    return;
  }
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    warmer.terminate();
    postMessage({ type: MSG.WARMED });
  };
  warmer.addEventListener("error", (event) => {
    event.preventDefault();
    done();
  });
  warmer.addEventListener("message", done);
  setTimeout(done, WARM_MS);
  // This worker's script, with its imports, is loaded a second time by being the warmer's.
  const urls = [runtime.pyodideModule, `${runtime.indexURL}pyodide.asm.mjs`, ...runtime.warmModules];
  warmer.postMessage({ type: MSG.WARM, urls, snapshot }, snapshot ? [snapshot.bytes.buffer] : []);
}

/**
 * In the warmer, its one message: keep the snapshot, import, say so, and be terminated.
 * @param {{snapshot: import("./worker-snapshots.js").Snapshot | null, urls: string[]}} message
 */
export function warmHere(message) {
  const keeping = message.snapshot ? keepSnapshot(message.snapshot) : null;
  Promise.allSettled([keeping, ...message.urls.map((url) => import(url))]).then(() => postMessage({ type: MSG.WARM }));
}
