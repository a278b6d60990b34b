// Python's memory snapshot, kept without its zero pages, and restored without touching them.
//
// Pyodide's snapshot is a short header followed by the whole WebAssembly memory, and
// about half of that memory is pages Python never wrote (free heap, unused stack): all
// zeros. Restored as Pyodide does it, by copying the whole memory into the new one, those
// pages are written too, and an operating system keeps a written page in RAM even when
// it holds only zeros, whereas a fresh boot never touches them. So a visit restored from
// a snapshot would hold those pages more than a fresh one, for the page's whole life.
//
// packSnapshot drops the zero pages (half the bytes to keep and to read back).
// unpackSnapshot gives Pyodide a snapshot of the right length holding only the header,
// its memory never written (a new ArrayBuffer's pages take no memory until written),
// and a copy function that writes the packed pages straight into Python's memory and
// no page that is zero: the snapshot's memory never exists twice while Python starts.
// The worker has Pyodide's restore copy through that function (sparingZeroPages,
// worker-snapshots.js). No DOM and no worker globals: Node's tests drive it.
//
// A snapshot is also freed as soon as it is done with (free). A buffer a script made is
// freed the moment the script detaches it, unless a browser API has been handed it: the
// browser then holds it until its next full garbage collection, which may come long
// after. Pyodide hands the snapshot to TextEncoder.encodeInto when it makes one,
// and to TextDecoder.decode when it restores one, for a header of a few hundred bytes:
// keptFromBrowser runs the making or the restoring with those two given a copy instead.
// A copy read back from Cache Storage would be the browser's own buffer: readKept reads
// it into one the script made. It reads in two steps: the header and the list of pages
// first (Pyodide needs the snapshot's length before Python's memory exists), the pages
// once Python's module is compiled: a restoring visit holds the most memory while the
// module compiles, and pages read before then would add to it.

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

/** @typedef {Uint8Array<ArrayBuffer>} Bytes  bytes over a buffer of their own kind (never a shared one), which free can give back */

/** Whether bytes [start, start + PAGE_BYTES) of words (as 32-bit words) are all zero. */
function pageIsZero(/** @type {Int32Array} */ words, /** @type {number} */ start) {
  for (let i = start >> 2, end = (start + PAGE_BYTES) >> 2; i < end; i++) if (words[i] !== 0) return false;
  return true;
}

