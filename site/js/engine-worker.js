// Module worker: boots Pyodide, installs the engine wheel (no micropip, no package
// lock download), opens the page's store with engine.open_json and answers each policy
// with the session it keeps. Protocol: protocol.js.
//
// Python's WebAssembly module and the standard library arrive zstd-compressed and are
// decoded as they stream in (zstd.js); the decoded module is also kept in Cache Storage,
// so a later visit neither downloads nor decodes it again.
//
// Later visits skip most of the boot: once the first answer is shown and the page has
// then asked nothing for a while, the worker copies Python's whole memory (interpreter,
// imported modules, the engine) into Cache Storage, and the next visit restores that
// copy instead of starting Python and importing everything again. The copies never
// leave the browser; when one is missing, unreadable or from another build, the worker
// simply boots from scratch.
//
// A phone has little memory to spare, so nothing is held past its use: the zstd
// decoder goes once Python is ready, a restored snapshot's bytes once Python runs from
// them, the snapshot made for the next visit once it is stored. The snapshot is kept
// without the half of Python's memory that is zero pages, and restored without writing
// them (snapshot-pages.js), so a restored Python takes no more memory than a fresh one.
//
// Each phase of the start leaves a User Timing mark in the worker (rw:w-load, -loader,
// -looked-up, -glue, -prepared, -boot, -instantiated, -snapshot-read, -pyodide, -engine),
// which bench/worker_phases.py reads: a mark costs microseconds, and tells where a slow
// start spent its time.

import { earlyFetch, fetchOk as fetchOkWith } from "./python/early-fetch.js";
import { MSG, postableError } from "./python/protocol.js";
import { loadZstd, ZstdError } from "./python/zstd.js";

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const STEPS = 4;
const WHEEL = "the engine wheel";
const BYTECODE = "the engine's bytecode";
const WASM = "Python's WebAssembly module";
const STDLIB = "Python's standard library";
// This browser's own copies: the Python snapshot and the decoded WebAssembly module.
const SNAPSHOT_CACHE = "retrieval-workbench:python-snapshots";
// A snapshot is a copy of the whole WebAssembly memory, which only grows. Past this,
// e.g. when the first store opened was huge, it is not worth keeping.
const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024;
// The snapshot is made once the page has asked nothing for this long after the first
// answer: while a learner reads it rather than while they change the controls, and
// never delaying an answer they wait for.
const IDLE_MS = 2000;
// warmCodeCache's worker is terminated after this long even if its imports hang.
const WARM_MS = 10_000;

// Refused to a run before any store was accepted (the page opens one first).
const NO_STORE = JSON.stringify({
  error: { name: "NoStore", message: "no store is open: open one before asking for an answer", problems: [] },
});

/**
 * The engine's entry point, once Python runs.
 * @type {Promise<{openJson: (storeText: string) => any}> | null}
 */
let engineReady = null;
/** Resolved by the page's BOOT message: Python's heavy start waits for it. */
let bootAllowed = /** @type {() => void} */ (() => {});
const booting = new Promise((resolve) => (bootAllowed = () => resolve(undefined)));
/** Set on a fresh boot until the snapshot is made: makes it, once. */
let saveSnapshotWhenIdle = /** @type {(() => void) | null} */ (null);
let answeredOnce = false;
/** Armed after each answer while the snapshot is still to be made; any request disarms it. */
let idleTimer = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
/**
 * The store in force: the Session PyProxy from the last store accepted, and its bound
 * answer_json (looked up once, not once per run). Both are destroyed when a new store
 * is accepted, so the old session's memory goes back to Python.
 * @type {{session: import("pyodide/ffi").PyProxy, answerJson: import("pyodide/ffi").PyCallable} | null}
 */
let current = null;
/** Open and run requests, taken one at a time in the order they came. */
let work = Promise.resolve();

// Pyodide's requests for its runtime files are answered with downloads started while
// the page still sets itself up (early-fetch.js says how).
const plainFetch = globalThis.fetch.bind(globalThis);
const early = earlyFetch(plainFetch);
globalThis.fetch = early.fetch;

/**
 * How runtime files are requested: normally as any request (HTTP cache, service worker);
 * on a Retry from the network (the service worker then refreshes its copy), since the
 * failure may have been a damaged copy that a cache would hand out again.
 * @type {RequestInit}
 */
let requestInit = {};

/**
 * A response that is ok, or a rejection naming what failed to load; through the
 * early answers unless a fetcher is given.
 * @param {string} url @param {string} what @param {typeof fetch} [fetcher]
 */
