// The page's side of the worker protocol: the shell around engine-life.js.
//
// The page's side of the worker protocol (protocol.js). The rules of the worker's life
// are engine-life.js's; this shell feeds it events (the page's calls, the worker's
// messages and errors, the clock) and does what it answers: start and terminate
// workers, post messages, settle the page's promises, set <html data-engine> and
// data-python-boot, report the status. Its status reaches one listener, which may
// subscribe after Python has started.
//
// The page opens a store once (openStore) and then asks for one policy after another
// (run); only the policy crosses for each. The store in force is kept here, so that a
// new worker (a restart, a Retry) opens it again, and so that run can give the page
// the full Result, its records' own fields put back by answer.js. The per-term parts
// of the last few questions are kept too: an answer carries them only when the
// request does not name them as held, and they are most of an answer's size.

import { readsVectors } from "../core/scorers.js";
import { initialLife, life } from "./engine-life.js";
import { MSG } from "./protocol.js";

// answer.js (and the tables it reads) is needed only once Python answers, seconds later;
// imported statically it would hold engine-start.js, and with it Python's downloads, back
// by two more round trips on a slow link. Loaded here, it is ready long before any answer.
/** @type {typeof import("./answer.js") | null} */
let answerModule = null;
const answerLoading = import("./answer.js").then((module) => (answerModule = module));
answerLoading.catch(() => {}); // reported by the answer that needs it

// Questions whose per-term parts are kept: a learner goes back and forth between a few.
const TERMS_KEPT = 8;


/** @typedef {import("./engine-life.js").Status} Status */
/** @typedef {import("./engine-life.js").VectorsStatus} VectorsStatus */
/** @typedef {import("./engine-life.js").Effect} Effect */
/** @typedef {import("./engine-life.js").Event} Event */
/** @typedef {import("../core/shapes.js").Opened} Opened */
/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").ErrorResult} ErrorResult */
/** @typedef {{label: string, done: number, total: number}} PackageStep  a package's progress (done of total files, or 0 of 0) */
/**
 * The store a package is made around: its JSON text, or with fromBoot the page's boot block,
 * whose store the worker takes as it is (JavaScript's JSON would drop a float's ".0").
 * @typedef {{store: string, fromBoot: boolean}} PackageStore
 */

/**
 * Whether checking a store (its JSON text) needs the embedding's vectors: a guided step
 * runs under a scorer that reads them, or shows the scoreboard, which measures every
 * scorer. Text that is not JSON needs none (the engine says what is wrong with it).
 * @param {string} storeText
 */
export function stepsReadVectors(storeText) {
  let store;
  try {
    store = JSON.parse(storeText);
  } catch {
    return false;
  }
  const guides = Array.isArray(store?.guides) ? store.guides : [];
  return guides.some((/** @type {any} */ guide) =>
    (Array.isArray(guide?.steps) ? guide.steps : []).some(
      (/** @type {any} */ step) => readsVectors(step?.policy?.scorer) || step?.shows?.part === "scoreboard",
    ),
  );
}

export class EngineClient {
  /**
   * @param {import("./protocol.js").Runtime} runtime
   * @param {URL} workerScript  engine-worker.js, resolved by the entry script beside it (bundled,
   *   this module lands in a file of its own, so it cannot name the worker's file itself)
   */
  constructor(runtime, workerScript) {
    this.runtime = runtime;
    this.workerScript = workerScript;
    /** @type {((status: Status) => void) | null} */
    this.onStatus = null;
    /** @type {Status | null} the latest, replayed to a listener that subscribes late */
    this.status = null;
    /** @type {((status: VectorsStatus) => void) | null} */
    this.onVectors = null;
    /** @type {Worker | null} */
    this.worker = null;
    this.life = initialLife();
    // Request 0 is the client's own re-open of the store (engine-life.js REOPEN_ID).
    this.nextId = 1;
    /** @type {Map<number, {resolve: (value: any) => void, reject: (error: Error) => void, body: string, raw?: boolean}>} */
    this.pending = new Map();
    /** @type {Event[]} events that arrived while an earlier one's effects were being done */
    this.queue = [];
    this.dispatching = false;
    /** @type {Map<string, import("./answer.js").Parts>} per-term parts by terms_key, oldest first */
    this.terms = new Map();
    /** The terms_key of the latest answer: the parts the next request most likely needs. */
    this.lastTermsKey = "";
    // Package requests, outside the life: a package takes seconds and is never asked again.
    /** @type {Map<number, {resolve: (reply: any) => void, reject: (error: Error) => void, onProgress: (step: PackageStep) => void}>} */
    this.packages = new Map();
  }

