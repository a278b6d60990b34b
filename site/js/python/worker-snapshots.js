// Python's memory snapshot, as the worker makes, keeps and restores it.
//
// Python's memory snapshot, as Python's worker makes, keeps and restores it: once the
// first answer is shown and the page has then asked nothing for a while, the worker
// copies Python's whole memory (interpreter, imported modules, the engine) into Cache
// Storage, and the next visit restores that copy instead of starting Python and
// importing everything again. The copies never leave the browser; when one is missing,
// unreadable or from another build, the worker simply boots from scratch. The copy is
// kept without its zero pages, and restored without writing them (snapshot-pages.js).

import { forget, keep } from "./worker-caches.js";
import { progress } from "./worker-report.js";

/** @typedef {import("./worker-state.js").WorkerState} WorkerState */
/** @typedef {import("./snapshot-pages.js").Bytes} Bytes */
/** @typedef {{url: string, bytes: Bytes}} Snapshot  bytes own their whole buffer */
/** @typedef {import("pyodide").PyodideAPI & {_module: {HEAP8: Uint8Array}}} Pyodide  with its Emscripten module, which Pyodide's types leave out */

// A snapshot is a copy of the whole WebAssembly memory, which only grows. Past this,
// e.g. when the first store opened was huge, it is not worth keeping.
const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024;

/** snapshot-pages.js, needed only to save or restore a snapshot: not loaded before. @param {WorkerState} state */
export function snapshotPages(state) {
  return (state.snapshotPages ??= import("./snapshot-pages.js"));
}

/**
 * This build's snapshot of Python's memory, without its zero pages, to be kept under
 * url; null if Python's memory is oversized or the snapshot fails.
 * @param {WorkerState} state @param {Pyodide} pyodide @param {string} url
 * @returns {Promise<Snapshot | null>}
 */
export async function makeSnapshot(state, pyodide, url) {
  if (pyodide._module.HEAP8.length > SNAPSHOT_MAX_BYTES) return null;
  /** @type {Bytes} */
  let bytes;
  /** @type {typeof import("./snapshot-pages.js")} */
  let pages;
  try {
    pages = await snapshotPages(state);
    // The whole snapshot, the size of Python's memory, is freed as soon as it is packed.
    bytes = await pages.keptFromBrowser(async () => /** @type {Bytes} */ (pyodide.makeMemorySnapshot()));
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

/** Keep a snapshot made by makeSnapshot in Cache Storage. */
export function keepSnapshot(/** @type {Snapshot} */ snapshot) {
  return keep(snapshot.url, new Response(snapshot.bytes, { headers: { "Content-Type": "application/octet-stream" } }));
}

/**
 * Restore Python from a snapshot; null if it cannot be used (then it is deleted).
 * @param {WorkerState} state @param {import("./protocol.js").Runtime} runtime @param {Response} saved
 * @param {(snapshot: SnapshotHolder) => Promise<import("pyodide").PyodideAPI>} restoreFrom  loadPyodide, handed the snapshot
 */
export async function fromSnapshot(state, runtime, saved, restoreFrom) {
  try {
    const pages = await snapshotPages(state);
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
        state.afterInstantiating = async () => {
          state.afterInstantiating = null;
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
    const restore = () => restoreFrom(holder);
    try {
      const pyodide = await pages.keptFromBrowser(() => (unpacked ? pages.sparingZeroPages(unpacked, restore) : restore()));
      performance.mark("rw:w-pyodide");
      return { pyodide: /** @type {Pyodide} */ (pyodide), engine: pyodide.pyimport("engine") };
    } finally {
      state.afterInstantiating = null;
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

/** @typedef {{bytes: Bytes | null, then: (resolve: (bytes: Bytes | null) => void) => void}} SnapshotHolder */

/**
 * How Pyodide is handed a snapshot: it keeps its options for Python's whole life,
 * _loadSnapshot included, so the bytes go through a holder emptied once Python runs.
 * Made here, not in fromSnapshot: a function made there would keep that call's
 * variables alive with it, the packed snapshot among them.
 * @param {Bytes} bytes
 * @returns {SnapshotHolder}
 */
function snapshotHolder(bytes) {
  return {
    bytes: /** @type {Bytes | null} */ (bytes),
    then(/** @type {(bytes: Bytes | null) => void} */ resolve) {
      resolve(this.bytes);
    },
  };
}