function fetchOk(url, what, fetcher = early.fetch) {
  return fetchOkWith(url, what, requestInit, fetcher);
}

/** @type {Promise<import("./python/zstd.js").ZstdDecoder> | null} */
let zstd = null;

/**
 * A zstd-compressed download as a response of its decoded bytes, streaming as they
 * arrive, so that WebAssembly compiles while the rest still comes.
 * @param {import("./python/protocol.js").Runtime} runtime @param {string} url @param {string} type @param {string} what
 */
function decompressing(runtime, url, type, what) {
  zstd ??= fetchOk(runtime.zstdDecoderURL, "the zstd decoder", plainFetch).then(loadZstd);
  return Promise.all([zstd, fetchOk(url, what, plainFetch)]).then(([decoder, response]) => {
    // A damaged file, or a download that fails half-way, fails inside Pyodide's own
    // reading, which would then wait forever: report it as a failed load from here.
    const body = decoder.decodeStream(/** @type {ReadableStream<Uint8Array>} */ (response.body), (error) => {
      failed(new Error(`${what} ${error instanceof ZstdError ? "could not be decompressed" : "failed to load"} (${error.message})`));
    });
    return new Response(body, { headers: { "Content-Type": type } });
  });
}

/**
 * Pyodide's request for pyodide.asm.wasm gets this browser's decoded copy when an earlier
 * visit kept one: a later visit then skips the download and the decoding.
 * Otherwise the compressed download, decoded as it arrives and kept for the next visit.
 * The download waits for the look-up (a few ms, while the stdlib already downloads)
 * rather than being aborted when a copy turns up: an aborted request reads as a failed
 * one, offline too.
 * @param {import("./python/protocol.js").Runtime} runtime
 */
function wasmEarly(runtime) {
  // Where the decoded module is kept: beside the compressed file, a URL only Cache Storage knows.
  const key = runtime.wasmURL.replace(/\.zst$/, "");
  early.answerEarly(`${runtime.indexURL}pyodide.asm.wasm`, async (keepIt) => {
    const kept = await findSaved(key);
    if (kept) return kept;
    const decoded = await decompressing(runtime, runtime.wasmURL, "application/wasm", WASM);
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
      await forget(key);
      failed(new Error(`${WASM} could not be compiled (${error instanceof Error ? error.message : error}); Retry downloads it again`));
      throw error;
    }
    await afterInstantiating?.();
    return instantiated;
  };
}

/**
 * What a restore does once Python's module is instantiated, before Pyodide copies the
 * snapshot into its memory: read the snapshot's pages (fromSnapshot). It never throws:
 * a failure here would leave Pyodide waiting for ever; the copy then refuses instead.
 * @type {(() => Promise<void>) | null}
 */
let afterInstantiating = null;

/** Loading failed: the page offers Retry (posted once; later failures follow from it). */
let failedAlready = false;
function failed(/** @type {unknown} */ error) {
  if (failedAlready) return;
  failedAlready = true;
  postMessage({ type: MSG.FAILED, error: postableError(error) });
}

/** @param {number} step @param {string} label */
function progress(step, label) {
  postMessage({ type: MSG.PROGRESS, step, of: STEPS, label });
}

/** @param {import("./python/protocol.js").Runtime} runtime */
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

/** This browser's copy kept under url by an earlier visit, or null (none, or storage blocked). */
async function findSaved(/** @type {string} */ url) {
  try {
    const cache = await caches.open(SNAPSHOT_CACHE);
    return (await cache.match(url)) ?? null;
  } catch {
    return null;
  }
}

async function forget(/** @type {string} */ url) {
  try {
    await (await caches.open(SNAPSHOT_CACHE)).delete(url);
  } catch {
    // storage blocked: there was nothing to forget
  }
}

/** Keep a copy under url and drop older builds' copies in the same folder of the site. */
async function keep(/** @type {string} */ url, /** @type {Response} */ response) {
  try {
    const cache = await caches.open(SNAPSHOT_CACHE);
    const folder = new URL("./", url).href;
    for (const key of await cache.keys()) {
      if (key.url !== url && new URL("./", key.url).href === folder) await cache.delete(key);
    }
    await cache.put(url, response);
  } catch {
    // Storage blocked or full (or the download failed, which is reported where it is
    // read): the next visit does without this copy, as this one did.
  }
}

/** @type {Promise<typeof import("./python/snapshot-pages.js")> | null} */
let snapshotPagesModule = null;
/** snapshot-pages.js, needed only to save or restore a snapshot: not loaded before. */
function snapshotPages() {
  return (snapshotPagesModule ??= import("./python/snapshot-pages.js"));
}

