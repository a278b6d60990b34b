// Python's boot in its worker: downloads, decoding, a restore or a fresh start.
//
// Python's boot in its worker: the runtime downloads started early, the WebAssembly
// module and the standard library decoded from zstd as they stream in (zstd.js), the
// decoded module kept in Cache Storage for a later visit, then Python restored from this
// browser's snapshot or started from scratch with the engine wheel installed (no
// micropip, no package lock download).
//
// Each phase of the start leaves a User Timing mark in the worker (rw:w-load, -loader,
// -looked-up, -glue, -prepared, -boot, -instantiated, -snapshot-read, -pyodide, -engine),
// which bench/worker_phases.py reads: a mark costs microseconds, and tells where a slow
// start spent its time.

import { fetchOk as fetchOkWith } from "./early-fetch.js";
import { LoadError } from "./load-failure.js";
import { MSG } from "./protocol.js";
import { findSaved, forget, keep } from "./worker-caches.js";
import { failed, progress } from "./worker-report.js";
import { fromSnapshot, makeSnapshot, snapshotPages } from "./worker-snapshots.js";
import { warmCodeCache } from "./worker-warmer.js";
import { loadZstd, ZstdError } from "./zstd.js";

/** @typedef {import("./worker-state.js").WorkerState} WorkerState */
/** @typedef {import("./protocol.js").Runtime} Runtime */
/** @typedef {import("./worker-snapshots.js").Pyodide} Pyodide */
/**
 * loadPyodide as this worker calls it: with a lock of no packages, whose ABI version is
 * all Pyodide reads of it, and a snapshot in a holder (worker-snapshots.js).
 * @typedef {(options: Omit<import("pyodide").PyodideConfig, "lockFileContents" | "_loadSnapshot"> & {
 *   lockFileContents: {info: {abi_version: string}, packages: {}},
 *   _loadSnapshot?: import("./worker-snapshots.js").SnapshotHolder}) => Promise<import("pyodide").PyodideAPI>} LoadPyodide
 */

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const WHEEL = "the engine wheel";
const BYTECODE = "the engine's bytecode";
const WASM = "Python's WebAssembly module";
const STDLIB = "Python's standard library";

/**
 * A response that is ok, or a rejection naming what failed to load; through the
 * early answers unless a fetcher is given. A download (one through the given fetcher)
 * that fails is told to the page as it fails (load-failure.js).
 * @param {WorkerState} state @param {string} url @param {string} what @param {typeof fetch} [fetcher]
 */
function fetchOk(state, url, what, fetcher = state.early.fetch) {
  const response = fetchOkWith(url, what, state.requestInit, fetcher);
  return fetcher === state.early.fetch ? response : state.failure.download(response);
}

/**
 * A zstd-compressed download as a response of its decoded bytes, streaming as they
 * arrive, so that WebAssembly compiles while the rest still comes.
 * @param {WorkerState} state @param {Runtime} runtime @param {string} url @param {string} type @param {string} what
 */
function decompressing(state, runtime, url, type, what) {
  state.zstd ??= fetchOk(state, runtime.zstdDecoderURL, "the zstd decoder", state.plainFetch).then(loadZstd);
  return Promise.all([state.zstd, fetchOk(state, url, what, state.plainFetch)]).then(([decoder, response]) => {
    // A damaged file, or a download that fails half-way, fails inside Pyodide's own
    // reading, which would then wait forever: report it as a failed load from here.
    const body = decoder.decodeStream(/** @type {ReadableStream<Uint8Array>} */ (response.body), (error) => {
      failed(state, new LoadError(`${what} ${error instanceof ZstdError ? "could not be decompressed" : "failed to load"} (${error.message})`));
    });
    return new Response(body, { headers: { "Content-Type": type } });
  });
}

/**
 * Pyodide's request for pyodide.asm.wasm gets this browser's decoded copy when an earlier
 * visit kept one: a later visit then skips the download and the decoding.
 * Otherwise the compressed download, decoded as it arrives and kept for the next visit.
 * The download waits for the look-up (short, and the stdlib downloads meanwhile)
 * rather than being aborted when a copy turns up: an aborted request reads as a failed
 * one, offline too.
 * @param {WorkerState} state @param {Runtime} runtime
 */
