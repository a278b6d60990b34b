// The engine worker's life, seen from the page, as one pure transition function.
//
// The engine worker's life, seen from the page, as one transition function:
// life(state, event) -> {state, effects}. No DOM, no Worker, no clock: events carry the
// time, and effects say what to do; engine-client.js does it. So every rule of the
// worker's life (when to restart, when to give up, when a request is late, which store
// a new worker opens) lives here, and Node's tests drive it event by event.
//
// Phases, which <html data-engine> shows as they are:
//
//   prerendered --start--> loading --ready--> ready
//        loading --failed / worker error / run error--> failed --retry--> loading
//        ready --worker error / run error / a request late--> loading (a new worker)
//        ready --the same, a fourth time within a minute--> failed
//
// Requests (opening a store, running a policy) are numbered by the client from 1 and
// answered in the order they were sent, since the worker takes them one at a time.
// A request made before the worker exists waits for it; a request made while failed is
// refused at once. When a worker dies, its pending runs are rejected (the page asks
// again once Python is ready), but its pending opens are not: the page cannot know it
// should ask again, so they go to the next worker (after a failure, the Retry's), after
// the store in force. The store in force is the last one the engine accepted; every new
// worker opens it first (as request 0, the client's own), so a restart or a Retry finds
// the page's store open.
//
// The static embedding's vectors (megabytes) are loaded only once a run needs them (its
// scorer reads them), and a run that needs them waits here, unsent, until the worker says
// they are loaded; the others go on meanwhile. Their own phases:
//
//   none --a run needs them--> loading --vectors-ready--> ready
//        loading --vectors-failed--> failed (the waiting runs are rejected) --vectors-retry--> loading
//        ready or loading --a new worker--> loading (it loads them again)
//
// While they fail, a run that needs them is refused at once; the page says why and offers
// their Retry, and the other scorers keep working.

import { MSG } from "./protocol.js";

// A request takes milliseconds; one unanswered this long while the engine runs means
// the worker died. (While Python loads, requests wait for it.)
export const RUN_TIMEOUT_MS = 8000;
// Restart a crashed worker, but not in a loop: a crash after this many restarts within
// a minute means give up.
export const MAX_CRASHES_PER_MINUTE = 3;
const CRASH_WINDOW_MS = 60_000;
// The id of the client's own re-open of the store in force; the page's requests start at 1.
export const REOPEN_ID = 0;
const STEPS = 4;

/** @typedef {"prerendered" | "loading" | "ready" | "failed"} Phase */
/** @typedef {"none" | "loading" | "ready" | "failed"} VectorsPhase */

/**
 * What the page shows of the vectors: the phase, a sentence, and while they download the
 * bytes so far of the total.
 * @typedef {object} VectorsStatus
 * @property {Exclude<VectorsPhase, "none">} state
 * @property {string} text
 * @property {number} [loaded]
 * @property {number} [total]
 * @property {boolean} [retry]  failed, and their own Retry (not Python's) may help
 * @property {string} [reason]  failed: why, in a few words
 */

/**
 * @typedef {object} Status
 * @property {Exclude<Phase, "prerendered">} state
 * @property {string} text
 * @property {number} [step]
 * @property {number} [of]
 */

/**
 * The store in force: its JSON text (what a new worker opens), what the client keeps of
 * it (opaque here: engine-client.js keeps the parsed store) and the open reply's word
 * count of each record.
 * @typedef {{text: string, kept: any, words: number[], importance: number[], recency: number[]}} OpenStore
 */

/**
 * What the page asks of the engine: open a store, run a policy, evaluate or sweep, check a draft store.
 * @typedef {"open" | "run" | "evaluate" | "sweep" | "check"} RequestKind
 */

