// The page's requests to the engine and their answers: only the latest answer is shown, a late
// one marks the views pending, the address follows it, what its showing does to the inspection
// (afterAnswer), settings refused and asked again, and the engine's phase. Pure, like page-core.js.

import { readsVectors } from "./scorers.js";
import { samePolicy, writeQuery } from "./state.js";
import { pendingText } from "./unanswered.js";

/** @typedef {import("./page-core.js").State} State */
/** @typedef {import("./page-core.js").Effect} Effect */
/** @typedef {import("./tables.js").Policy} Policy */
/** @typedef {import("./unanswered.js").Refusal} Refusal */

// A running engine answers within a frame or two. Marking the views as pending (an
// outline and a note on two large panels) costs a style and layout pass to set and
// another to clear, which would delay that very answer; so only an answer still
// missing after this long, or one that must wait for Python to start, is marked.
export const PENDING_AFTER_MS = 150;

// Typing a question shows each keystroke's result at once, but replays the inspection
// only once the learner stops: when no keystroke has come for this long, or on Enter or
// leaving the box. A replay on every keystroke would keep sending the view back to stage 1.
export const TYPING_PAUSE_MS = 600;

/**
 * What the inspection does once the answer asked for is shown, as the change that asked for
 * it decided: nothing (a keystroke, whose replay waits for a pause); replay from the start (any
 * other change); open at a stage, bringing a part of the page into view (a guided step; a
 * relaunch, with no part); or open before the tray and ask for the prediction, bringing the part
 * into view once the prediction is checked there (a guided step whose first check an LMS
 * scores). That last one outlives the answer: `asked` once the prediction has been asked for.
 * @typedef {{then: "nothing"}
 *   | {then: "replay"}
 *   | {then: "open", stage: number, part: string | null}
 *   | {then: "predict", stage: number, part: string, asked: boolean}} AfterAnswer
 */

/** @type {AfterAnswer} */
export const NOTHING = Object.freeze({ then: "nothing" });
/** @type {AfterAnswer} */
const REPLAY = Object.freeze({ then: "replay" });

/**
 * @typedef {object} Requests
 * @property {number} sequence            the latest request's number; only its answer is shown
 * @property {number | null} inputAt      when the control change being answered happened
 * @property {boolean} addressBehind      the address still shows an older policy than the controls
 * @property {string | null} pending      while the views show an older result than the controls ask for: the note that says so
 * @property {number | null} pendingDue   the request whose pending mark waits for PENDING_AFTER_MS
 * @property {number | null} typing       the request of the last keystroke, while its replay waits for a pause
 * @property {AfterAnswer} afterAnswer
 * @property {"prerendered" | "loading" | "ready" | "failed"} engine  as the engine's latest status says
 * @property {boolean} offlineStarted
 * @property {boolean} storeUnopened     the active store was sent while Python was not running: it goes again once Python is ready
 * @property {Refusal | null} refused    settings the page could not compute (Python stopped, the embedding's vectors failed to
 *   load, the engine refused them): the page went back to the settings shown, and asks again once Python or the vectors are back
 * @property {string | null} vectorsFailure  why the embedding's vectors failed to load, as their status says it
 */

/**
 * The events only this slice decides.
 * @typedef {{type: "engine-status", status: import("../python/engine-client.js").Status}
 *   | {type: "vectors-status", status: import("../python/engine-client.js").VectorsStatus}
 *   | {type: "typing-paused", seq: number}
 *   | {type: "question-committed"}
 *   | {type: "store-not-opened"}
 *   | {type: "pending-due", seq: number}} RequestsEvent
 */

/** Nothing asked yet: the views hold the build's result until Python answers. @returns {Requests} */
export function initialRequests() {
  return {
    sequence: 0,
    inputAt: null,
    addressBehind: false,
    pending: null,
    pendingDue: null,
    typing: null,
    afterAnswer: NOTHING,
    engine: "prerendered",
    offlineStarted: false,
    storeUnopened: false,
    refused: null,
    vectorsFailure: null,
  };
}

/** @param {State} state @param {Partial<Requests>} change @returns {State} */
function withRequests(state, change) {
  return { ...state, requests: { ...state.requests, ...change } };
}

/**
 * Mark the views pending or not, with the note that says why and whose figures they hold;
 * the page is touched only when that note changes.
 * @param {State} state @param {boolean} on @param {Effect[]} effects @returns {State}
 */
export function pend(state, on, effects) {
  const text = on ? pendingText({ ...state, engine: state.requests.engine }) : null;
  if (state.requests.pending !== text) effects.push({ type: "pending", text });
  return withRequests(state, { pending: text });
}

