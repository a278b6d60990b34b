// Python's worker (a module worker), its entry: one state record and the listeners.
//
// Python's worker (a module worker): boots Pyodide with the engine, opens the page's
// store with engine.open_json and answers each policy with the session it keeps.
// Protocol: python/protocol.js. Its parts are python/worker-*.js: the boot, this
// browser's cached copies, the memory snapshot, the code-cache warmer and the message
// loop, all sharing one state record (worker-state.js) made here.
//
// A phone has little memory to spare, so nothing is held past its use: the zstd
// decoder goes once Python is ready, a restored snapshot's bytes once Python runs from
// them, the snapshot made for the next visit once it is stored. The snapshot is kept
// without the half of Python's memory that is zero pages, and restored without writing
// them (snapshot-pages.js), so a restored Python takes no more memory than a fresh one.

import { receive } from "./python/worker-loop.js";
import { failed } from "./python/worker-report.js";
import { createWorkerState } from "./python/worker-state.js";

const state = createWorkerState(globalThis.fetch.bind(globalThis), new URL(import.meta.url));

// Pyodide's requests for its runtime files are answered with downloads started while
// the page still sets itself up (early-fetch.js says how).
globalThis.fetch = state.early.fetch;

// Pyodide fetches the WebAssembly module inside its own promise chain; when that
// download fails the rejection escapes loadPyodide, which then never settles. Treat
// any stray failure during loading as a failed load so the page can offer Retry.
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  failed(state, event.reason);
});

self.addEventListener("message", (event) => receive(state, event.data));
