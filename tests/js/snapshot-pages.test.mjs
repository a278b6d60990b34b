// snapshot-pages.js: a snapshot packed without its zero pages unpacks to its header and
// an unwritten memory; copying its memory writes exactly the snapshot's memory, from the
// packed pages, leaving pages zero in both unwritten; it unpacks from its header alone,
// its pages given later in pieces, and a kept copy is read no further than asked; a restore that does not copy
// through it is refused; a damaged or cut packed copy is refused, as is a Pyodide header that does
// not say where the memory starts. Making and restoring one hands no part of it to the
// browser's text encoding (copies instead, with the same results), and every method
// replaced for the while is put back, on failure too.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  decodeCopy,
  encodeIntoByCopy,
  isPacked,
  keptFromBrowser,
  PAGE_BYTES,
  packedHeaderLength,
  packSnapshot,
  readKept,
  SnapshotError,
  sparingZeroPages,
  substitute,
  unpackSnapshot,
} from "../../site/js/python/snapshot-pages.js";

const HEADER = 128;
const PAGES = 40;

/** A snapshot laid out as Pyodide's: a header whose second word is where the memory starts, then the memory. */
function fakeSnapshot(/** @type {number[]} */ written) {
  const snapshot = new Uint8Array(HEADER + PAGES * PAGE_BYTES);
  const view = new DataView(snapshot.buffer);
  view.setUint32(0, 0x12345678, true);
  view.setUint32(4, HEADER, true);
  for (let i = 8; i < HEADER; i++) snapshot[i] = i;
  for (const page of written) {
    // One byte is enough for a page to count, wherever it is.
    snapshot[HEADER + page * PAGE_BYTES + ((page * 977) % PAGE_BYTES)] = 1 + (page % 250);
  }
  return snapshot;
}

test("a packed snapshot keeps only the pages that are not zero, and unpacks without writing its memory", () => {
  const written = [0, 1, 7, 8, 20, PAGES - 1];
  const snapshot = fakeSnapshot(written);
  const packed = packSnapshot(snapshot);
  assert.ok(isPacked(packed));
  assert.ok(!isPacked(snapshot));
  assert.equal(packed.byteLength, 16 + HEADER + written.length * (4 + PAGE_BYTES));
  const unpacked = unpackSnapshot(packed);
  assert.equal(unpacked.snapshot.byteLength, snapshot.byteLength);
  assert.deepEqual(unpacked.snapshot.subarray(0, HEADER), snapshot.subarray(0, HEADER));
  assert.equal(unpacked.memory.byteOffset, HEADER);
  assert.equal(unpacked.memory.byteLength, PAGES * PAGE_BYTES);
  assert.ok(unpacked.memory.every((byte) => byte === 0), "the memory is left unwritten");
  const target = new Int8Array(PAGES * PAGE_BYTES);
  unpacked.copyMemory(target);
  assert.deepEqual(new Uint8Array(target.buffer), snapshot.subarray(HEADER));
});

test("copying the memory writes the snapshot's memory and leaves zero pages that are zero alone", () => {
  const snapshot = fakeSnapshot([2, 3, 30]);
  const { copyMemory } = unpackSnapshot(packSnapshot(snapshot));
  // A new memory, slightly larger, where instantiating wrote data into pages 3 and 5.
  const target = new Int8Array(PAGES * PAGE_BYTES + 65536);
  target.fill(9, 3 * PAGE_BYTES, 3 * PAGE_BYTES + 10);
  target.fill(9, 5 * PAGE_BYTES + 100, 5 * PAGE_BYTES + 200);
  // Every write into the target, by page: the copy writes through Uint8Array views.
  /** @type {[string, number][]} */
  const writes = [];
  const proto = Uint8Array.prototype;
  const { set, fill } = proto;
  proto.set = function (/** @type {ArrayLike<number>} */ source, /** @type {number} */ at) {
    if (this.buffer === target.buffer) writes.push(["set", at / PAGE_BYTES]);
    return set.call(this, source, at);
  };
  proto.fill = function (/** @type {number} */ value, /** @type {number} */ start, /** @type {number} */ end) {
    if (this.buffer === target.buffer) writes.push(["fill", start / PAGE_BYTES]);
    return fill.call(this, value, start, end);
  };
  try {
    copyMemory(target);
  } finally {
    delete (/** @type {any} */ (proto)).set;
    delete (/** @type {any} */ (proto)).fill;
  }
  assert.deepEqual(new Uint8Array(target.buffer, 0, PAGES * PAGE_BYTES), snapshot.subarray(HEADER));
  assert.ok(new Uint8Array(target.buffer, PAGES * PAGE_BYTES).every((byte) => byte === 0));
  // The pages the snapshot wrote, and page 5 zeroed; no other page touched (page 3 is written by the snapshot).
  assert.deepEqual(writes, [["set", 2], ["set", 3], ["fill", 5], ["set", 30]]);
  assert.throws(() => copyMemory(new Int8Array(PAGE_BYTES)), RangeError);
});

