// The page's side of the worker protocol (protocol.js): starts the worker, tracks
// <html data-engine>, and turns run requests into promises that always settle.

import { MSG } from "./protocol.js";

/**
 * @typedef {object} Status
 * @property {"loading" | "ready" | "failed"} state
 * @property {string} text
 * @property {number} [step]
 * @property {number} [of]
 */

export class EngineClient {
  /**
   * @param {import("./protocol.js").Runtime} runtime
   * @param {(status: Status) => void} onStatus
   */
  constructor(runtime, onStatus) {
    this.runtime = runtime;
    this.onStatus = onStatus;
    /** @type {Worker | null} */
    this.worker = null;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (value: any) => void, reject: (error: Error) => void}>} */
    this.pending = new Map();
    this.state = "prerendered";
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
    // The worker script itself failed to load or threw outside a request.
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.fail(event.message || "the worker stopped unexpectedly");
    });
    worker.postMessage({ type: MSG.LOAD, runtime: this.runtime });
  }

  /** Stop the worker and start again, e.g. after a failed download. */
  retry() {
    this.worker?.terminate();
    this.worker = null;
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
    });
  }

  /** @param {any} message */
  receive(message) {
    switch (message.type) {
      case MSG.PROGRESS:
        this.setState("loading", { text: `${message.label}…`, step: message.step, of: message.of });
        break;
      case MSG.READY:
        this.setState("ready", {
          text: `Python ${message.python} is running the engine in your browser (ready in ${message.seconds.toFixed(1)} s). Every change is recomputed live.`,
        });
        break;
      case MSG.RESULT:
        this.settle(message.id, (p) => p.resolve(JSON.parse(message.response)));
        break;
      case MSG.RUN_ERROR:
        this.settle(message.id, (p) => p.reject(new Error(message.error.message)));
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
    this.onStatus({ state, ...detail });
  }
}
