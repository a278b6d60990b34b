// snapshot-pages.js: a snapshot packed without its zero pages unpacks to the same bytes;
// copying its memory writes exactly the snapshot's memory, leaving pages zero in both
// unwritten; a damaged or cut packed copy is refused, as is a Pyodide header that does
// not say where the memory starts.
import assert from "node:assert/strict";
import { test } from "node:test";

import { isPacked, PAGE_BYTES, packSnapshot, SnapshotError, unpackSnapshot } from "../../site/js/snapshot-pages.js";

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

test("a packed snapshot keeps only the pages that are not zero and unpacks to the same bytes", () => {
  const written = [0, 1, 7, 8, 20, PAGES - 1];
  const snapshot = fakeSnapshot(written);
  const packed = packSnapshot(snapshot);
  assert.ok(isPacked(packed));
  assert.ok(!isPacked(snapshot));
  assert.equal(packed.byteLength, 16 + HEADER + written.length * (4 + PAGE_BYTES));
  const unpacked = unpackSnapshot(packed);
  assert.deepEqual(unpacked.snapshot, snapshot);
  assert.deepEqual(unpacked.memory, snapshot.subarray(HEADER));
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

test("a snapshot whose header does not say where a whole number of pages starts is not packed", () => {
  const snapshot = fakeSnapshot([1]);
  new DataView(snapshot.buffer).setUint32(4, HEADER + 4, true);
  assert.throws(() => packSnapshot(snapshot), SnapshotError);
  assert.throws(() => packSnapshot(new Uint8Array(4)), SnapshotError);
});
