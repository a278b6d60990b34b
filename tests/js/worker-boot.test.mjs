// worker-boot.js and worker-report.js, Python's start in its worker under Node, with a
// fake network and a fake Pyodide that plays the real one's requests and failures: a
// runtime file that fails to load is the failure the page is told, whatever Pyodide
// reports, and whenever the file's failure arrives.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, test } from "node:test";

import { MSG } from "../../site/js/python/protocol.js";
import { receive } from "../../site/js/python/worker-loop.js";
import { failed } from "../../site/js/python/worker-report.js";
import { createWorkerState } from "../../site/js/python/worker-state.js";

const SITE = "https://example.test/site/";
const RUNTIME = {
  pyodideModule: new URL("./fake-pyodide.mjs", import.meta.url).href,
  indexURL: `${SITE}pyodide/`,
  wasmURL: `${SITE}pyodide/pyodide.asm-1.wasm.zst`,
  stdLibURL: `${SITE}pyodide/stdlib-1.zip.zst`,
  zstdDecoderURL: `${SITE}pyodide/zstd-decoder-1.wasm`,
  wheelURL: `${SITE}wheels/engine-1.whl`,
  engineBytecodeURL: `${SITE}pyodide/engine-bytecode-1.zip.zst`,
  abiVersion: "2025_0",
  snapshotURL: `${SITE}python-snapshot-1`,
  warmModules: [],
  pageModules: [],
  vectorsURL: `${SITE}embedding/vectors.rwse`,
  vectorsBytes: 0,
};
// What Pyodide 314 does when the standard library does not arrive: it logs the error and
// starts Python without it, which exits.
const EXIT = "Program terminated with exit(1)";
// The real zstd decoder (as build.py takes it out of the zstddec package), and an empty
// zstd frame: files that arrive whole and decode to nothing.
const DECODER = Buffer.from(
  /** @type {RegExpMatchArray} */ (readFileSync(new URL("../../node_modules/zstddec/dist/zstddec-stream.mjs", import.meta.url), "utf8").match(/const wasm = "([A-Za-z0-9+/=]+)"/))[1],
  "base64",
);
const EMPTY_ZSTD = new Uint8Array([40, 181, 47, 253, 32, 0, 1, 0, 0]);

