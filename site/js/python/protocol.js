// The worker protocol, written down once.
//
// Only JSON text and plain objects cross (and, to the nested worker, one transferred
// snapshot).
//
// main → worker
//   {type: "rw:load", runtime: Runtime, fresh: boolean}
//                                                once, right after the worker starts: get
//                                                ready to boot (load pyodide.mjs, look for a
//                                                snapshot, start the downloads), without the
//                                                heavy work yet. fresh: a Retry after a failed
//                                                load, so the runtime files are fetched again
//                                                from the network, past every cache
//   {type: "rw:boot"}                            start Python: sent once the page has set
//                                                itself up (may come before or after load)
//   {type: "rw:open", id: number, store: string} open a store (its JSON text) with
//                                                engine.open_json; once accepted, it answers
//                                                every later run. A refused store leaves the
//                                                one opened before in force
//   {type: "rw:run", id: number, policy: string, haveTerms: string}
//                                                answer a policy (its JSON text) from the
//                                                store in force, with Session.answer_json;
//                                                haveTerms: the terms_key of per-term parts the
//                                                page holds, not sent again if they match
//   {type: "rw:evaluate", id: number, policy: string, sweep: string}
//                                                evaluate the policy (its JSON text) on the store
//                                                in force: every question under every scorer
//                                                (engine.evaluate.evaluate_json); with sweep (a
//                                                field of fields.SWEPT, "" for none), each
//                                                scorer's mean nDCG at that field 0, 0.1, ..., 1
//                                                instead. Sent once the vectors are loaded
//   {type: "rw:check", id: number, store: string}
//                                                check a store (its JSON text), an editor's
//                                                draft, with engine.api.check_store_json: the
//                                                parser's problems, or every guided step's Look
//                                                for against its answer. Opens nothing: the store
//                                                in force stays, and none need be open. Sent once
//                                                the vectors are loaded when a step's scorer
//                                                reads them
//   {type: "rw:vectors", url: string, bytes: number, fresh: boolean}
//                                                load the static embedding's vectors: download
//                                                them (bytes long) with progress, write them into
//                                                Python's file system and engine.load_embedding
//                                                them, for the embedding and hybrid scorers. Sent
//                                                only when a policy first needs them, and again to
//                                                a new worker. fresh: a Retry, past every cache
//   {type: "rw:package-check", id: number, store: string, fromBoot: boolean, packagingURL: string}
//                                                before a package: load the packaging code (once;
//                                                worker-package.js and the packaging zip, neither
//                                                loaded before) and check the store (its JSON text, or
//                                                with fromBoot the page's boot block, whose store it
//                                                is) through the gate build.py refuses through
//   {type: "rw:package", id: number, store: string, fromBoot: boolean, fragments: string,
//    kind: "site" | "scorm" | "cmi5", score: boolean, packagingURL: string, siteURL: string}
//                                                make the zip build.py writes for that store and
//                                                kind: fragments is the page's prerender (JSON
//                                                text) of the check's request; the site's files are
//                                                fetched from siteURL. Neither goes through the
//                                                open and run queue: runs are answered between
//                                                its steps
// worker → its own nested worker (worker-warmer.js's warmCodeCache), and back when done
//   {type: "rw:warm", urls: string[], snapshot: {url: string, bytes: Uint8Array} | null}
//                                                keep the snapshot of Python's memory (its
//                                                bytes transferred, not copied) and import
//                                                these modules, nothing else
// worker → main
//   {type: "rw:progress", step: number, of: number, label: string}
//   {type: "rw:ready", seconds: number, python: string, engine: string, boot: "fresh" | "snapshot"}
//                                                versions actually loaded, and how Python started
//   {type: "rw:result", id: number, response: string, parts: string | null}
//                                                the answer to open, run or evaluate, JSON text.
//                                                To open: Opened or ErrorResult (shapes.js); to
//                                                run: Answer or ErrorResult (NoStore when no store
//                                                was ever accepted), and its per-term parts
//                                                apart (every record's RecordResult terms, in
//                                                store order; null when haveTerms named them or
//                                                for any other reply); to evaluate: Evaluation
//                                                or Sweep, or ErrorResult; to check: StoreCheck,
//                                                or ErrorResult when the engine failed
//   {type: "rw:failed", error: {name: string, message: string}}   loading failed; runs are refused
//   {type: "rw:warmed"}                          the worker has loaded Python's and the page's
//                                                modules a second time (warmCodeCache): the
//                                                page does the same with its own
//                                                (page-code-cache.js)
//   {type: "rw:run-error", id: number, error: {name: string, message: string}}
//                                                an open or a run threw: the engine answers bad
//                                                input with an error object, so this is a
//                                                broken runtime
//   {type: "rw:vectors-progress", loaded: number, total: number}
//                                                bytes of the vectors downloaded so far
//   {type: "rw:vectors-ready", tokens: number, dims: number}
//                                                the engine has loaded them (load_embedding's reply)
//   {type: "rw:vectors-failed", error: {name: string, message: string}}
//                                                the download or the loading failed; Python keeps
//                                                answering the other scorers. Every rw:vectors is
//                                                answered by exactly one of ready or failed
//   {type: "rw:package-progress", id: number, label: string, done: number, total: number}
//                                                a package request's step (done of total files
//                                                while gathering them, else 0 of 0)
//   {type: "rw:package-reply", id: number, problems?: string[], request?: string,
//    zip?: Uint8Array, error?: {name: string, message: string}}
//                                                a check's problems (as build.py prints them) or
//                                                prerender request; a package's zip (transferred);
//                                                or what went wrong. One per request
//
// The worker takes open and run requests one at a time, in the order sent, so every
// answer comes from the last store accepted before it was asked.