/**
 * @typedef {object} Request
 * @property {number} id
 * @property {RequestKind} kind  evaluate, sweep and check are answered like a run
 * @property {string} body  open: the store as JSON text; run: the policy as JSON text
 * @property {string} [haveTerms]  run: the terms_key of the per-term parts the client holds
 * @property {any} [kept]   open: what to keep of the store once it is accepted
 * @property {string} [field]  sweep: the policy field swept (one of tables.js's SWEPT)
 * @property {boolean} [vectors]  run: its scorer reads the static embedding's vectors
 * @property {boolean} sent  posted to the current worker (a run that needs the vectors waits for them)
 * @property {number | null} since  when the running engine could start on it (sent
 *   while ready, or the moment it became ready); null while Python loads
 */

/**
 * @typedef {object} Life
 * @property {Phase} phase
 * @property {boolean} booted  the page let Python boot; every later worker boots at once
 * @property {boolean} fresh   a Retry happened: workers fetch the runtime past every cache
 * @property {number[]} crashes  times of the restarts within the last minute
 * @property {OpenStore | null} store
 * @property {Request[]} pending  in the order sent
 * @property {VectorsPhase} vectors  the static embedding's vectors in the current worker
 */

/**
 * @typedef {{type: "start"}
 *   | {type: "boot"}
 *   | {type: "retry"}
 *   | {type: "spawn-failed", reason: string}
 *   | {type: "progress", step: number, of: number, label: string}
 *   | {type: "ready", seconds: number, python: string, engine: string, boot: "fresh" | "snapshot", now: number}
 *   | {type: "failed", reason: string}
 *   | {type: "reply", id: number, response: string, parts?: string | null, now: number}
 *   | {type: "run-error", id: number, reason: string, now: number}
 *   | {type: "worker-error", reason: string, now: number}
 *   | {type: "request", id: number, kind: RequestKind, body: string, kept?: any, haveTerms?: string, field?: string, vectors?: boolean, now: number}
 *   | {type: "tick", now: number}
 *   | {type: "vectors-progress", loaded: number, total: number}
 *   | {type: "vectors-ready", tokens: number, dims: number, now: number}
 *   | {type: "vectors-failed", reason: string}
 *   | {type: "vectors-retry"}} Event
 */

/**
 * What the client does, in order.
 * @typedef {{type: "status", status: Status}
 *   | {type: "python-boot", boot: "fresh" | "snapshot"}
 *   | {type: "spawn", fresh: boolean, boot: boolean}
 *   | {type: "post", message: object}
 *   | {type: "terminate"}
 *   | {type: "wake", after: number}
 *   | {type: "opened", id: number, reply: any}
 *   | {type: "answered", id: number, response: string, parts: string | null, store: OpenStore | null}
 *   | {type: "reject", id: number, reason: string}
 *   | {type: "load-vectors", fresh: boolean}
 *   | {type: "vectors-status", status: VectorsStatus}} Effect
 */

/** @returns {Life} */
export function initialLife() {
  return { phase: "prerendered", booted: false, fresh: false, crashes: [], store: null, pending: [], vectors: "none" };
}

/**
 * @param {Life} state @param {Event} event
 * @returns {{state: Life, effects: Effect[]}}
 */
