// The page's own modules, loaded once more in a hidden frame of the page, so that the
// first repeat visit finds their compiled code (V8's code cache) as later visits do.
//
// Chromium keeps a module's compiled code for a document only from the second time the
// module comes out of the service worker's cache into a document. On a first visit the
// page loaded its modules from the network, before the service worker was there; Python's
// worker then loads them from that cache (engine-worker.js, warmCodeCache), but what a
// worker compiles does not serve a document. Without this, the first repeat visit
// compiled every module of the page again and was the slowest repeat visit. Started once
// Python's worker has done its part (that is its message) and the page is idle.
// modulepreload compiles a module without running it: nothing of the page runs twice.

import { html } from "./html.js";

// The frame is kept this long after its load, and goes after GIVE_UP_MS in any case.
const KEEP_MS = 1000;
const GIVE_UP_MS = 15_000;

/**
 * Load these modules once more, in a frame of the page's own that is removed afterwards.
 * @param {string[]} urls  absolute URLs of the page's modules
 */
export function warmPageModules(urls) {
  if (urls.length === 0) return;
  whenIdle(() => preloadInFrame(urls));
}

/** @param {() => void} run */
function whenIdle(run) {
  if (window.requestIdleCallback) requestIdleCallback(run, { timeout: 5000 });
  else setTimeout(run, 0);
}

/** @param {string[]} urls */
function preloadInFrame(urls) {
  const frame = document.createElement("iframe");
  frame.hidden = true;
  // A srcdoc document is of the page's origin and, unlike an empty frame's, is served
  // by the page's service worker, out of its cache.
  frame.srcdoc = html`${urls.map((url) => html`<link rel="modulepreload" href="${url}">`)}`.text;
  const gone = () => {
    clearTimeout(timer);
    frame.remove();
  };
  const timer = setTimeout(gone, GIVE_UP_MS);
  // The frame's load waits for its modulepreloads, each fetched and compiled, but their
  // compiled code is written to the cache in tasks after that, which a frame removed at
  // once cancels: it goes a while later, when the page is idle.
  frame.addEventListener("load", () => setTimeout(() => whenIdle(gone), KEEP_MS));
  document.body.append(frame);
}