test("an all-zero memory packs to its header alone", () => {
  const snapshot = fakeSnapshot([]);
  const packed = packSnapshot(snapshot);
  assert.equal(packed.byteLength, 16 + HEADER);
  assert.deepEqual(unpackSnapshot(packed).snapshot, snapshot);
  const target = new Int8Array(PAGES * PAGE_BYTES).fill(3);
  unpackSnapshot(packed).copyMemory(target);
  assert.ok(target.every((byte) => byte === 0));
});

test("a damaged or cut packed snapshot is refused", () => {
  const packed = packSnapshot(fakeSnapshot([1, 4, 9]));
  assert.throws(() => unpackSnapshot(packed.subarray(0, packed.byteLength - 1)), SnapshotError);
  assert.throws(() => unpackSnapshot(packed.subarray(0, 4096)), SnapshotError);
  const pagesOutOfOrder = packed.slice();
  new DataView(pagesOutOfOrder.buffer).setUint32(16 + HEADER, 9, true); // the first page number now 9, then 4
  assert.throws(() => unpackSnapshot(pagesOutOfOrder), SnapshotError);
  const pageBeyond = packed.slice();
  new DataView(pageBeyond.buffer).setUint32(16 + HEADER + 8, PAGES, true);
  assert.throws(() => unpackSnapshot(pageBeyond), SnapshotError);
  assert.throws(() => unpackSnapshot(new Uint8Array(4096).fill(7)), SnapshotError);
});

/** The kept pages of a packed snapshot cut into pieces of pagesEach pages (the last may be shorter). */
function piecesOf(/** @type {Uint8Array} */ packed, /** @type {number} */ headerLength, /** @type {number} */ pagesEach) {
  const pieces = [];
  for (let at = headerLength; at < packed.byteLength; at += pagesEach * PAGE_BYTES) pieces.push(packed.slice(at, at + pagesEach * PAGE_BYTES));
  return pieces;
}

test("a packed snapshot unpacks from its header and list of pages, its pages copied once given", () => {
  const written = [0, 3, 8, 21, 22, PAGES - 1];
  const snapshot = fakeSnapshot(written);
  const packed = packSnapshot(snapshot);
  const headerLength = packedHeaderLength(packed.subarray(0, 16));
  assert.equal(headerLength, 16 + HEADER + written.length * 4);
  assert.throws(() => packedHeaderLength(snapshot.subarray(0, 16)), SnapshotError);
  const header = packed.subarray(0, headerLength);
  const unpacked = unpackSnapshot(header, true);
  assert.deepEqual(unpacked.snapshot.subarray(0, HEADER), snapshot.subarray(0, HEADER));
  assert.ok(unpacked.memory.every((byte) => byte === 0), "the memory is left unwritten");
  const target = new Int8Array(PAGES * PAGE_BYTES);
  assert.throws(() => unpacked.copyMemory(target), SnapshotError, "no pages yet");
  // Pages that are not the kept ones: too few, or in pieces of different sizes.
  assert.throws(() => unpacked.setPages(piecesOf(packed, headerLength, 4).slice(0, 1)), SnapshotError);
  assert.throws(() => unpacked.setPages([packed.slice(headerLength, headerLength + PAGE_BYTES), packed.slice(headerLength + PAGE_BYTES)]), SnapshotError);
  assert.throws(() => unpacked.copyMemory(target), SnapshotError, "still no pages");
  for (const pagesEach of [1, 4, written.length, 64]) {
    const fresh = unpackSnapshot(header, true);
    fresh.setPages(piecesOf(packed, headerLength, pagesEach));
    const into = new Int8Array(PAGES * PAGE_BYTES);
    fresh.copyMemory(into);
    assert.deepEqual(new Uint8Array(into.buffer), snapshot.subarray(HEADER), `pieces of ${pagesEach} pages`);
    assert.throws(() => fresh.copyMemory(into), SnapshotError, "its pages were given for one copy");
  }
  // Its header alone is not a whole copy, nor is a whole copy its header alone.
  assert.throws(() => unpackSnapshot(header), SnapshotError);
  assert.throws(() => unpackSnapshot(packed, true), SnapshotError);
});