export function life(state, event) {
  const alive = state.phase === "loading" || state.phase === "ready";
  switch (event.type) {
    case "start":
      if (state.phase !== "prerendered") return same(state);
      return spawn(state, { state: "loading", text: "Starting Python…", step: 0, of: STEPS });

    case "boot": {
      if (state.booted) return same(state);
      return { state: { ...state, booted: true }, effects: alive ? [{ type: "post", message: { type: MSG.BOOT } }] : [] };
    }

    case "retry": {
      const { state: stopped, effects } = stop({ ...state, fresh: true }, "Python was restarted");
      const started = spawn(stopped, { state: "loading", text: "Starting Python…", step: 0, of: STEPS });
      return { state: started.state, effects: [...effects, ...started.effects] };
    }

    case "spawn-failed":
      return fail(state, `the worker could not start (${event.reason})`);

    case "progress":
      if (state.phase !== "loading") return same(state);
      return {
        state,
        effects: [{ type: "status", status: { state: "loading", text: `${event.label}…`, step: event.step, of: event.of } }],
      };

    case "ready": {
      if (state.phase !== "loading") return same(state);
      const how = event.boot === "snapshot" ? ", restored from this browser's saved copy" : "";
      const pending = state.pending.map((r) => ({ ...r, since: event.now }));
      return {
        state: { ...state, phase: "ready", pending },
        effects: [
          { type: "python-boot", boot: event.boot },
          {
            type: "status",
            status: {
              state: "ready",
              text: `Python ${event.python} is running engine ${event.engine} in your browser (ready in ${event.seconds.toFixed(1)} s${how}). Every change is recomputed live.`,
            },
          },
          ...(pending.length ? [/** @type {Effect} */ ({ type: "wake", after: RUN_TIMEOUT_MS })] : []),
        ],
      };
    }

    case "failed":
      if (state.phase === "failed") return same(state);
      return fail(state, event.reason);

    case "reply":
      return reply(state, event.id, event.response, event.parts ?? null, event.now);

    case "run-error": {
      // The engine answers bad input with an error object and never raises, so a request
      // that threw means the runtime itself is broken: reject it, then treat it as a crash.
      const request = state.pending.find((r) => r.id === event.id && r.sent);
      if (!request) return same(state);
      const rest = { ...state, pending: state.pending.filter((r) => r !== request) };
      /** @type {Effect[]} */
      const rejected = request.id !== REOPEN_ID ? [{ type: "reject", id: request.id, reason: event.reason }] : [];
      const after = crash(rest, event.reason, event.now);
      return { state: after.state, effects: [...rejected, ...after.effects] };
    }

    case "worker-error":
      return crash(state, event.reason, event.now);

    case "request": {
      if (state.phase === "failed") {
        return { state, effects: [{ type: "reject", id: event.id, reason: "Python is not running" }] };
      }
      const vectors = Boolean(event.vectors);
      if (vectors && state.vectors === "failed") {
        return { state, effects: [{ type: "reject", id: event.id, reason: "the embedding vectors are not loaded" }] };
      }
      const waits = vectors && state.vectors !== "ready";
      /** @type {Request} */
      const request = {
        id: event.id,
        kind: event.kind,
        body: event.body,
        kept: event.kept,
        haveTerms: event.haveTerms,
        field: event.field,
        vectors,
        sent: alive && !waits,
        since: state.phase === "ready" && !waits ? event.now : null,
      };
      /** @type {Effect[]} */
      const effects = request.sent ? [{ type: "post", message: post(request) }] : [];
      if (request.since !== null) effects.push({ type: "wake", after: RUN_TIMEOUT_MS });
      const next = { ...state, pending: [...state.pending, request] };
      // The first run that needs the vectors has them loaded (a worker not started yet
      // loads them when it starts: spawn).
      if (!waits || state.vectors !== "none") return { state: next, effects };
      effects.push(vectorsLoading());
      if (alive) effects.push({ type: "load-vectors", fresh: false });
      return { state: { ...next, vectors: "loading" }, effects };
    }

    case "vectors-progress":
      if (state.vectors !== "loading") return same(state);
      return { state, effects: [vectorsLoading(event.loaded, event.total)] };

    case "vectors-ready": {
      if (state.vectors !== "loading") return same(state);
      // The runs that waited for them go now, timed from now if Python is running.
      const since = state.phase === "ready" ? event.now : null;
      const released = state.pending.filter((r) => r.vectors && !r.sent);
      const pending = state.pending.map((r) => (released.includes(r) ? { ...r, sent: true, since } : r));
      const text = `Embedding vectors loaded: ${event.tokens.toLocaleString("en")} word pieces of ${event.dims} dimensions each.`;
      /** @type {Effect[]} */
      const effects = [{ type: "vectors-status", status: { state: "ready", text } }];
      for (const r of released) effects.push({ type: "post", message: post(r) });
      if (released.length && since !== null) effects.push({ type: "wake", after: RUN_TIMEOUT_MS });
      return { state: { ...state, vectors: "ready", pending }, effects };
    }

    case "vectors-failed": {
      if (state.vectors !== "loading") return same(state);
      const waiting = state.pending.filter((r) => r.vectors && !r.sent);
      const text = `The embedding vectors could not be loaded: ${event.reason}. TF-IDF and BM25 still work; retry the download, or pick one of them.`;
      return {
        state: { ...state, vectors: "failed", pending: state.pending.filter((r) => !waiting.includes(r)) },
        effects: [
          { type: "vectors-status", status: { state: "failed", text, retry: true, reason: event.reason } },
          ...waiting.map((r) => /** @type {Effect} */ ({ type: "reject", id: r.id, reason: "the embedding vectors are not loaded" })),
        ],
      };
    }

    case "vectors-retry":
      if (state.vectors !== "failed" || !alive) return same(state);
      return { state: { ...state, vectors: "loading" }, effects: [vectorsLoading(), { type: "load-vectors", fresh: true }] };

    case "tick": {
      if (state.phase !== "ready") return same(state);
      const deadlines = state.pending.filter((r) => r.since !== null).map((r) => /** @type {number} */ (r.since) + RUN_TIMEOUT_MS);
      if (!deadlines.length) return same(state);
      const first = Math.min(...deadlines);
      if (event.now >= first) return crash(state, "the engine stopped answering", event.now);
      return { state, effects: [{ type: "wake", after: first - event.now }] };
    }
  }
  return same(state);
}

