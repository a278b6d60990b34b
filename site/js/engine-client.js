// The page's side of the worker protocol (protocol.js): starts the worker, tracks
// <html data-engine>, and turns run requests into promises that always settle.
// Its status reaches one listener, which may subscribe after Python has started.

import { MSG } from "./protocol.js";

/**
 * @typedef {object} Status
 * @property {"loading" | "ready" | "failed"} state
 * @property {string} text
 * @property {number} [step]
 * @property {number} [of]
 */

// A run of the engine takes milliseconds; one unanswered this long means the worker died.
const RUN_TIMEOUT_MS = 8000;
// Restart a crashed worker, but not in a loop: this many crashes a minute means give up.
const MAX_CRASHES_PER_MINUTE = 3;

export class EngineClient {
  /** @param {import("./protocol.js").Runtime} runtime */
  constructor(runtime) {
    this.runtime = runtime;
    /** @type {((status: Status) => void) | null} */
    this.onStatus = null;
    /** @type {Status | null} the latest, replayed to a listener that subscribes late */
    this.status = null;
    /** @type {Worker | null} */
    this.worker = null;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (value: any) => void, reject: (error: Error) => void}>} */
    this.pending = new Map();
    this.state = "prerendered";
    /** @type {number[]} */
    this.crashes = [];
    /** Set by boot(): workers started from then on (a retry, a restart) boot at once. */
    this.booted = false;
    /** Set by retry(): that worker downloads past every cache, which may hold a bad copy. */
    this.fresh = false;
  }

  /** Receive every status from now on, starting with the current one. @param {(status: Status) => void} onStatus */
  listen(onStatus) {
    this.onStatus = onStatus;
    if (this.status) onStatus(this.status);
  }

  start() {
    this.setState("loading", { text: "Starting Python…", step: 0, of: 4 });
    let worker;
    try {
      worker = new Worker(new URL("./engine-worker.js", import.meta.url), { type: "module" });
    } catch (error) {
      this.fail(`the worker could not start (${error instanceof Error ? error.message : error})`);
      return;
    }
    this.worker = worker;
    worker.addEventListener("message", (event) => this.receive(event.data));
    // The worker script failed to load, or threw outside a request.
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.crashed(event.message || "the worker stopped unexpectedly");
    });
    worker.postMessage({ type: MSG.LOAD, runtime: this.runtime, fresh: this.fresh });
    if (this.booted) worker.postMessage({ type: MSG.BOOT });
  }

  /**
   * Let Python boot. start() only prepares the worker (cheap); the boot is the heavy
   * part, so the page calls this once it has set itself up.
   */
  boot() {
    if (this.booted) return;
    this.booted = true;
    this.worker?.postMessage({ type: MSG.BOOT });
  }

  /** Stop the worker and start again, e.g. after a failed download. */
  retry() {
    this.worker?.terminate();
    this.worker = null;
    this.fresh = true;
    this.start();
  }

  /**
   * Run one request (JSON text) and resolve with the engine's parsed answer.
   * @param {string} request
   * @returns {Promise<any>}
   */
  run(request) {
    if (this.state === "failed" || !this.worker) {
      return Promise.reject(new Error("Python is not running"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker?.postMessage({ type: MSG.RUN, id, request });
      // Only a running engine can be late; while Python loads, requests wait for it.
      setTimeout(() => {
        if (this.pending.has(id) && this.state === "ready") this.crashed("the engine stopped answering");
      }, RUN_TIMEOUT_MS);
    });
  }

  /**
   * The worker died after it had worked: start a new one (the page recomputes when
   * it is ready), unless it keeps dying.
   * @param {string} reason
   */
  crashed(reason) {
    if (this.state !== "ready") {
      this.fail(reason);
      return;
    }
    const now = performance.now();
    this.crashes = [...this.crashes.filter((t) => now - t < 60_000), now];
    if (this.crashes.length > MAX_CRASHES_PER_MINUTE) {
      this.fail(`${reason}, repeatedly`);
      return;
    }
    for (const entry of this.pending.values()) entry.reject(new Error(reason));
    this.pending.clear();
    this.worker?.terminate();
    this.worker = null;
    this.start();
    this.report({ state: "loading", text: `Python stopped (${reason}); restarting it…`, step: 0, of: 4 });
  }

  /** @param {any} message */
  receive(message) {
    switch (message.type) {
      case MSG.PROGRESS:
        this.setState("loading", { text: `${message.label}…`, step: message.step, of: message.of });
        break;
      case MSG.READY: {
        // How Python started (a fresh boot, or this browser's saved copy), for tests and benchmarks.
        document.documentElement.dataset.pythonBoot = message.boot;
        const how = message.boot === "snapshot" ? ", restored from this browser's saved copy" : "";
        this.setState("ready", {
          text: `Python ${message.python} is running engine ${message.engine} in your browser (ready in ${message.seconds.toFixed(1)} s${how}). Every change is recomputed live.`,
        });
      }
        break;
      case MSG.RESULT:
        this.settle(message.id, (p) => p.resolve(JSON.parse(message.response)));
        break;
      case MSG.RUN_ERROR:
        // run_json never raises on bad input, so an error here means a broken runtime.
        this.settle(message.id, (p) => p.reject(new Error(message.error.message)));
        this.crashed(message.error.message);
        break;
      case MSG.FAILED:
        this.fail(message.error.message);
        break;
    }
  }

  /** @param {number} id @param {(p: {resolve: (value: any) => void, reject: (error: Error) => void}) => void} action */
  settle(id, action) {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    action(entry);
  }

  /** @param {string} reason */
  fail(reason) {
    this.worker?.terminate();
    this.worker = null;
    this.setState("failed", {
      text: `Python could not start: ${reason}. The results shown were computed when the page was built; check your connection and retry.`,
    });
    for (const entry of this.pending.values()) entry.reject(new Error(reason));
    this.pending.clear();
  }

  /** @param {"loading" | "ready" | "failed"} state @param {Omit<Status, "state">} detail */
  setState(state, detail) {
    this.state = state;
    document.documentElement.dataset.engine = state;
    this.report({ state, ...detail });
  }

  /** @param {Status} status */
  report(status) {
    this.status = status;
    this.onStatus?.(status);
  }
}