/** Ask the engine for the current policy's result; only the latest answer is shown. @param {State} state @param {Effect[]} effects */
function request(state, effects) {
  const seq = state.requests.sequence + 1;
  let next = withRequests(state, { sequence: seq, pendingDue: null });
  if (samePolicy(state.policy, state.shown.policy, state.fields)) next = pend(next, false, effects);
  else if (state.requests.engine !== "ready") next = pend(next, true, effects);
  else {
    next = withRequests(next, { pendingDue: seq });
    effects.push({ type: "pending-timer", seq, ms: PENDING_AFTER_MS });
  }
  effects.push({ type: "request", seq, policy: state.policy });
  return next;
}

/**
 * Write the current policy into the address. history.replaceState holds the main thread
 * long enough for an answer arriving meanwhile to wait behind it; so after a control
 * change it runs once the answer is shown, not before.
 * @param {State} state @param {Effect[]} effects
 */
function writeAddress(state, effects) {
  effects.push({ type: "write-address" });
  return withRequests(state, { addressBehind: false });
}

/** Shown, refused or unanswerable: after a control change the address catches up now. @param {State} state @param {number} seq @param {Effect[]} effects */
export function catchUpAddress(state, seq, effects) {
  if (seq !== state.requests.sequence || !state.requests.addressBehind) return state;
  return writeAddress(state, effects);
}

/**
 * Ask for a new policy (from the controls, a guided step or a new store): result,
 * inspection, link. Any change but a keystroke replays the inspection once answered,
 * which settles typing too.
 * @param {State} state @param {Policy} policy @param {number} at @param {Effect[]} effects @returns {State}
 */
export function ask(state, policy, at, effects) {
  let next = withRequests({ ...state, policy }, { inputAt: at, afterAnswer: REPLAY, addressBehind: true, typing: null, refused: null });
  if (state.requests.refused) effects.push({ type: "show-refusal" });
  // The policy asked for last, beside the one shown (mark-shown): a test waits for the two to agree.
  effects.push({ type: "mark-asked", query: writeQuery(policy, state.fields).slice(1) });
  next = request(next, effects);
  // A running engine answers within milliseconds, and the address follows its answer
  // (see catchUpAddress); otherwise the link is written now.
  if (next.requests.engine !== "ready") next = writeAddress(next, effects);
  effects.push({ type: "refresh-share" });
  return next;
}

/**
 * A running engine answers within milliseconds, and its answer replays the inspection:
 * until then the player draws no more frames of the result being replaced. On a slow
 * processor such a frame would hold the answer back.
 * @param {State} state @param {Effect[]} effects
 */
export function holdInspection(state, effects) {
  if (state.requests.engine === "ready" && state.requests.afterAnswer.then === "replay") effects.push({ type: "hold-inspection" });
  return state;
}

/** A keystroke was asked for: its answer is shown at once, the replay waits for a pause. @param {State} state @param {Effect[]} effects */
export function typed(state, effects) {
  const seq = state.requests.sequence;
  effects.push({ type: "typing-timer", seq, ms: TYPING_PAUSE_MS });
  return withRequests(state, { afterAnswer: NOTHING, typing: seq });
}

/** A change the views follow as it goes (the as-of line dragged): its answer shows at once, at the stage shown; nothing replays. @param {State} state */
export function followed(state) {
  return withRequests(state, { afterAnswer: NOTHING, typing: null });
}

/**
 * Typing has paused or been committed: the inspection replays once, now if the last
 * keystroke's result is shown already, else as soon as it is.
 * @param {State} state @param {Effect[]} effects
 */
function typingDone(state, effects) {
  if (samePolicy(state.policy, state.shown.policy, state.fields)) {
    effects.push({ type: "restart-inspection" });
    return withRequests(state, { typing: null });
  }
  return withRequests(state, { typing: null, afterAnswer: REPLAY });
}

/** The inspection was just opened or replayed for the policy in force: no keystroke's replay is owed. @param {State} state */
export function settleTyping(state) {
  return withRequests(state, { typing: null });
}

/** What showing the answer asked for will do, as a guided step or a relaunch decides. @param {State} state @param {AfterAnswer} afterAnswer */
export function expectAnswer(state, afterAnswer) {
  return withRequests(state, { afterAnswer });
}

/**
 * The answer asked for is shown: the views are no longer pending, and the inspection does
 * what the change that asked decided (afterAnswer).
 * @param {State} state  with the answer shown and its record chosen @param {Effect[]} effects @returns {State}
 */
