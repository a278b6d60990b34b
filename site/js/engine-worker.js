// Module worker: boots Pyodide, installs the engine wheel (no micropip, no package
// lock download) and answers run requests with engine.run_json. Protocol: protocol.js.
//
// Later visits skip most of the boot: after the first answer, the worker copies
// Python's whole memory (interpreter, imported modules, the engine) into Cache
// Storage, and the next visit restores that copy instead of starting Python and
// importing everything again. The copy never leaves the browser; when it is missing,
// unreadable or from another build, the worker simply boots from scratch.

import { MSG, postableError } from "./protocol.js";

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const STEPS = 4;
const WHEEL = "the engine wheel";
const BYTECODE = "the engine's bytecode";
const SNAPSHOT_CACHE = "retrieval-workbench:python-snapshots";
// A snapshot is a copy of the whole WebAssembly memory (about 31 MB after the default
// store). Past this, e.g. when the first store opened was huge, it is not worth keeping.
const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024;

/** @type {Promise<(request: string) => string> | null} */
let engineReady = null;
/** Resolved by the page's BOOT message: Python's heavy start waits for it. */
let bootAllowed = /** @type {() => void} */ (() => {});
const booting = new Promise((resolve) => (bootAllowed = () => resolve(undefined)));
/** Set while the first answer is pending on a fresh boot: saves the snapshot once. */
let saveSnapshotAfterFirstRun = /** @type {(() => void) | null} */ (null);

// Downloads started while the page still sets itself up, before Python boots. Pyodide
// fetches its WebAssembly module and the standard library itself, inside loadPyodide;
// its requests for those URLs are answered with the responses already under way, so
// the downloads leave the boot's critical path without a second request (an HTTP cache
// cannot be relied on for that: some hosts, LMSs among them, forbid caching).
/** @type {Map<string, Promise<Response>>} */
const early = new Map();
const plainFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  const started = early.get(url);
  if (!started || init?.integrity) return plainFetch(input, init);
  early.delete(url); // a response is read once; a second request goes to the network
  return started;
};

/**
 * A response that is ok, or a rejection naming what failed to load.
 * @param {string} url @param {string} what @param {typeof fetch} [fetcher]
 */
async function fetchOk(url, what, fetcher = fetch) {
  const response = await fetcher(url);
  if (!response.ok) throw new Error(`${what} failed to load (HTTP ${response.status})`);
  return response;
}

/** @param {[string, string][]} downloads  [url, what it is, for a failure's message] */
function downloadEarly(downloads) {
  // No catch here on purpose: a download that fails, or answers with an HTTP error,
  // must reach the unhandledrejection listener below (a failed load, with Retry),
  // because Pyodide swallows a failed WebAssembly download and then waits forever.
  for (const [url, what] of downloads) early.set(url, fetchOk(url, what, plainFetch));
}

/** @param {number} step @param {string} label */
function progress(step, label) {
  postMessage({ type: MSG.PROGRESS, step, of: STEPS, label });
}

/** @param {import("./protocol.js").Runtime} runtime */
function pyodideOptions(runtime) {
  return {
    indexURL: runtime.indexURL,
    stdLibURL: runtime.stdLibURL,
    // A minimal inline lock: the engine needs no package from Pyodide's repository,
    // so the 119 KB pyodide-lock.json is never requested.
    lockFileContents: { info: { abi_version: runtime.abiVersion }, packages: {} },
    stdout: () => {},
    stderr: (/** @type {string} */ text) => console.warn(text),
  };
}

/** The snapshot saved by an earlier visit of this build, or null (none, or storage blocked). */
async function findSnapshot(/** @type {string} */ url) {
  try {
    const cache = await caches.open(SNAPSHOT_CACHE);
    return (await cache.match(url)) ?? null;
  } catch {
    return null;
  }
}

async function forgetSnapshot(/** @type {string} */ url) {
  try {
    await (await caches.open(SNAPSHOT_CACHE)).delete(url);
  } catch {
    // storage blocked: there was nothing to forget
  }
}

