// Python's memory snapshot, kept without its zero pages, and restored without touching them.
//
// Pyodide's snapshot is a short header followed by the whole WebAssembly memory, and
// about half of that memory is pages Python never wrote (free heap, unused stack): all
// zeros. Restored as Pyodide does it, by copying the whole memory into the new one, those
// pages are written too, and an operating system keeps a written page in RAM even when
// it holds only zeros, whereas a fresh boot never touches them. So a visit restored from
// a snapshot would hold about 16 MB more than a fresh one, for the page's whole life.
//
// packSnapshot drops the zero pages (half the bytes to keep and to read back);
// unpackSnapshot gives the whole snapshot back, its zero pages never written (a new
// ArrayBuffer's pages take no memory until written), with a copy function that writes
// only the pages that are not zero. The worker hands that function to Pyodide's restore
// (engine-worker.js). No DOM and no worker globals: Node's tests drive it.

// "RWSP", the first four bytes of a packed snapshot; Pyodide's own snapshots start with
// another number, so a copy saved by an older worker is still recognised as its own.
export const PACKED_MAGIC = 0x50535752;
const HEADER_WORDS = 4; // magic, total length, where the memory starts, pages kept
// The operating system's page: what is or is not resident.
export const PAGE_BYTES = 4096;

/** The snapshot is damaged or not one this code packed. */
export class SnapshotError extends Error {
  name = "SnapshotError";
}

/** Whether bytes [start, start + PAGE_BYTES) of words (as 32-bit words) are all zero. */
function pageIsZero(/** @type {Int32Array} */ words, /** @type {number} */ start) {
  for (let i = start >> 2, end = (start + PAGE_BYTES) >> 2; i < end; i++) if (words[i] !== 0) return false;
  return true;
}

/** Where Pyodide's snapshot header says the memory starts (its second 32-bit word). */
function memoryStart(/** @type {Uint8Array} */ snapshot) {
  if (snapshot.byteLength < 8) throw new SnapshotError("the snapshot is too short to hold a header");
  const start = new DataView(snapshot.buffer, snapshot.byteOffset, 8).getUint32(4, true);
  if (start % 8 || start > snapshot.byteLength || (snapshot.byteLength - start) % PAGE_BYTES) {
    throw new SnapshotError(`the snapshot's memory does not start where its header says (${start})`);
  }
  return start;
}

/**
 * Pyodide's snapshot without the pages of its memory that are all zero: the header, the
 * numbers of the pages kept, then those pages.
 * @param {Uint8Array} snapshot  what pyodide.makeMemorySnapshot() returned
 * @returns {Uint8Array}
 */
export function packSnapshot(snapshot) {
  const start = memoryStart(snapshot);
  const memory = snapshot.subarray(start);
  // A copy aligned for 32-bit reads only if the snapshot's own bytes are not.
  const aligned = memory.byteOffset % 4 ? memory.slice() : memory;
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >> 2);
  /** @type {number[]} */
  const kept = [];
  for (let page = 0; page * PAGE_BYTES < memory.byteLength; page++) if (!pageIsZero(words, page * PAGE_BYTES)) kept.push(page);
  const headerBytes = HEADER_WORDS * 4 + start;
  const pagesAt = headerBytes + kept.length * 4;
  const packed = new Uint8Array(pagesAt + kept.length * PAGE_BYTES);
  const view = new DataView(packed.buffer);
  view.setUint32(0, PACKED_MAGIC, true);
  view.setUint32(4, snapshot.byteLength, true);
  view.setUint32(8, start, true);
  view.setUint32(12, kept.length, true);
  packed.set(snapshot.subarray(0, start), HEADER_WORDS * 4);
  kept.forEach((page, i) => {
    view.setUint32(headerBytes + i * 4, page, true);
    packed.set(memory.subarray(page * PAGE_BYTES, (page + 1) * PAGE_BYTES), pagesAt + i * PAGE_BYTES);
  });
  return packed;
}

/** Whether bytes are a snapshot packed by packSnapshot (rather than one of Pyodide's own). */
export function isPacked(/** @type {Uint8Array} */ bytes) {
  return bytes.byteLength >= 16 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === PACKED_MAGIC;
}

/**
 * The whole snapshot again, and how to copy its memory into Python's without writing
 * the pages that are zero in both.
 * @param {Uint8Array} packed
 * @returns {{snapshot: Uint8Array, memory: Uint8Array, copyMemory: (target: Int8Array | Uint8Array) => void}}
 *   snapshot: Pyodide's snapshot, the same bytes as before packing; memory: its part
 *   after the header, which Pyodide copies into Python's memory; copyMemory(target):
 *   target (a new WebAssembly memory's view, at least the memory's length) ends up
 *   holding the snapshot's memory, byte for byte
 */
export function unpackSnapshot(packed) {
  if (!isPacked(packed)) throw new SnapshotError("this is not a packed snapshot");
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const total = view.getUint32(4, true);
  const start = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  const headerBytes = HEADER_WORDS * 4 + start;
  const pagesAt = headerBytes + count * 4;
  const pages = Math.ceil((total - start) / PAGE_BYTES);
  if (start > total || (total - start) % PAGE_BYTES || count > pages || packed.byteLength !== pagesAt + count * PAGE_BYTES) {
    throw new SnapshotError("the packed snapshot's length does not match its header (damaged or cut short)");
  }
  const snapshot = new Uint8Array(total);
  snapshot.set(packed.subarray(HEADER_WORDS * 4, headerBytes), 0);
  const kept = new Uint8Array(pages); // 1 where the page is not zero
  for (let i = 0, previous = -1; i < count; i++) {
    const page = view.getUint32(headerBytes + i * 4, true);
    if (page >= pages || page <= previous) throw new SnapshotError("the packed snapshot's page numbers are damaged");
    previous = page;
    kept[page] = 1;
    snapshot.set(packed.subarray(pagesAt + i * PAGE_BYTES, pagesAt + (i + 1) * PAGE_BYTES), start + page * PAGE_BYTES);
  }
  const memory = snapshot.subarray(start);
  return {
    snapshot,
    memory,
    copyMemory(target) {
      if (target.byteLength < memory.byteLength) throw new RangeError("the snapshot's memory is larger than Python's");
      const set = Uint8Array.prototype.set;
      const bytes = new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
      const words = new Int32Array(target.buffer, target.byteOffset, target.byteLength >> 2);
      for (let page = 0; page < pages; page++) {
        const at = page * PAGE_BYTES;
        // A new memory is all zeros but for what instantiating it wrote (the module's
        // data): a page zero in the snapshot is written only if it is not zero already.
        if (kept[page]) set.call(bytes, memory.subarray(at, at + PAGE_BYTES), at);
        else if (!pageIsZero(words, at)) bytes.fill(0, at, at + PAGE_BYTES);
      }
    },
  };
}
