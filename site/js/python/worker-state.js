// Python's worker's one state record.
//
// Python's worker keeps all it knows between messages in one record, made here once
// (engine-worker.js) and handed to each of its parts (python/worker-*.js).

import { earlyFetch } from "./early-fetch.js";
import { loadFailure } from "./load-failure.js";
import { postFailed } from "./worker-report.js";

/** @typedef {import("pyodide/ffi").PyCallable} PyCallable */

/**
 * @typedef {object} WorkerState
 * @property {URL} script  the worker's own script: the code-cache warmer loads it again as its own
 * @property {typeof fetch} plainFetch  the browser's fetch, for what no early answer serves
 * @property {ReturnType<typeof earlyFetch>} early  Pyodide's requests answered with downloads started earlier (early-fetch.js)
 * @property {RequestInit} requestInit  how runtime files are requested: normally as any request (HTTP cache,
 *   service worker); on a Retry from the network (the service worker then refreshes its copy), since the
 *   failure may have been a damaged copy that a cache would hand out again
 * @property {Promise<import("./zstd.js").ZstdDecoder> | null} zstd  the decoder, until both runtime files are decoded
 * @property {(() => Promise<void>) | null} afterInstantiating  what a restore does once Python's module is
 *   instantiated, before Pyodide copies the snapshot into its memory (worker-snapshots.js, fromSnapshot)
 * @property {ReturnType<typeof loadFailure>} failure  the runtime downloads under way and the failed load
 *   posted, once: the page offers Retry, and later failures follow from it
 * @property {() => void} allowBoot  called on the page's BOOT message
 * @property {Promise<void>} booting  resolved by allowBoot: Python's heavy start waits for it
 * @property {Promise<Engine> | null} engineReady  the engine's entry point, once Python runs
 * @property {{session: import("pyodide/ffi").PyProxy, answerJson: PyCallable} | null} current  the store in force:
 *   the Session PyProxy from the last store accepted, and its bound answer_json (looked up once, not once per
 *   run). Both are destroyed when a new store is accepted, so the old session's memory goes back to Python.
 * @property {Promise<void>} work  open and run requests, taken one at a time in the order they came
 * @property {boolean} answeredOnce  a run was answered: the snapshot may be made
 * @property {ReturnType<typeof setTimeout> | undefined} idleTimer  armed after each answer while the snapshot
 *   is still to be made; any request disarms it
 * @property {(() => void) | null} saveSnapshotWhenIdle  set on a fresh boot until the snapshot is made: makes it, once
 * @property {Promise<typeof import("./snapshot-pages.js")> | null} snapshotPages  snapshot-pages.js, loaded when first needed
 * @property {Promise<typeof import("./worker-package.js")> | null} packaging  worker-package.js, loaded when a package is first asked for
 * @property {Promise<import("pyodide/ffi").PyProxy> | null} assembler  sitebuild.assemble, imported from the packaging zip when first needed
 */

/**
 * The engine's entry points, once Python runs: open_json, load_embedding (worker-vectors.js)
 * and Python's file system, where load_embedding reads the vectors from; and Python itself,
 * for the packaging (worker-package.js), which loads its own code when first asked.
 * evaluate_json and check_store_json are looked up when first asked for.
 * @typedef {{writeFile: (path: string, data: Uint8Array, options?: {canOwn?: boolean}) => void, unlink: (path: string) => void}} Files
 * @typedef {{openJson: PyCallable, loadEmbedding: PyCallable, evaluateJson: () => PyCallable, checkJson: () => PyCallable}} EntryPoints
 * @typedef {EntryPoints & {files: Files, python: import("pyodide").PyodideAPI}} Engine
 */

/**
 * A worker's state before any message. @param {typeof fetch} plainFetch @param {URL} script
 * @returns {WorkerState}
 */
export function createWorkerState(plainFetch, script) {
  /** @type {() => void} */
  let allowBoot = () => {};
  /** @type {Promise<void>} */
  const booting = new Promise((resolve) => (allowBoot = () => resolve(undefined)));
  return {
    script,
    plainFetch,
    early: earlyFetch(plainFetch),
    requestInit: {},
    zstd: null,
    afterInstantiating: null,
    failure: loadFailure(postFailed),
    allowBoot,
    booting,
    engineReady: null,
    current: null,
    work: Promise.resolve(),
    answeredOnce: false,
    idleTimer: undefined,
    saveSnapshotWhenIdle: null,
    snapshotPages: null,
    packaging: null,
    assembler: null,
  };
}