test("readKept reads no more than asked for, and the rest in pieces of whole pages", async () => {
  const packed = packSnapshot(fakeSnapshot([1, 2, 5, 13, 30, 31]));
  let pulled = 0;
  const body = new ReadableStream({
    type: "bytes",
    pull(controller) {
      // Pieces of a size unrelated to pages, as a stream may deliver them.
      const at = pulled * 3000;
      pulled++;
      if (at < packed.byteLength) {
        controller.enqueue(packed.slice(at, at + 3000));
        return;
      }
      controller.close();
      controller.byobRequest?.respond(0); // a read waiting on a closed byte stream ends so
    },
  });
  const kept = readKept(new Response(body), packed.byteLength);
  assert.deepEqual(await kept.upTo(16), packed.subarray(0, 16));
  const headerLength = packedHeaderLength(packed);
  const header = await kept.upTo(headerLength);
  assert.deepEqual(header, packed.subarray(0, headerLength));
  const pieces = await kept.pieces();
  assert.ok(pieces.length >= 1);
  for (const piece of pieces) assert.notEqual(piece.buffer, header.buffer, "each piece a buffer of its own");
  assert.deepEqual(new Uint8Array(pieces.flatMap((piece) => [...piece])), packed.subarray(headerLength));
  const unpacked = unpackSnapshot(header, true);
  unpacked.setPages(pieces);
  const target = new Int8Array(PAGES * PAGE_BYTES);
  unpacked.copyMemory(target);
  assert.deepEqual(new Uint8Array(target.buffer), fakeSnapshot([1, 2, 5, 13, 30, 31]).subarray(HEADER));
  kept.free();
  // More than the limit is refused, in the pieces too.
  const small = readKept(new Response(packed), headerLength + PAGE_BYTES);
  await small.upTo(headerLength);
  await assert.rejects(small.pieces(), SnapshotError);
  // A body that cannot be read a part at a time is read whole; its pages are one piece.
  const plain = readKept(new Response(new ReadableStream({ start: (controller) => (controller.enqueue(packed), controller.close()) })), packed.byteLength);
  assert.deepEqual((await plain.upTo(16)).subarray(0, 16), packed.subarray(0, 16));
  const plainHeader = (await plain.upTo(headerLength)).subarray(0, headerLength);
  const wholeRead = unpackSnapshot(plainHeader, true);
  wholeRead.setPages(await plain.pieces());
  const again = new Int8Array(PAGES * PAGE_BYTES);
  wholeRead.copyMemory(again);
  assert.deepEqual(new Uint8Array(again.buffer), fakeSnapshot([1, 2, 5, 13, 30, 31]).subarray(HEADER));
});

test("a snapshot whose header does not say where a whole number of pages starts is not packed", () => {
  const snapshot = fakeSnapshot([1]);
  new DataView(snapshot.buffer).setUint32(4, HEADER + 4, true);
  assert.throws(() => packSnapshot(snapshot), SnapshotError);
  assert.throws(() => packSnapshot(new Uint8Array(4)), SnapshotError);
});

test("encodeIntoByCopy writes and reports what the browser's encodeInto does", () => {
  const encoder = new TextEncoder();
  for (const [text, room] of [["{\"hiwire\": [1, 2]}", 64], ["naïve café ∑ 😀", 64], ["naïve café ∑ 😀", 9], ["", 4]]) {
    const mine = new Uint8Array(room);
    const theirs = new Uint8Array(room);
    assert.deepEqual(encodeIntoByCopy.call(encoder, text, mine), encoder.encodeInto(text, theirs), `${text} into ${room}`);
    assert.deepEqual(mine, theirs, `${text} into ${room}`);
  }
});

test("decodeCopy decodes a view as the browser's decode does, and leaves the bytes as they were", () => {
  const decoder = new TextDecoder();
  const whole = new TextEncoder().encode("xx header: naïve ∑ yy");
  const view = whole.subarray(3, whole.length - 3);
  const before = whole.slice();
  assert.equal(decodeCopy.call(decoder, view, undefined), decoder.decode(view));
  assert.equal(decodeCopy.call(decoder, whole.buffer, undefined), decoder.decode(whole.buffer));
  assert.deepEqual(whole, before);
});