/** Keep this build's snapshot and drop older builds' for the same site folder. */
async function saveSnapshot(/** @type {any} */ pyodide, /** @type {string} */ url) {
  try {
    if (pyodide._module.HEAP8.length > SNAPSHOT_MAX_BYTES) return;
    const bytes = pyodide.makeMemorySnapshot();
    const cache = await caches.open(SNAPSHOT_CACHE);
    const folder = new URL("./", url).href;
    for (const key of await cache.keys()) {
      if (key.url !== url && new URL("./", key.url).href === folder) await cache.delete(key);
    }
    await cache.put(url, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
  } catch {
    // Storage blocked or full: the next visit boots from scratch, as this one did.
  }
}

/**
 * Restore Python from a snapshot; null if it cannot be used (then it is deleted).
 * @param {any} loadPyodide @param {import("./protocol.js").Runtime} runtime @param {Response} saved
 */
async function fromSnapshot(loadPyodide, runtime, saved) {
  try {
    const bytes = new Uint8Array(await saved.arrayBuffer());
    progress(2, "Restoring Python from this browser's copy");
    const pyodide = await loadPyodide({ ...pyodideOptions(runtime), _loadSnapshot: bytes });
    return { pyodide, engine: pyodide.pyimport("engine") };
  } catch (error) {
    console.info(`The saved copy of Python could not be restored (${error}); starting from scratch.`);
    await forgetSnapshot(runtime.snapshotURL);
    return null;
  }
}

/** The bytes of a file the fresh boot needs (usually under way since downloadEarly). */
function download(/** @type {string} */ url, /** @type {string} */ what) {
  const bytes = fetchOk(url, what).then((response) => response.arrayBuffer());
  bytes.catch(() => {}); // reported when awaited, not as an unhandled rejection
  return bytes;
}

/** Boot Python and install the engine wheel. @param {any} loadPyodide @param {import("./protocol.js").Runtime} runtime */
async function fromScratch(loadPyodide, runtime) {
  // Both are small and needed right after Python starts. The bytecode (compiled at
  // build time by this Pyodide) spares compiling the engine's sources on the first
  // visit; Python checks it against the wheel's sources before using it.
  const wheel = download(runtime.wheelURL, WHEEL);
  const bytecode = download(runtime.engineBytecodeURL, BYTECODE);
  progress(2, "Starting Python");
  const pyodide = await loadPyodide({ ...pyodideOptions(runtime), _makeSnapshot: true });
  progress(3, "Installing the engine");
  pyodide.unpackArchive(await wheel, "wheel", { extractDir: SITE_PACKAGES });
  pyodide.unpackArchive(await bytecode, "zip", { extractDir: SITE_PACKAGES });
  // The directory's import cache predates the unpack. (importlib.invalidate_caches()
  // would also work but imports importlib.metadata, which the trimmed stdlib omits.)
  pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${SITE_PACKAGES}")\nif finder: finder.invalidate_caches()`);
  return { pyodide, engine: pyodide.pyimport("engine") };
}

/** @param {import("./protocol.js").Runtime} runtime */
async function load(runtime) {
  const started = performance.now();
  progress(1, "Loading the Python runtime");
  // While the page still sets itself up: start the downloads and load Pyodide's
  // JavaScript half, which the boot then finds in the module map. The two large files
  // go first, without waiting a round trip for Pyodide's loader: at 20 Mbit/s and 40 ms
  // they now start about 200 ms after navigation instead of 480 (with the page's
  // modulepreload of this script), and Python is ready 250 ms sooner (median of 4
  // first visits each). The boot itself (compiling WebAssembly, starting Python) waits
  // for the page's go-ahead, so the two never compete for the processor.
  downloadEarly([
    [`${runtime.indexURL}pyodide.asm.wasm`, "Python's WebAssembly module"],
    [runtime.stdLibURL, "Python's standard library"],
  ]);
  const glue = import(`${runtime.indexURL}pyodide.asm.mjs`);
  glue.catch(() => {}); // loadPyodide imports it again and reports a failure itself
  const [{ loadPyodide }, saved] = await Promise.all([import(runtime.pyodideModule), findSnapshot(runtime.snapshotURL)]);
  // A fresh boot also needs the wheel and its bytecode; a saved snapshot holds both.
  if (!saved) downloadEarly([[runtime.wheelURL, WHEEL], [runtime.engineBytecodeURL, BYTECODE]]);
  await booting;
  const restored = saved && (await fromSnapshot(loadPyodide, runtime, saved));
  const { pyodide, engine } = restored ?? (await fromScratch(loadPyodide, runtime));
  if (!restored) saveSnapshotAfterFirstRun = () => saveSnapshot(pyodide, runtime.snapshotURL);
  const runJson = engine.run_json;
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  progress(4, "Ready");
  postMessage({
    type: MSG.READY,
    seconds: (performance.now() - started) / 1000,
    python,
    engine: String(engine.__version__),
    boot: restored ? "snapshot" : "fresh",
  });
  return (/** @type {string} */ request) => runJson(request);
}

// Pyodide fetches the WebAssembly module inside its own promise chain; when that
// download fails the rejection escapes loadPyodide, which then never settles. Treat
// any stray failure during loading as a failed load so the page can offer Retry.
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  postMessage({ type: MSG.FAILED, error: postableError(event.reason) });
});

self.addEventListener("message", async (event) => {
  const message = event.data;
  if (message.type === MSG.BOOT) {
    bootAllowed();
  } else if (message.type === MSG.LOAD) {
    engineReady ??= load(message.runtime);
    try {
      await engineReady;
    } catch (error) {
      postMessage({ type: MSG.FAILED, error: postableError(error) });
    }
  } else if (message.type === MSG.RUN) {
    try {
      if (!engineReady) throw new Error("the engine was asked to run before loading");
      const runJson = await engineReady;
      postMessage({ type: MSG.RESULT, id: message.id, response: runJson(message.request) });
    } catch (error) {
      postMessage({ type: MSG.RUN_ERROR, id: message.id, error: postableError(error) });
    }
    // After the answer has gone: the copy takes tens of milliseconds.
    const save = saveSnapshotAfterFirstRun;
    saveSnapshotAfterFirstRun = null;
    if (save) setTimeout(save, 0);
  }
});