/**
 * This build's snapshot of Python's memory, without its zero pages, to be kept under
 * url; null if Python's memory is oversized or the snapshot fails.
 * @returns {Promise<Snapshot | null>}
 */
async function makeSnapshot(/** @type {any} */ pyodide, /** @type {string} */ url) {
  if (pyodide._module.HEAP8.length > SNAPSHOT_MAX_BYTES) return null;
  /** @type {Bytes} */
  let bytes;
  /** @type {typeof import("./python/snapshot-pages.js")} */
  let pages;
  try {
    pages = await snapshotPages();
    // The whole snapshot, the size of Python's memory, is freed as soon as it is packed.
    bytes = await pages.keptFromBrowser(async () => pyodide.makeMemorySnapshot());
  } catch {
    return null; // then the next visit boots from scratch, as this one did
  }
  try {
    const packed = pages.packSnapshot(bytes);
    pages.free(bytes);
    bytes = packed;
  } catch {
    // Kept whole then: a Pyodide snapshot restores as it is, only less lightly.
  }
  return { url, bytes };
}

/** @typedef {import("./python/snapshot-pages.js").Bytes} Bytes */
/** @typedef {{url: string, bytes: Bytes}} Snapshot  bytes own their whole buffer */

/** Keep a snapshot made by makeSnapshot in Cache Storage. */
function keepSnapshot(/** @type {Snapshot} */ snapshot) {
  return keep(snapshot.url, new Response(snapshot.bytes, { headers: { "Content-Type": "application/octet-stream" } }));
}

/**
 * Restore Python from a snapshot; null if it cannot be used (then it is deleted).
 * @param {any} loadPyodide @param {import("./python/protocol.js").Runtime} runtime @param {Response} saved
 */
async function fromSnapshot(loadPyodide, runtime, saved) {
  try {
    const pages = await snapshotPages();
    // No copy this worker keeps is larger: at most SNAPSHOT_MAX_BYTES of memory, and a
    // header of a few kilobytes (a packed one adds its list of pages, 4 bytes a page).
    const kept = pages.readKept(saved, SNAPSHOT_MAX_BYTES + (1 << 20));
    /** @type {ReturnType<typeof pages.unpackSnapshot> | null} */
    let unpacked = null;
    /** @type {Bytes | null} a snapshot kept as Pyodide made it */
    let whole = null;
    try {
      const start = await kept.upTo(16);
      if (pages.isPacked(start)) {
        // Packed: Pyodide is handed a snapshot holding only the header, and the pages go
        // from the packed bytes straight into Python's memory, each piece freed once
        // copied. They are read once the module is compiled, not held while it compiles
        // (snapshot-pages.js).
        const headerLength = pages.packedHeaderLength(start);
        unpacked = pages.unpackSnapshot(await kept.upTo(headerLength), true);
        const { setPages } = unpacked;
        afterInstantiating = async () => {
          afterInstantiating = null;
          /** @type {Bytes[]} */
          let pieces = [];
          try {
            pieces = await kept.pieces();
            setPages(pieces);
            performance.mark("rw:w-snapshot-read");
          } catch {
            // copyMemory refuses, and the restore fails: a fresh boot follows
            for (const piece of pieces) pages.free(piece);
          }
        };
      } else {
        whole = await kept.upTo(Infinity);
        performance.mark("rw:w-snapshot-read");
      }
    } catch (error) {
      kept.free();
      throw error;
    }
    const holder = snapshotHolder(unpacked ? unpacked.snapshot : /** @type {Bytes} */ (whole));
    progress(2, "Restoring Python from this browser's copy");
    const restore = () => loadPyodide({ ...pyodideOptions(runtime), _loadSnapshot: holder });
    try {
      const pyodide = await pages.keptFromBrowser(() => (unpacked ? pages.sparingZeroPages(unpacked, restore) : restore()));
      performance.mark("rw:w-pyodide");
      return { pyodide, engine: pyodide.pyimport("engine") };
    } finally {
      afterInstantiating = null;
      holder.bytes = null;
      // Python runs from its own memory now (or never will from these bytes).
      if (unpacked) pages.free(unpacked.snapshot);
      kept.free();
    }
  } catch (error) {
    console.info(`The saved copy of Python could not be restored (${error}); starting from scratch.`);
    await forget(runtime.snapshotURL);
    return null;
  }
}