/** Where Pyodide's snapshot header says the memory starts (its second 32-bit word). */
function memoryStart(/** @type {Bytes} */ snapshot) {
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
 * @param {Bytes} snapshot  what pyodide.makeMemorySnapshot() returned
 * @returns {Bytes}
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
export function isPacked(/** @type {Bytes} */ bytes) {
  return bytes.byteLength >= 16 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === PACKED_MAGIC;
}

/** The bytes a packed snapshot's header and list of pages take, from its first 16 bytes. @param {Bytes} start */
export function packedHeaderLength(start) {
  if (!isPacked(start)) throw new SnapshotError("this is not a packed snapshot");
  const view = new DataView(start.buffer, start.byteOffset, HEADER_WORDS * 4);
  return HEADER_WORDS * 4 + view.getUint32(8, true) + view.getUint32(12, true) * 4;
}

/**
 * A packed snapshot made ready for Pyodide's restore, without writing its memory twice.
 * @param {Bytes} packed  kept, and read by copyMemory; with pagesLater, its header
 *   and list of pages alone (packedHeaderLength), the pages coming by setPages
 * @param {boolean} [pagesLater]
 * @returns {{snapshot: Bytes, memory: Bytes, setPages: (pieces: Bytes[]) => void, copyMemory: (target: Int8Array | Uint8Array) => void}}
 *   snapshot: as long as Pyodide's snapshot, with its header, its memory left unwritten
 *   (all zeros); memory: that part after the header, the one Pyodide copies into
 *   Python's memory; setPages(pieces): the kept pages, in order, in pieces of one size
 *   (a whole number of pages; the last may be shorter), each freed once copied (the
 *   copy is then done once); copyMemory(target): target (a new WebAssembly memory's
 *   view, at least the memory's length) ends up holding the snapshot's memory, byte for byte
 */
export function unpackSnapshot(packed, pagesLater = false) {
  if (!isPacked(packed)) throw new SnapshotError("this is not a packed snapshot");
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const total = view.getUint32(4, true);
  const start = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  const headerBytes = HEADER_WORDS * 4 + start;
  const pagesAt = headerBytes + count * 4;
  const pages = Math.ceil((total - start) / PAGE_BYTES);
  const cut = () => new SnapshotError("the packed snapshot's length does not match its header (damaged or cut short)");
  if (start > total || (total - start) % PAGE_BYTES || count > pages || packed.byteLength !== pagesAt + (pagesLater ? 0 : count * PAGE_BYTES)) {
    throw cut();
  }
  const slot = new Int32Array(pages).fill(-1); // which kept page each page is, -1 if zero
  for (let i = 0, previous = -1; i < count; i++) {
    const page = view.getUint32(headerBytes + i * 4, true);
    if (page >= pages || page <= previous) throw new SnapshotError("the packed snapshot's page numbers are damaged");
    previous = page;
    slot[page] = i;
  }
  const snapshot = new Uint8Array(total);
  snapshot.set(packed.subarray(HEADER_WORDS * 4, headerBytes), 0);
  const memory = snapshot.subarray(start);
  /** @type {Bytes[] | null} */
  let pieces = pagesLater ? null : [packed.subarray(pagesAt)];
  let freeAsCopied = false;
  return {
    snapshot,
    memory,
    setPages(given) {
      const size = given[0]?.byteLength ?? 0;
      const aligned = given.every((piece, i) => (i === given.length - 1 ? piece.byteLength <= size : piece.byteLength === size));
      const sum = given.reduce((bytes, piece) => bytes + piece.byteLength, 0);
      if (size % PAGE_BYTES || !aligned || sum !== count * PAGE_BYTES) throw cut();
      pieces = given;
      freeAsCopied = true;
    },
    copyMemory(target) {
      if (!pieces) throw new SnapshotError("the snapshot's pages were never read");
      if (target.byteLength < memory.byteLength) throw new RangeError("the snapshot's memory is larger than Python's");
      const kept = pieces;
      const size = kept[0]?.byteLength ?? 0;
      const set = Uint8Array.prototype.set;
      const bytes = new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
      const words = new Int32Array(target.buffer, target.byteOffset, target.byteLength >> 2);
      let current = 0;
      for (let page = 0; page < pages; page++) {
        const at = page * PAGE_BYTES;
        const i = slot[page];
        if (i >= 0) {
          const offset = i * PAGE_BYTES;
          const piece = Math.floor(offset / size);
          // Kept pages come in order: a piece passed is done with.
          for (; current < piece; current++) if (freeAsCopied) free(kept[current]);
          const from = offset - piece * size;
          set.call(bytes, kept[piece].subarray(from, from + PAGE_BYTES), at);
        } else if (!pageIsZero(words, at)) {
          // A new memory is all zeros but for what instantiating it wrote (the module's
          // data): a page zero in the snapshot is written only if it is not zero already.
          bytes.fill(0, at, at + PAGE_BYTES);
        }
      }
      if (freeAsCopied) {
        for (; current < kept.length; current++) free(kept[current]);
        pieces = null;
      }
    },
  };
}

/** Free bytes' whole buffer now (nothing else may use it), if no browser API holds it. */
export function free(/** @type {Bytes} */ bytes) {
  const buffer = bytes.buffer;
  if (!buffer.detached) buffer.transfer?.(0); // detached: a buffer no browser API has seen goes at once
}

// How much a BYOB read of a kept copy asks for at a time.
const CHUNK_BYTES = 1 << 20;

/**
 * A response's bytes, read when asked into buffers this script made, so that free gives
 * their memory back at once: what Response.arrayBuffer() returns is the browser's, and
 * held until its next full garbage collection. Read by a BYOB reader through one small
 * buffer, handed back and forth (the browser fills it and gives it back), no more than
 * asked for, and copied out of it. Where a body cannot be read that way, arrayBuffer()
 * it is, whole at the first read.
 * @param {Response} response @param {number} limit  the most bytes it may hold
 * @returns {{upTo: (wanted: number) => Promise<Bytes>, pieces: () => Promise<Bytes[]>, free: () => void}}
 *   upTo(wanted): a view of the first bytes, wanted of them or all there are (Infinity:
 *   all), in a buffer of limit + 1 bytes of which only the pages written take memory; its
 *   buffer holds nothing else. pieces(): the bytes after those, each piece a buffer of
 *   its own of CHUNK_BYTES (the last may be shorter), to be freed one by one. A copy
 *   larger than limit is refused (SnapshotError). free(): the first bytes' memory back,
 *   the reading stopped.
 */
export function readKept(response, limit) {
  /** @type {ReadableStreamBYOBReader | null} */
  let reader = null;
  try {
    reader = /** @type {ReadableStream<Uint8Array>} */ (response.body).getReader({ mode: "byob" });
  } catch {
    // read whole below
  }
  /** @type {Bytes} */
  let bytes = new Uint8Array(0);
  let length = 0;
  let done = false;
  let served = 0; // read whole: the bytes upTo has handed out
  const stop = () => {
    free(bytes);
    reader?.cancel().catch(() => {});
    done = true;
  };
  // The buffer the browser fills, handed back and forth. It is the browser's too from the
  // first read on, so the bytes are copied out of it into buffers the browser never sees.
  let chunk = new ArrayBuffer(CHUNK_BYTES);
  /** Read up to end - filled bytes into target from filled on; how many bytes target now holds. @param {Bytes} target @param {number} filled @param {number} end */
  const readInto = async (target, filled, end) => {
    const { value, done: ended } = await /** @type {ReadableStreamBYOBReader} */ (reader).read(new Uint8Array(chunk, 0, Math.min(CHUNK_BYTES, end - filled)));
    if (value) chunk = value.buffer;
    if (ended || !value) {
      done = true;
      return filled;
    }
    length += value.byteLength;
    if (length > limit) throw new SnapshotError(`the kept copy is larger than ${limit} bytes`);
    target.set(value, filled);
    return filled + value.byteLength;
  };
  return {
    async upTo(wanted) {
      if (!reader) {
        if (!done) bytes = new Uint8Array(await response.arrayBuffer());
        done = true;
        served = Math.max(served, Math.min(wanted, bytes.byteLength));
        return bytes.subarray(0, served);
      }
      try {
        // One byte more than limit: a copy that fills it is larger than limit.
        if (!bytes.byteLength) bytes = new Uint8Array(limit + 1);
        while (length < wanted && !done) await readInto(bytes, length, Math.min(limit + 1, wanted));
      } catch (error) {
        stop();
        throw error;
      }
      return bytes.subarray(0, length);
    },
    async pieces() {
      /** @type {Bytes[]} */
      const pieces = [];
      // Read whole: the rest of those bytes, as one piece.
      if (!reader) return served < bytes.byteLength ? [bytes.subarray(served)] : pieces;
      try {
        while (!done) {
          const piece = new Uint8Array(CHUNK_BYTES);
          let filled = 0;
          while (filled < CHUNK_BYTES && !done) filled = await readInto(piece, filled, CHUNK_BYTES);
          if (filled) pieces.push(piece.subarray(0, filled));
          else free(piece);
        }
      } catch (error) {
        for (const piece of pieces) free(piece);
        stop();
        throw error;
      }
      return pieces;
    },
    free: stop,
  };
}

/**
 * Run run with proto[name] replaced by method, then put the original back.
 * @template T @param {object} proto @param {string} name @param {Function} method @param {() => Promise<T>} run
 * @returns {Promise<T>}
 */
export async function substitute(proto, name, method, run) {
  const target = /** @type {Record<string, unknown>} */ (proto);
  const own = Object.prototype.hasOwnProperty.call(target, name);
  const original = target[name];
  target[name] = method;
  try {
    return await run();
  } finally {
    if (own) target[name] = original;
    else delete target[name];
  }
}

const nativeEncodeInto = TextEncoder.prototype.encodeInto;
const nativeDecode = TextDecoder.prototype.decode;

/**
 * TextEncoder.encodeInto writing through the script, so the target's buffer is not
 * handed to the browser; a text that does not fit goes to the browser's own, which
 * writes the part that does.
 * @this {TextEncoder} @param {string} text @param {Uint8Array} target
 */
export function encodeIntoByCopy(text, target) {
  const bytes = this.encode(text);
  if (bytes.length > target.length) return nativeEncodeInto.call(this, text, target);
  target.set(bytes);
  return { read: text.length, written: bytes.length };
}

/**
 * TextDecoder.decode given a copy of the bytes it is asked to decode, so their buffer is
 * not handed to the browser.
 * @this {TextDecoder} @param {AllowSharedBufferSource | undefined} input @param {TextDecodeOptions | undefined} options
 */
export function decodeCopy(input, options) {
  const copy = ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength).slice() : input;
  return nativeDecode.call(this, copy, options);
}