/** @template T @returns {{promise: Promise<T>, resolve: (value: T) => void}} */
function later() {
  /** @type {(value: T) => void} */
  let resolve = () => {};
  const promise = new Promise((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * A network that answers nothing until the test says: each URL's request waits for
 * answer(url, status), and asked(url) resolves once the URL was requested.
 */
function network() {
  /** @type {Map<string, {asked: ReturnType<typeof later<void>>, response: ReturnType<typeof later<Response>>}>} */
  const urls = new Map();
  const entry = (/** @type {string} */ url) => {
    if (!urls.has(url)) urls.set(url, { asked: later(), response: later() });
    return /** @type {NonNullable<ReturnType<typeof urls.get>>} */ (urls.get(url));
  };
  const fetcher = /** @type {typeof fetch} */ (
    async (input) => {
      const { asked, response } = entry(input instanceof Request ? input.url : String(input));
      asked.resolve();
      return response.promise;
    }
  );
  return {
    fetcher,
    asked: (/** @type {string} */ url) => entry(url).asked.promise,
    answer: (/** @type {string} */ url, status = 404, /** @type {BodyInit} */ body = "gone") => entry(url).response.resolve(new Response(body, { status })),
  };
}

/** Every runtime file but those named arrives whole. @param {ReturnType<typeof network>} net @param {string[]} but */
function arrive(net, but = []) {
  /** @type {[string, BodyInit][]} */
  const files = [
    [RUNTIME.zstdDecoderURL, DECODER],
    [RUNTIME.wasmURL, EMPTY_ZSTD],
    [RUNTIME.stdLibURL, EMPTY_ZSTD],
    [RUNTIME.wheelURL, ""],
    [RUNTIME.engineBytecodeURL, EMPTY_ZSTD],
  ];
  for (const [url, body] of files) if (!but.includes(url)) net.answer(url, 200, body);
}

const saved = { fetch: globalThis.fetch, postMessage: globalThis.postMessage, instantiateStreaming: WebAssembly.instantiateStreaming };
afterEach(() => {
  globalThis.fetch = saved.fetch;
  globalThis.postMessage = saved.postMessage;
  WebAssembly.instantiateStreaming = saved.instantiateStreaming;
  process.removeAllListeners("unhandledRejection");
  delete (/** @type {any} */ (globalThis).fakeLoadPyodide);
});

/**
 * A worker as engine-worker.js makes it, on the fake network, asked to load and (unless
 * told to wait) to boot: the failure it posts, all it posted, and a boot to call later.
 * @param {ReturnType<typeof network>} net @param {(options: any, logged: unknown[]) => Promise<never>} pyodide
 */
function startWorker(net, pyodide, { bootLater = false } = {}) {
  const state = createWorkerState(net.fetcher, new URL(import.meta.url));
  globalThis.fetch = state.early.fetch;
  /** @type {ReturnType<typeof later<string>>} */
  const failure = later();
  /** @type {any[]} */
  const failures = [];
  globalThis.postMessage = (/** @type {any} */ message) => {
    if (message.type !== MSG.FAILED) return;
    failures.push(message.error.message);
    failure.resolve(message.error.message);
  };
  // The worker's own listener (engine-worker.js).
  process.on("unhandledRejection", (reason) => failed(state, reason));
  /** @type {unknown[]} */
  const logged = [];
  /** @type {any} */ (globalThis).fakeLoadPyodide = (/** @type {any} */ options) => pyodide(options, logged);
  receive(state, { type: MSG.LOAD, runtime: RUNTIME, fresh: false });
  const boot = () => receive(state, { type: MSG.BOOT });
  if (!bootLater) boot();
  return { failure: failure.promise, failures, logged, boot };
}

/** Pyodide's reading of the standard library: its error is logged and Python then exits. @param {any} options @param {unknown[]} logged */
async function readStdlib(options, logged) {
  try {
    await (await fetch(options.stdLibURL)).arrayBuffer();
  } catch (error) {
    logged.push(error);
  }
}

test("the standard library's 404 arriving after Pyodide asked for it: the page is told the file and status, not Python's exit", { timeout: 10_000 }, async () => {
  const net = network();
  const pyodideAsked = later();
  const exited = later();
  const { failure, failures, logged } = startWorker(net, async (options, logged) => {
    const reading = readStdlib(options, logged);
    pyodideAsked.resolve(undefined);
    await reading;
    exited.resolve(undefined);
    throw new Error(EXIT);
  });
  await pyodideAsked.promise;
  net.answer(RUNTIME.stdLibURL, 404);
  assert.equal(await failure, "Python's standard library failed to load (HTTP 404)");
  // Pyodide's exit follows, and changes nothing, however late the other files come.
  await exited.promise;
  assert.equal(logged.length, 1, "Pyodide saw the failed download too");
  arrive(net, [RUNTIME.stdLibURL]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(failures, ["Python's standard library failed to load (HTTP 404)"]);
});

test("the standard library's 404 arriving before Pyodide asks for it: the page is told the file and status", { timeout: 10_000 }, async () => {
  const net = network();
  const exited = later();
  const { failure, failures, boot } = startWorker(
    net,
    async (options, logged) => {
      await readStdlib(options, logged);
      exited.resolve(undefined);
      throw new Error(EXIT);
    },
    { bootLater: true },
  );
  await net.asked(RUNTIME.stdLibURL);
  net.answer(RUNTIME.stdLibURL, 404);
  assert.equal(await failure, "Python's standard library failed to load (HTTP 404)");
  boot();
  await exited.promise;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(failures, ["Python's standard library failed to load (HTTP 404)"], "Pyodide's exit that follows changes nothing");
});

test("Pyodide's exit delivered while a runtime file is still on its way: the file's 404, when it comes, is what the page is told", { timeout: 10_000 }, async () => {
  const net = network();
  const exited = later();
  const { failure, failures } = startWorker(net, async () => {
    exited.resolve(undefined);
    throw new Error(EXIT);
  });
  await exited.promise;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(failures, [], "nothing said while the wheel may still fail");
  arrive(net, [RUNTIME.wheelURL]);
  net.answer(RUNTIME.wheelURL, 404);
  assert.equal(await failure, "the engine wheel failed to load (HTTP 404)");
});

test("Pyodide's exit with every runtime file arrived: the exit is what the page is told", { timeout: 10_000 }, async () => {
  const net = network();
  arrive(net);
  const { failure } = startWorker(net, async () => {
    throw new Error(EXIT);
  });
  assert.equal(await failure, EXIT);
});

test("the WebAssembly module's 404 reaching Pyodide's instantiation: the page is told the file and status, not that it failed to compile", { timeout: 10_000 }, async () => {
  const net = network();
  const pyodideAsked = later();
  const { failure } = startWorker(net, async (options, logged) => {
    // As Pyodide does: the module's response goes to instantiateStreaming, whose failure
    // it logs; then it waits for an instance that never comes.
    const instantiating = WebAssembly.instantiateStreaming(fetch(`${options.indexURL}pyodide.asm.wasm`), {}).catch((error) => logged.push(error));
    pyodideAsked.resolve(undefined);
    await instantiating;
    return new Promise(() => {});
  });
  await pyodideAsked.promise;
  net.answer(RUNTIME.wasmURL, 404);
  assert.equal(await failure, "Python's WebAssembly module failed to load (HTTP 404)");
});