/**
 * @typedef {object} Runtime  absolute URLs, resolved by the page so any sub-path works
 * @property {string} pyodideModule  pyodide.mjs
 * @property {string} indexURL       folder of pyodide.asm.mjs (Pyodide asks for pyodide.asm.wasm here too)
 * @property {string} wasmURL        pyodide.asm.wasm, zstd-compressed (zstd.js decodes it)
 * @property {string} stdLibURL      the standard library zip, zstd-compressed
 * @property {string} zstdDecoderURL the zstd decoder's WebAssembly
 * @property {string} wheelURL       the engine wheel
 * @property {string} engineBytecodeURL  the engine's .pyc files, compiled by this Pyodide
 * @property {string} abiVersion     for the inline lock, so pyodide-lock.json is not fetched
 * @property {string} snapshotURL    Cache Storage key of this build's Python memory snapshot
 * @property {string[]} warmModules  the page's script files (build.py bundles the modules) that load
 *   without a DOM: engine-start.js preloads them, worker-warmer.js's warmCodeCache imports them once more
 * @property {string[]} pageModules  all the page's script files: page-code-cache.js loads them once more
 * @property {string} vectorsURL     the static embedding's vectors, fetched only when a scorer reads them
 * @property {number} vectorsBytes   their size
 * @property {string} packagingURL   the packaging zip (sitebuild/assemble.py and what it needs), fetched only for a package
 */

export const MSG = Object.freeze({
  LOAD: "rw:load",
  BOOT: "rw:boot",
  OPEN: "rw:open",
  RUN: "rw:run",
  EVALUATE: "rw:evaluate",
  CHECK: "rw:check",
  PROGRESS: "rw:progress",
  READY: "rw:ready",
  RESULT: "rw:result",
  FAILED: "rw:failed",
  RUN_ERROR: "rw:run-error",
  WARM: "rw:warm",
  WARMED: "rw:warmed",
  VECTORS: "rw:vectors",
  VECTORS_PROGRESS: "rw:vectors-progress",
  VECTORS_READY: "rw:vectors-ready",
  VECTORS_FAILED: "rw:vectors-failed",
  PACKAGE_CHECK: "rw:package-check",
  PACKAGE: "rw:package",
  PACKAGE_PROGRESS: "rw:package-progress",
  PACKAGE_REPLY: "rw:package-reply",
});

/** Errors cross the boundary as {name, message}: structured clone drops the rest. @param {unknown} error */
export function postableError(error) {
  if (error instanceof Error) return { name: error.name, message: error.message.slice(0, 2000) };
  // An error that already crossed once (a worker's rejection, a fetch hand-off) is a plain
  // {name, message}: its message is what a learner must read, never "[object Object]".
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    const name = "name" in error && typeof error.name === "string" ? error.name : "Error";
    return { name, message: error.message.slice(0, 2000) };
  }
  return { name: "Error", message: String(error).slice(0, 2000) };
}