/**
 * Run run (Pyodide making or restoring a snapshot) with encodeInto and decode given copies.
 * @template T @param {() => Promise<T>} run @returns {Promise<T>}
 */
export function keptFromBrowser(run) {
  return substitute(TextEncoder.prototype, "encodeInto", encodeIntoByCopy, () => substitute(TextDecoder.prototype, "decode", decodeCopy, run));
}

/**
 * Run restore while Pyodide's copy of the snapshot's memory into Python's (one
 * Int8Array.prototype.set call on its HEAP8, the source being exactly that memory) goes
 * through copyMemory. Any other set call runs as usual. The snapshot's memory itself is
 * unwritten: a Pyodide that copied it some other way would start Python from zeros, so
 * a restore during which copyMemory never ran is refused (SnapshotError), and the
 * worker then boots from scratch.
 * @template T @param {ReturnType<typeof unpackSnapshot>} unpacked @param {() => Promise<T>} restore
 * @returns {Promise<T>}
 */
export async function sparingZeroPages({ memory, copyMemory }, restore) {
  const set = Int8Array.prototype.set;
  let copied = false;
  /** @this {Int8Array} @param {ArrayLike<number>} source @param {number | undefined} offset */
  function copyingPackedPages(source, offset) {
    const whole = source instanceof Uint8Array && source.buffer === memory.buffer && source.byteOffset === memory.byteOffset && source.byteLength === memory.byteLength;
    if (whole && !offset) {
      copyMemory(this);
      copied = true;
    } else set.call(this, source, offset);
  }
  const result = await substitute(Int8Array.prototype, "set", copyingPackedPages, restore);
  if (!copied) throw new SnapshotError("Pyodide did not copy the snapshot's memory the way this page expects");
  return result;
}
