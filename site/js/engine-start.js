// Starts Python as early as the page allows, and owns the page's one EngineClient.
//
// index.html loads this module async, ahead of main.js: it needs only the few files
// <head> preloads and the runtime paths there, so it runs as soon as they arrive, while
// main.js still waits for the page's code and the end of parsing. Python's worker is created
// right after the page's first frame and prepares (its own script, Pyodide's loader, a
// saved snapshot) while the rest of the page's scripts arrive. The boot itself, the
// heavy part, starts when main.js has set the page up (bootPython below), so it never
// competes with that. main.js subscribes to the engine's status when it is ready
// (EngineClient.listen replays the latest one).

import { EngineClient } from "./python/engine-client.js";

// Paths relative to the page, resolved here so the worker gets absolute URLs.
const paths = JSON.parse(document.getElementById("runtime")?.textContent ?? "{}");
/** @type {import("./python/protocol.js").Runtime} */
const runtime = /** @type {any} */ (
  Object.fromEntries(
    Object.entries(paths).map(([key, value]) => [
      key,
      key === "abiVersion" || typeof value === "number" ? value : Array.isArray(value) ? value.map((path) => new URL(path, document.baseURI).href) : new URL(value, document.baseURI).href,
    ]),
  )
);

export const engine = new EngineClient(runtime, new URL("./engine-worker.js", import.meta.url));

// The page's script files (sitebuild/bundle.py bundles its modules into a few), asked for all at
// once: main.js would find them level by level of its imports, one round trip each (over
// the network on a first visit, through the service worker on a repeat one), while the
// page waits for them before it can set up.
// A few per task: asking for a module holds the main thread a moment (longer on a slow
// phone), and this module runs while the first frames are still being drawn.
const PRELOADS_PER_TASK = 4;

/** @param {string[]} hrefs */
function preload(hrefs) {
  for (const href of hrefs.slice(0, PRELOADS_PER_TASK)) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    document.head.append(link);
  }
  if (hrefs.length > PRELOADS_PER_TASK) setTimeout(() => preload(hrefs.slice(PRELOADS_PER_TASK)), 0);
}
preload(runtime.warmModules ?? []);

function startWorker() {
  if (engine.state !== "prerendered") return; // started already (or failed to start)
  performance.mark("rw:python-worker"); // User Timing, read by bench/ scripts
  engine.start();
}

/** Called by main.js once the page is set up: Python boots in the worker from here. */
export function bootPython() {
  if (engine.booted) return;
  startWorker();
  performance.mark("rw:python-start");
  engine.boot();
}

/** Run a once-only step after the next frame is drawn; hidden tabs draw none, so a timer stands in. */
export function afterNextFrame(/** @type {() => void} */ step) {
  requestAnimationFrame(() => setTimeout(step, 0));
  setTimeout(step, 250);
}

// After the page's first frame, so that creating the worker never delays it; at once
// when that frame is drawn already (on a slow link, this module arrives after it).
if (performance.getEntriesByType("paint").length > 0) startWorker();
else afterNextFrame(startWorker);