/**
 * How Pyodide is handed a snapshot: it keeps its options for Python's whole life,
 * _loadSnapshot included, so the bytes go through a holder emptied once Python runs.
 * Made here, not in fromSnapshot: a function made there would keep that call's
 * variables alive with it, the packed snapshot among them.
 * @param {Bytes} bytes
 */
function snapshotHolder(bytes) {
  return {
    bytes: /** @type {Bytes | null} */ (bytes),
    then(/** @type {(bytes: Bytes | null) => void} */ resolve) {
      resolve(this.bytes);
    },
  };
}

/** The bytes of a file the fresh boot needs (usually under way since downloadEarly). */
function download(/** @type {string} */ url, /** @type {string} */ what) {
  const bytes = fetchOk(url, what).then((response) => response.arrayBuffer());
  bytes.catch(() => {}); // reported when awaited, not as an unhandled rejection
  return bytes;
}

/** Boot Python and install the engine wheel. @param {any} loadPyodide @param {import("./python/protocol.js").Runtime} runtime */
async function fromScratch(loadPyodide, runtime) {
  // Both are small and needed right after Python starts. The bytecode (compiled at
  // build time by this Pyodide) spares compiling the engine's sources on the first
  // visit; Python checks it against the wheel's sources before using it.
  const wheel = download(runtime.wheelURL, WHEEL);
  const bytecode = download(runtime.engineBytecodeURL, BYTECODE);
  progress(2, "Starting Python");
  const pyodide = await loadPyodide({ ...pyodideOptions(runtime), _makeSnapshot: true });
  performance.mark("rw:w-pyodide");
  progress(3, "Installing the engine");
  pyodide.unpackArchive(await wheel, "wheel", { extractDir: SITE_PACKAGES });
  pyodide.unpackArchive(await bytecode, "zip", { extractDir: SITE_PACKAGES });
  // The directory's import cache predates the unpack. (importlib.invalidate_caches()
  // would also work but imports importlib.metadata, which the trimmed stdlib omits.)
  pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${SITE_PACKAGES}")\nif finder: finder.invalidate_caches()`);
  return { pyodide, engine: pyodide.pyimport("engine") };
}

/** @param {import("./python/protocol.js").Runtime} runtime */
async function load(runtime) {
  const started = performance.now();
  performance.mark("rw:w-load");
  progress(1, "Loading the Python runtime");
  // While the page still sets itself up: start the downloads and load Pyodide's
  // JavaScript half, which the boot then finds in the module map. The two large files
  // go first, without waiting a round trip for Pyodide's loader. The boot itself
  // (compiling WebAssembly, starting Python) waits for the page's go-ahead, so the two
  // never compete for the processor.
  wasmEarly(runtime);
  early.answerEarly(runtime.stdLibURL, () => decompressing(runtime, runtime.stdLibURL, "application/zip", STDLIB));
  const glue = import(`${runtime.indexURL}pyodide.asm.mjs`);
  glue.then(() => performance.mark("rw:w-glue"), () => {}); // loadPyodide imports it again and reports a failure itself
  const [{ loadPyodide }, saved] = await Promise.all([
    import(runtime.pyodideModule).then((module) => (performance.mark("rw:w-loader"), module)),
    findSaved(runtime.snapshotURL).then((found) => (performance.mark("rw:w-looked-up"), found)),
  ]);
  // A fresh boot also needs the wheel and its bytecode; a saved snapshot holds both.
  // A failed one is an unhandled rejection, which the listener below reports (early-fetch.js).
  if (!saved) early.downloadEarly([[runtime.wheelURL, WHEEL], [runtime.engineBytecodeURL, BYTECODE]], requestInit);
  else snapshotPages().catch(() => {}); // while the page sets up; a failure is reported where it is awaited
  performance.mark("rw:w-prepared");
  await booting;
  performance.mark("rw:w-boot");
  const restored = saved && (await fromSnapshot(loadPyodide, runtime, saved));
  const { pyodide, engine } = restored ?? (await fromScratch(loadPyodide, runtime));
  if (!restored) saveSnapshotWhenIdle = async () => warmCodeCache(runtime, await makeSnapshot(pyodide, runtime.snapshotURL));
  // Both runtime files are decoded by now (a restart or a Retry is a new worker).
  zstd = null;
  performance.mark("rw:w-engine");
  const openJson = engine.open_json;
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  progress(4, "Ready");
  postMessage({
    type: MSG.READY,
    seconds: (performance.now() - started) / 1000,
    python,
    engine: String(engine.__version__),
    boot: restored ? "snapshot" : "fresh",
  });
  return { openJson };
}

