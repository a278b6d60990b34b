// Module worker: boots Pyodide, installs the engine wheel (no micropip, no package
// lock download) and answers run requests with engine.run_json. Protocol: protocol.js.

import { MSG, postableError } from "./protocol.js";

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const STEPS = 4;

/** @type {Promise<(request: string) => string> | null} */
let engineReady = null;

/** @param {number} step @param {string} label */
function progress(step, label) {
  postMessage({ type: MSG.PROGRESS, step, of: STEPS, label });
}

/** @param {import("./protocol.js").Runtime} runtime */
async function load(runtime) {
  const started = performance.now();
  // Fetch the wheel while Python boots: it is small and needed right after.
  const wheel = fetch(runtime.wheelURL).then((response) => {
    if (!response.ok) throw new Error(`the engine wheel failed to load (HTTP ${response.status})`);
    return response.arrayBuffer();
  });
  wheel.catch(() => {}); // reported when awaited below, not as an unhandled rejection
  progress(1, "Loading the Python runtime");
  const { loadPyodide } = await import(runtime.pyodideModule);
  progress(2, "Starting Python");
  const pyodide = await loadPyodide({
    indexURL: runtime.indexURL,
    stdLibURL: runtime.stdLibURL,
    // A minimal inline lock: the engine needs no package from Pyodide's repository,
    // so the 119 KB pyodide-lock.json is never requested.
    lockFileContents: { info: { abi_version: runtime.abiVersion }, packages: {} },
    stdout: () => {},
    stderr: (text) => console.warn(text),
  });
  progress(3, "Installing the engine");
  pyodide.unpackArchive(await wheel, "wheel", { extractDir: SITE_PACKAGES });
  // The directory's import cache predates the unpack. (importlib.invalidate_caches()
  // would also work but imports importlib.metadata, which the trimmed stdlib omits.)
  pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${SITE_PACKAGES}")\nif finder: finder.invalidate_caches()`);
  const engine = pyodide.pyimport("engine");
  const runJson = engine.run_json;
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  progress(4, "Ready");
  postMessage({ type: MSG.READY, seconds: (performance.now() - started) / 1000, python, engine: String(engine.__version__) });
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
  }
});
