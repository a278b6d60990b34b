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
const SNAPSHOT_CACHE = "retrieval-workbench:python-snapshots";
// A snapshot is a copy of the whole WebAssembly memory (about 31 MB after the default
// store). Past this, e.g. when the first store opened was huge, it is not worth keeping.
const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024;

/** @type {Promise<(request: string) => string> | null} */
let engineReady = null;
/** Set while the first answer is pending on a fresh boot: saves the snapshot once. */
let saveSnapshotAfterFirstRun = /** @type {(() => void) | null} */ (null);

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

/** Boot Python and install the engine wheel. @param {any} loadPyodide @param {import("./protocol.js").Runtime} runtime */
async function fromScratch(loadPyodide, runtime) {
  // Fetch the wheel while Python boots: it is small and needed right after.
  const wheel = fetch(runtime.wheelURL).then((response) => {
    if (!response.ok) throw new Error(`the engine wheel failed to load (HTTP ${response.status})`);
    return response.arrayBuffer();
  });
  wheel.catch(() => {}); // reported when awaited below, not as an unhandled rejection
  progress(2, "Starting Python");
  const pyodide = await loadPyodide({ ...pyodideOptions(runtime), _makeSnapshot: true });
  progress(3, "Installing the engine");
  pyodide.unpackArchive(await wheel, "wheel", { extractDir: SITE_PACKAGES });
  // The directory's import cache predates the unpack. (importlib.invalidate_caches()
  // would also work but imports importlib.metadata, which the trimmed stdlib omits.)
  pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${SITE_PACKAGES}")\nif finder: finder.invalidate_caches()`);
  return { pyodide, engine: pyodide.pyimport("engine") };
}

/** @param {import("./protocol.js").Runtime} runtime */
async function load(runtime) {
  const started = performance.now();
  progress(1, "Loading the Python runtime");
  const [{ loadPyodide }, saved] = await Promise.all([import(runtime.pyodideModule), findSnapshot(runtime.snapshotURL)]);
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
  if (message.type === MSG.LOAD) {
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