function wasmEarly(state, runtime) {
  // Where the decoded module is kept: beside the compressed file, a URL only Cache Storage knows.
  const key = runtime.wasmURL.replace(/\.zst$/, "");
  state.early.answerEarly(`${runtime.indexURL}pyodide.asm.wasm`, async (keepIt) => {
    const kept = await findSaved(key);
    if (kept) return kept;
    const decoded = await decompressing(state, runtime, runtime.wasmURL, "application/wasm", WASM);
    if (!keepIt) return decoded;
    const [forPyodide, forCache] = /** @type {ReadableStream<Uint8Array>} */ (decoded.body).tee();
    keep(key, new Response(forCache, { headers: { "Content-Type": "application/wasm" } }));
    return new Response(forPyodide, { headers: decoded.headers });
  });
  // Pyodide logs a module that fails to compile and then waits forever. A download that
  // fails to decode is reported above, so this is this browser's copy gone bad: forget
  // it and report a failed load, so that Retry downloads the module again.
  const instantiateStreaming = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    /** @type {WebAssembly.WebAssemblyInstantiatedSource} */
    let instantiated;
    try {
      instantiated = await instantiateStreaming(source, imports);
      performance.mark("rw:w-instantiated");
    } catch (error) {
      // The download failed: that is the failure, told as it happened.
      if (error instanceof LoadError) throw error;
      await forget(key);
      failed(state, new LoadError(`${WASM} could not be compiled (${error instanceof Error ? error.message : error}); Retry downloads it again`));
      throw error;
    }
    await state.afterInstantiating?.();
    return instantiated;
  };
}

/** @param {Runtime} runtime */
function pyodideOptions(runtime) {
  return {
    indexURL: runtime.indexURL,
    stdLibURL: runtime.stdLibURL,
    // A minimal inline lock: the engine needs no package from Pyodide's repository,
    // so Pyodide's own lock file (pyodide-lock.json) is never requested.
    lockFileContents: { info: { abi_version: runtime.abiVersion }, packages: {} },
    stdout: () => {},
    stderr: (/** @type {string} */ text) => console.warn(text),
  };
}

/** The bytes of a file the fresh boot needs (usually under way since load started it). @param {WorkerState} state */
function download(state, /** @type {string} */ url, /** @type {string} */ what) {
  const bytes = fetchOk(state, url, what).then((response) => response.arrayBuffer());
  bytes.catch(() => {}); // reported when awaited, not as an unhandled rejection
  return bytes;
}

/**
 * Start downloading the engine wheel and its bytecode (zstd-compressed, decoded as it
 * arrives), for the fresh boot to read through the early fetch. @param {WorkerState} state @param {Runtime} runtime
 */
function engineDownloads(state, runtime) {
  state.early.answerEarly(runtime.wheelURL, () => fetchOk(state, runtime.wheelURL, WHEEL, state.plainFetch));
  state.early.answerEarly(runtime.engineBytecodeURL, () => decompressing(state, runtime, runtime.engineBytecodeURL, "application/zip", BYTECODE));
}

/** Boot Python and install the engine wheel. @param {WorkerState} state @param {LoadPyodide} loadPyodide @param {Runtime} runtime */
async function fromScratch(state, loadPyodide, runtime) {
  // Both are small and needed right after Python starts. The bytecode (compiled at
  // build time by this Pyodide) spares compiling the engine's sources on the first
  // visit; Python checks it against the wheel's sources before using it.
  const wheel = download(state, runtime.wheelURL, WHEEL);
  const bytecode = download(state, runtime.engineBytecodeURL, BYTECODE);
  progress(2, "Starting Python");
  const pyodide = /** @type {Pyodide} */ (await loadPyodide({ ...pyodideOptions(runtime), _makeSnapshot: true }));
  performance.mark("rw:w-pyodide");
  progress(3, "Installing the engine");
  pyodide.unpackArchive(await wheel, "wheel", { extractDir: SITE_PACKAGES });
  pyodide.unpackArchive(await bytecode, "zip", { extractDir: SITE_PACKAGES });
  // The directory's import cache predates the unpack. (importlib.invalidate_caches()
  // would also work but imports importlib.metadata, which the trimmed stdlib omits.)
  pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${SITE_PACKAGES}")\nif finder: finder.invalidate_caches()`);
  return { pyodide, engine: pyodide.pyimport("engine") };
}