export function answerShown(state, effects) {
  const { afterAnswer } = state.requests;
  const next = pend(withRequests(state, { pendingDue: null, inputAt: null, afterAnswer: NOTHING }), false, effects);
  switch (afterAnswer.then) {
    case "replay":
      effects.push({ type: "restart-inspection" });
      return next;
    case "open":
      effects.push({ type: "seek-stage", stage: afterAnswer.stage });
      if (afterAnswer.part !== null) effects.push({ type: "reveal-part", part: afterAnswer.part, id: state.chosenId });
      return next;
    case "predict":
      // Asked for already (the step's result was shown when it was applied): still owed after the check.
      if (!afterAnswer.asked) effects.push({ type: "seek-stage", stage: afterAnswer.stage }, { type: "ask-prediction" });
      return expectAnswer(next, { ...afterAnswer, asked: true });
    default:
      return next;
  }
}

/**
 * Settings the page cannot compute: rather than keep controls, address and link that no
 * figure on screen answers, it goes back to the settings shown, and says where the result
 * is why, and what would bring them (show-refusal).
 * @param {State} state @param {Refusal} refused @param {Effect[]} effects
 */
export function refuse(state, refused, effects) {
  const policy = state.shown.policy;
  effects.push({ type: "write-controls", policy }, { type: "mark-asked", query: writeQuery(policy, state.fields).slice(1) });
  let next = withRequests({ ...state, policy }, { refused, pendingDue: null, afterAnswer: NOTHING, typing: null, inputAt: null });
  next = pend(next, false, effects);
  effects.push({ type: "show-refusal" }, { type: "refresh-share" });
  return writeAddress(next, effects);
}

/**
 * Why Python could not answer: the vectors' failure is reported before the runs that
 * waited for them are refused. @param {State} state @param {string} reason @returns {Refusal}
 */
export function unanswered(state, reason) {
  const cause = state.requests.vectorsFailure !== null && readsVectors(state.policy.scorer) ? "vectors" : "python";
  return { policy: state.policy, reason, cause };
}

/**
 * Python or the vectors are back: the settings refused are the controls' again, and asked
 * for (the caller sends the request).
 * @param {State} state @param {Effect[]} effects @returns {State}
 */
function askAgain(state, effects) {
  const { refused } = state.requests;
  if (!refused) return state;
  const { policy } = refused;
  effects.push({ type: "write-controls", policy }, { type: "mark-asked", query: writeQuery(policy, state.fields).slice(1) }, { type: "show-refusal" });
  return withRequests({ ...state, policy }, { refused: null, afterAnswer: REPLAY, addressBehind: true });
}

/** @param {State} state @param {import("../python/engine-client.js").Status} status @param {Effect[]} effects */
function engineStatus(state, status, effects) {
  effects.push({ type: "show-status", status });
  let next = withRequests(state, { engine: status.state });
  // The pending note says what Python is doing: it follows.
  if (next.requests.pending !== null) next = pend(next, true, effects);
  if (status.state === "ready") {
    effects.push({ type: "mark", name: "rw:engine-ready" }); // User Timing, read by bench/ scripts
    if (next.requests.storeUnopened) {
      effects.push({ type: "open-store" });
      next = withRequests(next, { storeUnopened: false });
    }
    // Settings refused while Python was down are the controls' again (those refused for
    // the vectors wait for them).
    if (next.requests.refused?.cause === "python") next = askAgain(next, effects);
    next = request(next, effects);
  }
  // Precache for offline use only once the runtime is in the HTTP cache, so the
  // service worker copies it instead of downloading it a second time.
  if (status.state !== "loading" && !next.requests.offlineStarted) {
    next = withRequests(next, { offlineStarted: true });
    effects.push({ type: "register-offline" });
  }
  return next;
}

/** @type {import("./page-core.js").On<RequestsEvent>} */
export const ON_REQUESTS = {
  "engine-status": (state, { status }, effects) => engineStatus(state, status, effects),
  "vectors-status": (state, { status }, effects) => {
    effects.push({ type: "show-vectors-status", status });
    const next = withRequests(state, { vectorsFailure: status.state === "failed" ? (status.reason ?? status.text) : null });
    // Settings refused while they failed are asked again once a Retry has them loaded.
    if (status.state !== "ready" || state.requests.refused?.cause !== "vectors" || state.requests.engine !== "ready") return next;
    return request(askAgain(next, effects), effects);
  },
  // Only the last keystroke's timer counts: each keystroke starts its own.
  "typing-paused": (state, { seq }, effects) => (state.requests.typing === seq ? typingDone(state, effects) : state),
  "question-committed": (state, _, effects) => (state.requests.typing === null ? state : typingDone(state, effects)),
  // Python failed before the store reached it: the next Python opens it before any run.
  "store-not-opened": (state) => withRequests(state, { storeUnopened: true }),
  "pending-due": (state, { seq }, effects) => (state.requests.pendingDue === seq ? pend(withRequests(state, { pendingDue: null }), true, effects) : state),
};
