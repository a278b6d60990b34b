// load-failure.js: the page is told one failure of Python's start, and when a runtime
// download failed, that download's, whatever order the failures come in.
import assert from "node:assert/strict";
import { test } from "node:test";

import { LoadError, loadFailure } from "../../site/js/python/load-failure.js";

/** A promise and the hands that settle it. */
function held() {
  /** @type {(value: unknown) => void} */
  let resolve = () => {};
  /** @type {(error: unknown) => void} */
  let reject = () => {};
  const promise = new Promise((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

/** Every pending promise reaction has run (those of settled promises run before a macrotask). */
const drained = () => new Promise((resolve) => setImmediate(resolve));

function watched() {
  /** @type {unknown[]} */
  const told = [];
  return { told, failure: loadFailure((error) => told.push(error)) };
}

const MISSING = new LoadError("Python's standard library failed to load (HTTP 404)");
const EXIT = new Error("Program terminated with exit(1)");

test("a download that fails is told at once, though nobody awaits it", async () => {
  const { told, failure } = watched();
  const download = held();
  assert.equal(failure.download(download.promise), download.promise, "the caller gets the download itself");
  download.reject(MISSING);
  await drained();
  assert.deepEqual(told, [MISSING]);
  assert.ok(failure.told);
});

test("Python's exit before the download's 404: the 404 is told, the exit never", async () => {
  const { told, failure } = watched();
  const stdlib = held();
  failure.download(stdlib.promise);
  failure.fail(EXIT);
  await drained();
  assert.deepEqual(told, [], "nothing told while the download may still fail");
  stdlib.reject(MISSING);
  await drained();
  assert.deepEqual(told, [MISSING]);
});

test("a failure naming no file is told once every download has arrived, those started meanwhile too", async () => {
  const { told, failure } = watched();
  const wasm = held();
  const wheel = held();
  failure.download(wasm.promise);
  failure.fail(EXIT);
  failure.download(wheel.promise);
  wasm.resolve("module");
  await drained();
  assert.deepEqual(told, [], "the wheel may still fail");
  wheel.resolve("wheel");
  await drained();
  assert.deepEqual(told, [EXIT]);
});

test("with no download under way, a failure is told at once; and only the first failure is told", async () => {
  const { told, failure } = watched();
  failure.fail(EXIT);
  await drained();
  failure.fail(MISSING);
  failure.fail(new Error("later"));
  await drained();
  assert.deepEqual(told, [EXIT]);
});

test("a failure that names a file is told at once, whatever is still under way", async () => {
  const { told, failure } = watched();
  failure.download(held().promise);
  const damaged = new LoadError("Python's WebAssembly module could not be decompressed (the data is not valid zstd)");
  failure.fail(damaged);
  assert.deepEqual(told, [damaged]);
});