/**
 * The vectors' status while they download. @param {number} [loaded] @param {number} [total]
 * @returns {Effect}
 */
function vectorsLoading(loaded = 0, total = 0) {
  return { type: "vectors-status", status: { state: "loading", text: "Downloading the embedding vectors…", loaded, total } };
}

/** @param {Life} state */
function same(state) {
  return { state, effects: /** @type {Effect[]} */ ([]) };
}

/** @param {Request} request */
function post(request) {
  if (request.kind === "open") return { type: MSG.OPEN, id: request.id, store: request.body };
  if (request.kind === "run") return { type: MSG.RUN, id: request.id, policy: request.body, haveTerms: request.haveTerms ?? "" };
  if (request.kind === "check") return { type: MSG.CHECK, id: request.id, store: request.body };
  return { type: MSG.EVALUATE, id: request.id, policy: request.body, sweep: request.kind === "sweep" ? (request.field ?? "") : "" };
}

/**
 * A new worker: it loads, boots if the page allowed it, opens the store in force, then
 * takes the requests that wait for it. It has no vectors: if the page had them, or was
 * loading them, it loads them again, and the runs that need them wait for that.
 * @param {Life} state @param {Status} status
 * @returns {{state: Life, effects: Effect[]}}
 */
function spawn(state, status) {
  /** @type {Request[]} */
  const reopen = state.store
    ? [{ id: REOPEN_ID, kind: "open", body: state.store.text, kept: state.store.kept, sent: true, since: null }]
    : [];
  const waiting = state.pending.filter((r) => r.id !== REOPEN_ID).map((r) => ({ ...r, sent: !r.vectors, since: null }));
  const pending = [...reopen, ...waiting];
  const vectors = state.vectors === "ready" || state.vectors === "loading" ? "loading" : "none";
  return {
    state: { ...state, phase: "loading", pending, vectors },
    effects: [
      { type: "status", status },
      { type: "spawn", fresh: state.fresh, boot: state.booted },
      ...pending.filter((r) => r.sent).map((r) => /** @type {Effect} */ ({ type: "post", message: post(r) })),
      ...(vectors === "loading" ? [vectorsLoading(), /** @type {Effect} */ ({ type: "load-vectors", fresh: false })] : []),
    ],
  };
}

/**
 * The current worker is gone: terminate it, reject its runs, keep its opens for the next.
 * @param {Life} state @param {string} reason
 * @returns {{state: Life, effects: Effect[]}}
 */