/**
 * Start the downloads at once, boot Python once the page allows it, and tell the page
 * it is ready. @param {WorkerState} state @param {Runtime} runtime
 * @returns {Promise<import("./worker-state.js").Engine>}
 */
export async function load(state, runtime) {
  const started = performance.now();
  performance.mark("rw:w-load");
  progress(1, "Loading the Python runtime");
  // While the page still sets itself up: start the downloads and load Pyodide's
  // JavaScript half, which the boot then finds in the module map. The two large files
  // go first, without waiting a round trip for Pyodide's loader. The boot itself
  // (compiling WebAssembly, starting Python) waits for the page's go-ahead, so the two
  // never compete for the processor.
  wasmEarly(state, runtime);
  state.early.answerEarly(runtime.stdLibURL, () => decompressing(state, runtime, runtime.stdLibURL, "application/zip", STDLIB));
  const glue = import(`${runtime.indexURL}pyodide.asm.mjs`);
  glue.then(() => performance.mark("rw:w-glue"), () => {}); // loadPyodide imports it again and reports a failure itself
  const [{ loadPyodide }, saved] = await Promise.all([
    /** @type {Promise<{loadPyodide: LoadPyodide}>} */ (import(runtime.pyodideModule)).then((module) => (performance.mark("rw:w-loader"), module)),
    findSaved(runtime.snapshotURL).then((found) => (performance.mark("rw:w-looked-up"), found)),
  ]);
  // A fresh boot also needs the wheel and its bytecode; a saved snapshot holds both.
  if (!saved) engineDownloads(state, runtime);
  else snapshotPages(state).catch(() => {}); // while the page sets up; a failure is reported where it is awaited
  performance.mark("rw:w-prepared");
  await state.booting;
  performance.mark("rw:w-boot");
  const restoreFrom = (/** @type {import("./worker-snapshots.js").SnapshotHolder} */ holder) => loadPyodide({ ...pyodideOptions(runtime), _loadSnapshot: holder });
  const restored = saved && (await fromSnapshot(state, runtime, saved, restoreFrom));
  if (saved && !restored) engineDownloads(state, runtime);
  const { pyodide, engine } = restored ?? (await fromScratch(state, loadPyodide, runtime));
  if (!restored) {
    state.saveSnapshotWhenIdle = async () => {
      // A Python restored from the snapshot has no files to import from: the modules the
      // engine imports only when first needed go into it now. Without them, no snapshot.
      try {
        engine.import_everything();
      } catch {
        return;
      }
      warmCodeCache(state, runtime, await makeSnapshot(state, pyodide, runtime.snapshotURL));
    };
  }
  // Both runtime files are decoded by now (a restart or a Retry is a new worker).
  state.zstd = null;
  performance.mark("rw:w-engine");
  const openJson = engine.open_json;
  const loadEmbedding = engine.load_embedding;
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  progress(4, "Ready");
  postMessage({
    type: MSG.READY,
    seconds: (performance.now() - started) / 1000,
    python,
    engine: String(engine.__version__),
    boot: restored ? "snapshot" : "fresh",
  });
  // Imported when first asked for (a fresh Python's snapshot also takes it in, when idle): the first answer never waits for it.
  const evaluateJson = () => pyodide.pyimport("engine.evaluate").evaluate_json;
  // check_store_json imports the check (engine/claims.py) only when the editor first asks.
  const checkJson = () => engine.check_store_json;
  return { openJson, loadEmbedding, evaluateJson, checkJson, files: pyodide.FS };
}