  /** @returns {import("./engine-life.js").Phase} what <html data-engine> shows */
  get state() {
    return this.life.phase;
  }

  /** The page has let Python boot: workers started from now on (a retry, a restart) boot at once. */
  get booted() {
    return this.life.booted;
  }

  /** Receive every status from now on, starting with the current one. @param {(status: Status) => void} onStatus */
  listen(onStatus) {
    this.onStatus = onStatus;
    if (this.status) onStatus(this.status);
  }

  /** Receive the static embedding's vectors' status from now on (they load when a run first needs them). @param {(status: VectorsStatus) => void} onVectors */
  listenVectors(onVectors) {
    this.onVectors = onVectors;
  }

  /** Download the vectors again, past every cache, after they failed to load. */
  retryVectors() {
    this.dispatch({ type: "vectors-retry" });
  }

  /** Create the worker: it prepares (cheap) and waits for boot(). */
  start() {
    this.dispatch({ type: "start" });
  }

  /**
   * Let Python boot. start() only prepares the worker; the boot is the heavy part, so
   * the page calls this once it has set itself up.
   */
  boot() {
    this.dispatch({ type: "boot" });
  }

  /** Stop the worker and start again, fetching the runtime past every cache, e.g. after a failed download. */
  retry() {
    this.dispatch({ type: "retry" });
  }

  /**
   * Open a store (its JSON text): every later run answers from it. Resolves with the
   * engine's reply, or its refusal (then the store opened before stays in force).
   * Rejects only when Python is not running; an open whose worker dies first waits for
   * the next worker instead.
   * @param {string} storeText
   * @param {any} [parsed]  the same store as the page already parsed it, so it is not parsed twice
   * @returns {Promise<Opened | ErrorResult>}
   */
  openStore(storeText, parsed) {
    let store = parsed;
    if (store === undefined) {
      try {
        store = JSON.parse(storeText);
      } catch (error) {
        // Answers are merged with the store as parsed here, so what JavaScript cannot
        // read is refused here, whatever Python's more lenient parser would make of it.
        const message = `is not valid JSON (${error instanceof Error ? error.message : error})`;
        return Promise.resolve({ error: { name: "InvalidJSON", message: `store: ${message}`, problems: [{ path: "store", message }] } });
      }
    }
    return this.request("open", storeText, store);
  }

  /**
   * The full result for a policy, from the store in force; an error object when the
   * engine refuses the policy (or no store was ever opened). Rejects when Python is not
   * running or its worker died before answering (the page asks again once it is ready).
   * @param {object} policy
   * @returns {Promise<Result | ErrorResult>}
   */
  run(policy) {
    // A run under a scorer that reads the embedding's vectors waits for them (engine-life.js).
    const vectors = readsVectors(/** @type {any} */ (policy).scorer);
    return this.request("run", JSON.stringify(policy), undefined, this.lastTermsKey, vectors);
  }

  /**
   * Every question of the store in force under every scorer, with the policy but its
   * question (engine/evaluate.py); with sweep (a field of tables.js's SWEPT), each scorer's
   * mean nDCG as that field goes from 0 to 1. Waits for the vectors, which the embedding
   * scorers read.
   * @param {object} policy @param {string} [sweep]
   * @returns {Promise<import("../core/shapes.js").Evaluation | import("../core/shapes.js").Sweep | ErrorResult>}
   */
  evaluate(policy, sweep = "") {
    return this.request(sweep ? "sweep" : "evaluate", JSON.stringify(policy), undefined, undefined, true, sweep);
  }

  /**
   * A draft store (its JSON text) checked by the engine, for the editor: the parser's
   * problems (the paths and words `python -m engine --fixtures` says), or, when it has
   * none, every guided step's Look for against that step's answer (engine/claims.py).
   * Opens nothing: the store in force stays. Waits for the vectors when a step's scorer
   * reads them, so every step is checked.
   * @param {string} storeText
   * @returns {Promise<import("../core/shapes.js").StoreCheck | ErrorResult>}
   */
  checkStore(storeText) {
    return this.request("check", storeText, undefined, undefined, stepsReadVectors(storeText));
  }

  /**
   * Check a store before packaging it (worker-package.js): its problems, as build.py prints
   * them, or the request the page's renderer must draw for it (views/prerender.js).
   * @param {PackageStore} store @param {(step: PackageStep) => void} onProgress
   * @returns {Promise<{problems: string[]} | {request: string}>}
   */
  checkPackage(store, onProgress) {
    return this.packaging({ type: MSG.PACKAGE_CHECK, ...store, packagingURL: this.runtime.packagingURL }, onProgress);
  }

