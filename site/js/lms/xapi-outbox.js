// What the page has told a cmi5 LMS's record store and the store has not yet accepted:
// the statements, in the order they were made, and the latest resume document. One
// request at a time keeps the order; each is a keepalive request, so one under way when
// the learner closes the page still arrives, and flush() sends the rest as the page goes.
// A request the store refuses, or that never reaches it, leaves its content here, sent
// again with the next change.

/** The xAPI version of every request. */
export const XAPI_VERSION = "1.0.3";

/** Chromium gives a page's keepalive requests this many bytes of body in all. */
export const KEEPALIVE_LIMIT = 64 * 1024;

/**
 * @typedef {object} Pending  a statement not yet accepted
 * @property {object} statement
 * @property {(ok: boolean) => void} settle  resolves the promise statement() returned
 */

/** @typedef {{activityId: string, agent: object, registration: string, stateId: string}} StateAddress */

export class XapiOutbox {
  /**
   * @param {object} options
   * @param {string} options.endpoint  the record store's address (the launch's `endpoint`)
   * @param {() => string} options.auth  the Authorization header's value, once the LMS gave its token
   * @param {(saved: boolean) => void} [options.onSaved]  after a request, when whether the store holds everything changes
   * @param {typeof fetch} [options.send]  fetch, or a stand-in for tests
   */
  constructor({ endpoint, auth, onSaved = () => {}, send = (input, init) => fetch(input, init) }) {
    this.base = endpoint.endsWith("/") ? endpoint : `${endpoint}/`;
    this.auth = auth;
    this.onSaved = onSaved;
    this.send = send;
    /** @type {Pending[]} made, not yet sent */
    this.waiting = [];
    /** @type {{address: StateAddress, body: string} | null} the latest resume document, not yet sent */
    this.state = null;
    /** A request is under way; the next waits for it. */
    this.busy = false;
    /** Whether the last request was accepted. */
    this.saved = true;
    /** After a refusal, nothing is sent again until the next change. */
    this.held = false;
    /** The page is going: everything left went with flush(). */
    this.closed = false;
  }

  /** Nothing waits to be sent and nothing is under way. */
  get empty() {
    return this.waiting.length === 0 && this.state === null && !this.busy;
  }

  /**
   * Send a statement after those made before it; resolves with whether the store accepted
   * it (false when a request carrying it failed; it stays here and goes with the next one).
   * @param {object} statement
   * @returns {Promise<boolean>}
   */
  statement(statement) {
    return new Promise((resolve) => {
      this.waiting.push({ statement, settle: resolve });
      this.changed();
    });
  }

  /** Keep a state document (the latest replaces one not yet sent). @param {StateAddress} address @param {object} document */
  keepState(address, document) {
    this.state = { address, body: JSON.stringify(document) };
    this.changed();
  }

  /** Something new to keep: anything held back after a refusal goes with it. */
  changed() {
    this.held = false;
    this.pump();
  }

  /** The headers of every request. */
  headers() {
    return { Authorization: this.auth(), "X-Experience-API-Version": XAPI_VERSION, "Content-Type": "application/json" };
  }

  /** @param {StateAddress} address */
  stateUrl(address) {
    const query = new URLSearchParams({
      activityId: address.activityId,
      agent: JSON.stringify(address.agent),
      registration: address.registration,
      stateId: address.stateId,
    });
    return `${this.base}activities/state?${query}`;
  }

  /** The next request: every waiting statement in one batch (the store keeps a batch's order), else the state document. */
  next() {
    if (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      const body = JSON.stringify(batch.map((p) => p.statement));
      return { url: `${this.base}statements`, method: "POST", body, batch, state: null };
    }
    if (this.state) {
      const { state } = this;
      this.state = null;
      return { url: this.stateUrl(state.address), method: "PUT", body: state.body, batch: [], state };
    }
    return null;
  }

  /** Send what waits, one request at a time. */
  pump() {
    if (this.busy || this.held || this.closed) return;
    const request = this.next();
    if (!request) return;
    this.busy = true;
    const { url, method, body, batch, state } = request;
    const keepalive = body.length < KEEPALIVE_LIMIT;
    this.send(url, { method, body, headers: this.headers(), keepalive })
      .then((response) => response.ok, () => false)
      .then((ok) => {
        this.busy = false;
        if (!ok) {
          // Back in front of anything made meanwhile, in the same order; a newer state wins.
          this.waiting = [...batch, ...this.waiting];
          if (state && !this.state) this.state = state;
          this.held = true;
        }
        for (const pending of batch) pending.settle(ok);
        if (ok !== this.saved) {
          this.saved = ok;
          this.onSaved(ok);
        }
        this.pump();
      });
  }

  /**
   * The page is going: send everything still waiting now, as keepalive requests, which
   * outlive the page. A request already under way is keepalive too, and went out first.
   */
  flush() {
    if (this.closed) return;
    this.closed = true;
    for (let request = this.next(); request; request = this.next()) {
      const { url, method, body } = request;
      void this.send(url, { method, body, headers: this.headers(), keepalive: body.length < KEEPALIVE_LIMIT }).catch(() => {});
    }
  }
}
