// The page's modules loaded once more in a hidden frame, for the code cache.
//
// The page's own modules, loaded once more in a hidden frame of the page, so that the
// first repeat visit finds their compiled code (V8's code cache) as later visits do.
//
// Chromium keeps a script's compiled code from its second load out of the service
// worker's cache, and what a worker compiles does not serve a document. On a first
// visit the page loads its modules from the network, before the service worker is
// there; Python's worker then loads them out of its cache (worker-warmer.js,
// warmCodeCache), the first load, and this frame the second, as a document. Without it,
// the first repeat visit would compile every module of the page from its source.
// Started when the worker says it has done its part and the page is idle.
// modulepreload compiles a module without running it: nothing runs twice.
//
// The frame starts empty and is given one module at a time, each in an idle moment once
// the one before has loaded: a document that asks for every module as it is parsed makes
// all the requests in one task, too long for a slow phone's main thread while the
// learner reads the first answer.

import { whenIdle } from "../browser/idle.js";

// The frame is kept this long after its last module has loaded, and goes after
// GIVE_UP_MS in any case; an idle moment is waited for up to IDLE_WAIT_MS.
const KEEP_MS = 1000;
const GIVE_UP_MS = 15_000;
const IDLE_WAIT_MS = 5000;

/**
 * Load these modules once more, in a frame of the page's own that is removed afterwards.
 * @param {string[]} urls  absolute URLs of the page's modules
 */
export function warmPageModules(urls) {
  if (urls.length === 0) return;
  whenIdle(() => preloadInFrame(urls), IDLE_WAIT_MS);
}

/** @param {string[]} urls */
function preloadInFrame(urls) {
  const frame = document.createElement("iframe");
  frame.hidden = true;
  // A srcdoc document is of the page's origin and, unlike an empty frame's, is served
  // by the page's service worker, out of its cache.
  frame.srcdoc = "<!doctype html><title>Compiling the page's modules</title>";
  const left = [...urls];
  const gone = () => {
    clearTimeout(timer);
    frame.remove();
  };
  const timer = setTimeout(gone, GIVE_UP_MS);
  const next = () => {
    const url = left.shift();
    const head = frame.contentDocument?.head;
    if (!url || !head) {
      // A module's compiled code is written to the cache in tasks after its load, which
      // a frame removed at once cancels: it goes a while later, when the page is idle.
      setTimeout(() => whenIdle(gone, IDLE_WAIT_MS), KEEP_MS);
      return;
    }
    const link = head.ownerDocument.createElement("link");
    link.rel = "modulepreload";
    link.href = url;
    // A module that fails to load is only compiled on the next visit, as before.
    for (const ended of ["load", "error"]) link.addEventListener(ended, () => whenIdle(next, IDLE_WAIT_MS));
    head.append(link);
  };
  frame.addEventListener("load", () => whenIdle(next, IDLE_WAIT_MS), { once: true });
  document.body.append(frame);
}