  /**
   * The zip build.py writes for this store and kind, made in Python's worker.
   * @param {PackageStore & {fragments: string, kind: "site" | "scorm" | "cmi5", score: boolean}} request
   * @param {(step: PackageStep) => void} onProgress
   * @returns {Promise<{zip: Uint8Array<ArrayBuffer>}>}
   */
  makePackage(request, onProgress) {
    const siteURL = new URL(".", document.baseURI).href;
    return this.packaging({ type: MSG.PACKAGE, ...request, packagingURL: this.runtime.packagingURL, siteURL }, onProgress);
  }

  /** @param {object} message @param {(step: PackageStep) => void} onProgress @returns {Promise<any>} */
  packaging(message, onProgress) {
    const worker = this.worker;
    if (this.life.phase !== "ready" || !worker) {
      return Promise.reject(new Error("Python is not running yet: wait until the status line says it is ready, then try again"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.packages.set(id, {
        resolve: (reply) => (reply.error ? reject(new Error(reply.error.message)) : resolve(reply)),
        reject,
        onProgress,
      });
      worker.postMessage({ ...message, id });
    });
  }

  /** The worker that was making packages is gone: they fail, to be asked again. */
  dropPackages() {
    for (const entry of this.packages.values()) entry.reject(new Error("Python stopped while making the package: try again"));
    this.packages.clear();
  }

  /**
   * @param {import("./engine-life.js").RequestKind} kind @param {string} body @param {any} [kept] @param {string} [haveTerms]
   * @param {boolean} [vectors] @param {string} [field]
   */
  request(kind, body, kept, haveTerms, vectors = false, field = undefined) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // An evaluation or a check is its own object, not an answer to merge with the store.
      this.pending.set(id, { resolve, reject, body, raw: kind === "evaluate" || kind === "sweep" || kind === "check" });
      this.dispatch({ type: "request", id, kind, body, kept, haveTerms, field, vectors, now: performance.now() });
    });
  }

  /**
   * Feed one event to the life and do its effects. An event raised while effects are
   * being done (a worker that fails to start, a listener that asks for a run) waits
   * until they are all done, so effects are never interleaved out of order.
   * @param {Event} event
   */
  dispatch(event) {
    this.queue.push(event);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        const { state, effects } = life(this.life, next);
        this.life = state;
        for (const effect of effects) this.perform(effect);
      }
    } finally {
      this.dispatching = false;
    }
  }

  /** @param {Effect} effect */
  perform(effect) {
    switch (effect.type) {
      case "status":
        document.documentElement.dataset.engine = effect.status.state;
        this.status = effect.status;
        this.onStatus?.(effect.status);
        break;
      case "python-boot":
        // How Python started (a fresh boot, or this browser's saved copy), for tests and benchmarks.
        document.documentElement.dataset.pythonBoot = effect.boot;
        break;
      case "spawn":
        this.spawn(effect.fresh, effect.boot);
        break;
      case "post":
        this.worker?.postMessage(effect.message);
        break;
      case "terminate":
        this.worker?.terminate();
        this.worker = null;
        this.dropPackages();
        break;
      case "wake":
        setTimeout(() => this.dispatch({ type: "tick", now: performance.now() }), effect.after);
        break;
      case "opened":
        this.settle(effect.id, (p) => p.resolve(effect.reply));
        break;
      case "answered":
        this.settle(effect.id, (p) => p.resolve(p.raw ? JSON.parse(effect.response) : this.merge(effect.response, effect.parts, effect.store, p.body)));
        break;
      case "reject":
        this.settle(effect.id, (p) => p.reject(new Error(effect.reason)));
        break;
      case "load-vectors":
        this.worker?.postMessage({ type: MSG.VECTORS, url: this.runtime.vectorsURL, bytes: this.runtime.vectorsBytes, fresh: effect.fresh });
        break;
      case "vectors-status":
        document.documentElement.dataset.vectors = effect.status.state;
        this.onVectors?.(effect.status);
        break;
    }
  }

  /** @param {boolean} fresh @param {boolean} boot */
  spawn(fresh, boot) {
    let worker;
    try {
      worker = new Worker(this.workerScript, { type: "module" });
    } catch (error) {
      this.dispatch({ type: "spawn-failed", reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    this.worker = worker;
    // A terminated worker's last messages may still be on their way: only the current one counts.
    worker.addEventListener("message", (event) => {
      if (this.worker === worker) this.receive(event.data);
    });
    // The worker script failed to load, or threw outside a request.
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      const reason = event.message || "the worker stopped unexpectedly";
      if (this.worker === worker) this.dispatch({ type: "worker-error", reason, now: performance.now() });
    });
    worker.postMessage({ type: MSG.LOAD, runtime: this.runtime, fresh });
    if (boot) worker.postMessage({ type: MSG.BOOT });
  }

  /** @param {any} message */
  receive(message) {
    const now = performance.now();
    switch (message.type) {
      case MSG.PROGRESS:
        this.dispatch({ type: "progress", step: message.step, of: message.of, label: message.label });
        break;
      case MSG.READY:
        this.dispatch({ type: "ready", seconds: message.seconds, python: message.python, engine: message.engine, boot: message.boot, now });
        break;
      case MSG.RESULT:
        this.dispatch({ type: "reply", id: message.id, response: message.response, parts: message.parts, now });
        break;
      case MSG.RUN_ERROR:
        this.dispatch({ type: "run-error", id: message.id, reason: message.error.message, now });
        break;
      case MSG.FAILED:
        this.dispatch({ type: "failed", reason: message.error.message });
        break;
      case MSG.VECTORS_PROGRESS:
        this.dispatch({ type: "vectors-progress", loaded: message.loaded, total: message.total });
        break;
      case MSG.VECTORS_READY:
        this.dispatch({ type: "vectors-ready", tokens: message.tokens, dims: message.dims, now });
        break;
      case MSG.VECTORS_FAILED:
        this.dispatch({ type: "vectors-failed", reason: message.error.message });
        break;
      case MSG.PACKAGE_PROGRESS:
        this.packages.get(message.id)?.onProgress({ label: message.label, done: message.done, total: message.total });
        break;
      case MSG.PACKAGE_REPLY: {
        const entry = this.packages.get(message.id);
        this.packages.delete(message.id);
        entry?.resolve(message);
        break;
      }
      case MSG.WARMED:
        // Imported when first needed, after the first visit's snapshot: imported statically
        // it (and its two imports) would hold back engine-start.js like answer.js would.
        import("./page-code-cache.js").then(
          ({ warmPageModules }) => warmPageModules(this.runtime.pageModules ?? []),
          () => {}, // not loaded (offline, say): the next visit compiles, as without it
        );
        break;
    }
  }

  /**
   * A run's answer, merged with the store it was computed from and its per-term parts.
   * @param {string} response @param {string | null} partsText  the answer's parts, null when the request named them as held
   * @param {import("./engine-life.js").OpenStore | null} store
   * @param {string} policyText  the run's request, asked again in the rare case its parts are no longer kept
   * @returns {Result | ErrorResult | Promise<Result | ErrorResult>}
   */
  merge(response, partsText, store, policyText) {
    /** @type {import("../core/shapes.js").Answer | ErrorResult} */
    let answer;
    /** @type {import("./answer.js").Parts | null} */
    let terms;
    try {
      answer = JSON.parse(response);
      terms = partsText === null ? null : JSON.parse(partsText);
    } catch {
      const message = `the engine's answer could not be read: ${response.slice(0, 200)}`;
      return { error: { name: "InternalError", message, problems: [] } };
    }
    if ("error" in answer) return answer;
    if (!store) return { error: { name: "InternalError", message: "the engine answered without an open store", problems: [] } };
    if (terms) {
      this.terms.delete(answer.terms_key);
      this.terms.set(answer.terms_key, terms);
      if (this.terms.size > TERMS_KEPT) this.terms.delete(/** @type {string} */ (this.terms.keys().next().value));
    } else {
      terms = this.terms.get(answer.terms_key) ?? null;
      // Dropped since the request named them as held: ask again, naming none.
      if (!terms) return this.request("run", policyText, undefined, "", readsVectors(answer.policy.scorer));
    }
    this.lastTermsKey = answer.terms_key;
    const kept = { ...store, records: store.kept.records };
    const [slim, parts] = [answer, terms];
    if (answerModule) return answerModule.fullResult(kept, slim, parts);
    return answerLoading.then(({ fullResult }) => fullResult(kept, slim, parts));
  }

  /** @param {number} id @param {(p: {resolve: (value: any) => void, reject: (error: Error) => void, body: string, raw?: boolean}) => void} action */
  settle(id, action) {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    action(entry);
  }
}