function stop(state, reason) {
  /** @type {Effect[]} */
  const effects = state.phase === "loading" || state.phase === "ready" ? [{ type: "terminate" }] : [];
  for (const r of state.pending) if (r.kind !== "open") effects.push({ type: "reject", id: r.id, reason });
  const pending = state.pending.filter((r) => r.kind === "open" && r.id !== REOPEN_ID).map((r) => ({ ...r, sent: false, since: null }));
  return { state: { ...state, pending }, effects };
}

/**
 * Loading failed, or the worker keeps dying: the page keeps its prerendered result and
 * offers Retry.
 * @param {Life} state @param {string} reason
 * @returns {{state: Life, effects: Effect[]}}
 */
function fail(state, reason) {
  const { state: stopped, effects } = stop(state, reason);
  // Vectors still on their way are not coming: Python's Retry loads them again if a run needs them.
  if (state.vectors === "loading") {
    effects.push({ type: "vectors-status", status: { state: "failed", text: "The embedding vectors were not loaded: Python stopped." } });
  }
  return {
    state: { ...stopped, phase: /** @type {Phase} */ ("failed"), vectors: stopped.vectors === "loading" ? "none" : stopped.vectors },
    effects: [
      ...effects,
      {
        type: "status",
        status: {
          state: "failed",
          text: `Python could not start: ${reason}. The results shown were computed when the page was built; check your connection and retry.`,
        },
      },
    ],
  };
}

/**
 * The worker died. Before it was ever ready this is a failed load; after, start a new
 * one (the page recomputes when it is ready), unless it keeps dying.
 * @param {Life} state @param {string} reason @param {number} now
 * @returns {{state: Life, effects: Effect[]}}
 */
function crash(state, reason, now) {
  if (state.phase !== "ready") return state.phase === "loading" ? fail(state, reason) : same(state);
  const crashes = [...state.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
  if (crashes.length > MAX_CRASHES_PER_MINUTE) return fail({ ...state, crashes }, `${reason}, repeatedly`);
  const { state: stopped, effects } = stop({ ...state, crashes }, reason);
  const started = spawn(stopped, { state: "loading", text: `Python stopped (${reason}); restarting it…`, step: 0, of: STEPS });
  return { state: started.state, effects: [...effects, ...started.effects] };
}

/**
 * An answer to request id: an open's reply decides the store in force; a run's answer
 * goes out with the store it was computed from, which is the one in force now, since
 * the worker answers in order.
 * @param {Life} state @param {number} id @param {string} response @param {string | null} parts  a run's per-term parts
 * @param {number} now
 * @returns {{state: Life, effects: Effect[]}}
 */
function reply(state, id, response, parts, now) {
  const request = state.pending.find((r) => r.id === id && r.sent);
  if (!request) return same(state);
  const rest = { ...state, pending: state.pending.filter((r) => r !== request) };
  if (request.kind !== "open") {
    return { state: rest, effects: [{ type: "answered", id, response, parts, store: state.store }] };
  }
  const parsed = readReply(response);
  if (id === REOPEN_ID) {
    // The engine accepted this store before, so a refusal now means a broken runtime.
    return parsed.error ? crash(rest, `the open store could not be opened again (${parsed.error.message})`, now) : same(rest);
  }
  // A refused store leaves the one in force in force, as it does in the worker.
  const { records: _, ...columns } = parsed.error ? { records: 0 } : parsed;
  const store = parsed.error ? state.store : { text: request.body, kept: request.kept, ...columns };
  return { state: { ...rest, store }, effects: [{ type: "opened", id, reply: parsed }] };
}

/**
 * An open reply, parsed: {records, words} or {error}.
 * @param {string} response
 * @returns {any}
 */
function readReply(response) {
  try {
    const parsed = JSON.parse(response);
    if (parsed && typeof parsed === "object" && (parsed.error || Array.isArray(parsed.words))) return parsed;
  } catch {
    // answered below, as any reply that is not an open reply
  }
  const message = `the engine's reply to opening a store could not be read: ${response.slice(0, 200)}`;
  return { error: { name: "InternalError", message, problems: [] } };
}