test("substitute puts the method back once the run is over, failed or not, own or inherited", async () => {
  const base = { greet: () => "base" };
  const child = Object.create(base);
  const withOwn = { greet: () => "own" };
  const replacement = () => "replaced";
  assert.equal(await substitute(child, "greet", replacement, async () => child.greet()), "replaced");
  assert.equal(Object.hasOwn(child, "greet"), false);
  assert.equal(child.greet(), "base");
  await assert.rejects(
    substitute(withOwn, "greet", replacement, async () => {
      assert.equal(withOwn.greet(), "replaced");
      throw new Error("the run failed");
    }),
    /the run failed/,
  );
  assert.equal(withOwn.greet(), "own");
});

test("keptFromBrowser gives encodeInto and decode copies while it runs, and the browser's own after", async () => {
  const encodeInto = TextEncoder.prototype.encodeInto;
  const decode = TextDecoder.prototype.decode;
  const seen = await keptFromBrowser(async () => [TextEncoder.prototype.encodeInto, TextDecoder.prototype.decode]);
  assert.deepEqual(seen, [encodeIntoByCopy, decodeCopy]);
  assert.equal(TextEncoder.prototype.encodeInto, encodeInto);
  assert.equal(TextDecoder.prototype.decode, decode);
});

test("sparingZeroPages copies the snapshot's memory through its copy function and other sets as usual", async () => {
  const snapshot = fakeSnapshot([2, 5]);
  const unpacked = unpackSnapshot(packSnapshot(snapshot));
  const heap = new Int8Array(unpacked.memory.byteLength);
  heap[3 * PAGE_BYTES] = 9; // written by instantiating, zero in the snapshot
  const other = new Int8Array(4);
  let copies = 0;
  const counted = { ...unpacked, copyMemory: (/** @type {Int8Array} */ target) => (copies++, unpacked.copyMemory(target)) };
  await sparingZeroPages(counted, async () => {
    heap.set(unpacked.memory);
    other.set([1, 2, 3, 4]);
  });
  assert.deepEqual(new Uint8Array(heap.buffer), snapshot.subarray(HEADER));
  assert.deepEqual([...other], [1, 2, 3, 4]);
  assert.equal(copies, 1);
  assert.equal(Object.hasOwn(Int8Array.prototype, "set"), false);
});

test("a restore during which the snapshot's memory was not copied through copyMemory is refused", async () => {
  const unpacked = unpackSnapshot(packSnapshot(fakeSnapshot([2, 5])));
  const heap = new Int8Array(unpacked.memory.byteLength);
  // A Pyodide that copied page by page would read the unwritten memory: zeros.
  const byPage = async () => {
    for (let at = 0; at < heap.byteLength; at += PAGE_BYTES) heap.set(unpacked.memory.subarray(at, at + PAGE_BYTES), at);
    return "restored";
  };
  await assert.rejects(sparingZeroPages(unpacked, byPage), SnapshotError);
  assert.equal(Object.hasOwn(Int8Array.prototype, "set"), false);
  assert.equal(await sparingZeroPages(unpacked, async () => (heap.set(unpacked.memory), "restored")), "restored");
});

test("readKept reads a response's bytes into a buffer of its own, within its limit", async () => {
  const packed = packSnapshot(fakeSnapshot([1, 3, 30]));
  const read = await readKept(new Response(packed), PAGES * PAGE_BYTES + 4096).upTo(Infinity);
  assert.deepEqual(read, packed);
  assert.equal(read.byteOffset, 0);
  // Its buffer is its own, and unpacks as the original does.
  assert.notEqual(read.buffer, packed.buffer);
  const target = new Int8Array(PAGES * PAGE_BYTES);
  unpackSnapshot(read).copyMemory(target);
  assert.deepEqual(new Uint8Array(target.buffer), fakeSnapshot([1, 3, 30]).subarray(HEADER));
  assert.equal((await readKept(new Response(new Uint8Array(0)), 16).upTo(Infinity)).byteLength, 0);
  await assert.rejects(readKept(new Response(packed), packed.byteLength - 1).upTo(Infinity), SnapshotError);
  // A body that is not a byte stream is read whole instead.
  const plain = new ReadableStream({
    start(controller) {
      controller.enqueue(packed.subarray(0, 100));
      controller.enqueue(packed.subarray(100));
      controller.close();
    },
  });
  assert.deepEqual(await readKept(new Response(plain), packed.byteLength).upTo(Infinity), packed);
});