/**
 * Open a store: on success its session answers every later run, and the one before is
 * released; on a refusal the one before stays in force.
 * @param {(storeText: string) => any} openJson @param {string} storeText
 * @returns {string} the reply, JSON text
 */
function openStore(openJson, storeText) {
  const opening = openJson(storeText);
  try {
    // undefined when refused (Python's None). Copied: a proxy read from an attribute
    // is destroyed with the proxy it was read from, and the opening goes below.
    const session = opening.session?.copy();
    if (session) {
      const answerJson = session.answer_json;
      if (current) {
        current.answerJson.destroy();
        current.session.destroy();
      }
      current = { session, answerJson };
    }
    return opening.reply;
  } finally {
    opening.destroy();
  }
}

/** @param {any} message  an open or a run request */
async function answer(message) {
  try {
    if (!engineReady) throw new Error("the engine was asked to run before loading");
    const { openJson } = await engineReady;
    const response = message.type === MSG.OPEN ? openStore(openJson, message.store) : current ? current.answerJson(message.policy, message.haveTerms ?? "") : NO_STORE;
    postMessage({ type: MSG.RESULT, id: message.id, response });
  } catch (error) {
    postMessage({ type: MSG.RUN_ERROR, id: message.id, error: postableError(error) });
  }
  // After an answer rather than at boot, so the copy holds everything answering
  // imports and compiles. The session that answered is in the copy too, where a
  // restored Python keeps it unreachable (the JavaScript proxy that held it is gone):
  // one store's worth of memory, and makeSnapshot makes no copy past its size limit.
  if (message.type === MSG.RUN) answeredOnce = true;
  if (answeredOnce && saveSnapshotWhenIdle) idleTimer = setTimeout(whenIdle, IDLE_MS);
}

/**
 * Load Python's JavaScript and the page's modules a second time, in a worker of its own
 * that only imports them. Chromium keeps a script's compiled code (V8's code cache) only
 * from the second time the script is loaded, and uses it from the third: without this,
 * the first visit that restores the snapshot compiled Python's JavaScript again
 * (pyodide.asm.mjs, 1.2 MB) and was the slowest repeat visit. For the page's modules
 * this is their first load out of the service worker's cache: what a worker compiles
 * does not serve a document, so once this is done the page is told, and loads them
 * once more itself (page-code-cache.js). Made once the snapshot is stored, while the
 * page is idle; the worker goes as soon as its imports are done. A module that fails to
 * load here (one that has come to use the DOM as it loads) is only compiled on the next
 * visit, as before.
 *
 * The same worker keeps the snapshot made for the next visit. Whatever a browser API
 * has been handed (the snapshot's bytes, given to Cache Storage) is held until the
 * next full garbage collection, which may be half a minute away; a worker's memory is
 * all freed the moment it is terminated.
 * @param {import("./python/protocol.js").Runtime} runtime @param {Snapshot | null} snapshot
 */
function warmCodeCache(runtime, snapshot) {
  let warmer;
  try {
    warmer = new Worker(new URL(import.meta.url), { type: "module" });
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

/** The page has asked nothing for IDLE_MS since an answer: make the snapshot now. */
function whenIdle() {
  const save = saveSnapshotWhenIdle;
  saveSnapshotWhenIdle = null;
  save?.();
}

// Pyodide fetches the WebAssembly module inside its own promise chain; when that
// download fails the rejection escapes loadPyodide, which then never settles. Treat
// any stray failure during loading as a failed load so the page can offer Retry.
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  failed(event.reason);
});

self.addEventListener("message", (event) => {
  const message = event.data;
  if (message.type === MSG.BOOT) {
    bootAllowed(); // at once: the load waits for it
  } else if (message.type === MSG.LOAD) {
    if (message.fresh) requestInit = { cache: "reload" };
    engineReady ??= load(message.runtime);
    engineReady.catch(failed);
  } else if (message.type === MSG.WARM) {
    // This is warmCodeCache's worker: keep the snapshot, import, say so, and be terminated.
    const keeping = message.snapshot ? keepSnapshot(message.snapshot) : null;
    Promise.allSettled([keeping, ...message.urls.map((/** @type {string} */ url) => import(url))]).then(() => postMessage({ type: MSG.WARM }));
  } else if (message.type === MSG.OPEN || message.type === MSG.RUN) {
    // One at a time, in order: each run must be answered from the stores opened before it.
    clearTimeout(idleTimer);
    work = work.then(() => answer(message));
  }
});
