// The page's one state and its pure update function: events in, next state and effects out.
//
// The page's state and every change to it, pure: update(state, event) returns the next
// state and the effects (plain objects) that the panels perform. No DOM and no timers
// here, and time comes in with the events, so every transition can be tested under Node.

import { completedGuide, emptyProgress, mergeNotes, stepKey } from "../lms/lms-core.js";
import { observationText, scoreboardText, snapshot } from "./observations.js";
import { SHARE_PARAMS, readShareOptions, shareParams } from "./share.js";
import { readsVectors } from "./scorers.js";
import { defaultPolicy, policyFields, readQuery, samePolicy, writeQuery } from "./state.js";
import { pendingText } from "./unanswered.js";

/** @typedef {import("./shapes.js").Result} Result */
/** @typedef {import("./tables.js").Policy} Policy */
/** @typedef {import("./state.js").Field} Field */
/** @typedef {import("./share.js").ShareOptions} ShareOptions */
/** @typedef {import("../browser/notes.js").Notebook} Notebook */
/** @typedef {import("./unanswered.js").Refusal} Refusal */

// A running engine answers within a frame or two. Marking the views as pending (an
// outline and a note on two large panels) costs a style and layout pass to set and
// another to clear, which would delay that very answer; so only an answer still
// missing after this long, or one that must wait for Python to start, is marked.
export const PENDING_AFTER_MS = 150;

/** Records per page of cards, table rows and chart bars: large stores stay responsive. */
export const PAGE_SIZE = 50;

// Typing a question shows each keystroke's result at once, but replays the inspection
// only once the learner stops: when no keystroke has come for this long, or on Enter or
// leaving the box. A replay on every keystroke would keep sending the view back to stage 1.
export const TYPING_PAUSE_MS = 600;

/**
 * @typedef {object} State
 * @property {any} store                  the active store: the site's own, or one the learner opened
 * @property {boolean} custom             the active store is one the learner opened
 * @property {Field[]} fields             the policy fields for the active store
 * @property {Record<string, string>} tenantLabels
 * @property {ShareOptions} sharing       the instructor's options from the link (hidden controls, embed…)
 * @property {Policy} policy              the policy asked for last (the controls)
 * @property {Result} shown               the result every view shows
 * @property {string} chosenId            the record whose score is explained
 * @property {Choice} choice               why it is that record (followChoice)
 * @property {number} page                which page of records the views show
 * @property {number} sequence            the latest request's number; only its answer is shown
 * @property {number | null} inputAt      when the control change being answered happened
 * @property {boolean} addressBehind      the address still shows an older policy than the controls
 * @property {string | null} pending      while the views show an older result than the controls ask for: the note that says so
 * @property {number | null} pendingDue   the request whose pending mark waits for PENDING_AFTER_MS
 * @property {boolean} replayOnAnswer     a policy change: the inspection replays once its result is shown
 * @property {number | null} typing       the request of the last keystroke, while its replay waits for a pause
 * @property {boolean} predictionMade
 * @property {string[]} predicted         the record ids the learner predicts (an empty prediction: an empty tray)
 * @property {number | null} predictedAt  when the prediction last changed
 * @property {number | null} appliedAt    when the configuration in force was applied (a control change or a guided step)
 * @property {string | null} lastCheck    the prediction checked last, against which result: each is reported once
 * @property {{guide: string, index: number} | null} activeStep  the guided step in force; a control changed by hand leaves it
 * @property {import("../lms/lms-core.js").Progress} progress  guided steps reached, first checks, the completed experiment
 * @property {number | null} openStage    the stage the inspection opens at once the result asked for is shown (a
 *   relaunch's, a guided step's), instead of replaying it
 * @property {string | null} revealPart   a guided step's part of the page, brought into view once its result is shown
 * @property {boolean} scoreboard         the scoreboard measures every answer shown: asked for by the learner, a guided
 *   step that shows it, or the link
 * @property {boolean} predictionsRecorded  an LMS records every checked prediction (lms.js)
 * @property {string | null} partAfterPrediction  a guided step's part, brought into view once the learner has predicted
 *   its tray and reached the final stage (guideStep)
 * @property {"prerendered" | "loading" | "ready" | "failed"} engine  as the engine's latest status says
 * @property {boolean} offlineStarted
 * @property {boolean} storeUnopened     the active store was sent while Python was not running: it goes again once Python is ready
 * @property {Refusal | null} refused    settings the page could not compute (Python stopped, the embedding's vectors failed to
 *   load, the engine refused them): the page went back to the settings shown, and asks again once Python or the vectors are back
 * @property {string | null} vectorsFailure  why the embedding's vectors failed to load, as their status says it
 * @property {Notebook} notebook
 * @property {"ok" | "blocked" | "full"} storage  once saving failed, the notes live in this tab only
 * @property {string | null} recovered    saved notes that could not be read, kept for export
 */

/**
 * @typedef {{type: "start", notices: string[]}
 *   | {type: "engine-status", status: import("../python/engine-client.js").Status}
 *   | {type: "vectors-status", status: import("../python/engine-client.js").VectorsStatus}
 *   | {type: "controls-changed", policy: Policy, at: number, typing?: boolean}
 *   | {type: "typing-paused", seq: number}
 *   | {type: "question-committed"}
 *   | {type: "answer", seq: number, answer: any, askedAt: number}
 *   | {type: "request-failed", seq: number, reason: string}
 *   | {type: "store-not-opened"}
 *   | {type: "pending-due", seq: number}
 *   | {type: "guide-step", policy: Partial<Policy>, at: number, guide?: string, index?: number, shows?: Shows}
 *   | {type: "store-switched", store: any, custom: boolean, opened: boolean, at: number}
 *   | {type: "choose-record", id: string}
 *   | {type: "turn-page", step: number}
 *   | {type: "prediction-changed", predicted?: string[], at?: number}
 *   | {type: "prediction-cleared"}
 *   | {type: "stage-reached", stage: number}
 *   | {type: "predictions-recorded"}
 *   | {type: "notes-typed", text: string}
 *   | {type: "observation-added", entry: ReturnType<typeof import("./observations.js").observation>, text: string}
 *   | {type: "scoreboard-opened"}
 *   | {type: "scoreboard-kept", entry: import("./observations.js").KeptScoreboard}
 *   | {type: "notes-saved", outcome: "ok" | "blocked" | "full"}
 *   | {type: "baseline-captured"}
 *   | {type: "baseline-cleared"}
 *   | {type: "recovered-discarded"}
 *   | {type: "lms-resumed", resume: import("../lms/lms-core.js").Resume, at: number}} Event
 */

/**
 * What the panels do for the core. Views read what they show from the state once it
 * has changed; an effect carries only what the state does not hold.
 * @typedef {{type: "adopt-prerendered"}
 *   | {type: "open-store"}
 *   | {type: "request", seq: number, policy: Policy}
 *   | {type: "pending-timer", seq: number, ms: number}
 *   | {type: "typing-timer", seq: number, ms: number}
 *   | {type: "pending", text: string | null}
 *   | {type: "show-refusal"}
 *   | {type: "mark", name: string}
 *   | {type: "measure", start: number}
 *   | {type: "mark-asked", query: string}
 *   | {type: "mark-shown", query: string}
 *   | {type: "show-scoreboard"}
 *   | {type: "write-address"}
 *   | {type: "write-controls", policy: Policy}
 *   | {type: "restart-inspection"}
 *   | {type: "hold-inspection"}
 *   | {type: "register-offline"}
 *   | {type: "complete-activity"}
 *   | {type: "report-prediction", check: import("../lms/lms-core.js").Check}
 *   | {type: "report-progress"}
 *   | {type: "seek-stage", stage: number}
 *   | {type: "reveal-part", part: string, id: string}
 *   | {type: "ask-prediction"}
 *   | {type: "save-notes"}
 *   | {type: "show-status", status: import("../python/engine-client.js").Status}
 *   | {type: "show-vectors-status", status: import("../python/engine-client.js").VectorsStatus}
 *   | {type: "show-notices", messages: string[]}
 *   | {type: "show-result"}
 *   | {type: "show-chosen"}
 *   | {type: "show-store"}
 *   | {type: "show-prediction"}
 *   | {type: "show-prediction-choices", keep: boolean}
 *   | {type: "show-baseline"}
 *   | {type: "show-notebook"}
 *   | {type: "show-storage-warning"}
 *   | {type: "refresh-share"}} Effect
 */

/** @typedef {{state: State, effects: Effect[]}} Step */

/** Tenant labels by id, as the cards and the tray show them. @param {any} store */
export function labelsOf(store) {
  return Object.fromEntries(store.tenants.map((/** @type {any} */ t) => [t.id, t.label]));
}

/** The record whose score is explained first: the top of the tray, else of the ranking. */
export function defaultChoice(/** @type {Result} */ result) {
  return result.ranked[0] ?? result.records[0].id;
}

/**
 * Why the breakdown shows its record: ``picked`` when the learner (or a guided step) chose
 * it, ``displaced`` the learner's pick that the last answer no longer ranks (the breakdown
 * then shows the top of the ranking and says so), and ``held`` while the pick is a guided
 * step's, kept through the answer to that step whether that answer ranks it or not.
 * @typedef {{picked: boolean, displaced: string | null, held?: boolean}} Choice
 */

/**
 * What a guided step shows: the stage the inspection opens at, the record whose score is
 * explained, and the part of the page brought into view (engine.fields.GUIDE_PARTS).
 * @typedef {{stage: number, record: string, part: string}} Shows
 */

/** The guide part that is the scoreboard: a step showing it has the scoreboard measure. */
export const SCOREBOARD_PART = "scoreboard";

/** @type {Choice} */
export const NO_CHOICE = Object.freeze({ picked: false, displaced: null });

/**
 * The record the breakdown shows after an answer: the learner's pick while the answer still
 * ranks it, otherwise the top-ranked record (or, when nothing is ranked, the record shown
 * before if the store still has it), with why.
 * @param {Result} result @param {string} chosenId @param {Choice} choice
 * @returns {{chosenId: string, choice: Choice}}
 */
export function followChoice(result, chosenId, choice) {
  const stored = result.records.some((r) => r.id === chosenId);
  if (choice.picked && (result.ranked.includes(chosenId) || (choice.held && stored))) return { chosenId, choice: { picked: true, displaced: null } };
  const top = result.ranked[0];
  if (top) return { chosenId: top, choice: { picked: false, displaced: choice.picked ? chosenId : null } };
  const kept = stored ? chosenId : result.records[0].id;
  return { chosenId: kept, choice: NO_CHOICE };
}

/**
 * The state the page starts in, and the notices its link deserves.
 * @param {object} input
 * @param {{store: any, result: Result}} input.boot  the build's data
 * @param {any | null} input.remembered  a store the learner opened earlier in this tab
 * @param {string} input.search  the address's query string
 * @param {import("../browser/notes.js").Loaded} input.notes  the notebook as loaded from storage
 * @returns {{state: State, notices: string[]}}
 */
export function initialState({ boot, remembered, search, notes }) {
  const store = remembered ?? boot.store;
  const fields = policyFields(store);
  const fromLink = readQuery(search, fields, SHARE_PARAMS);
  const sharing = readShareOptions(search, fields.map((f) => f.name));
  /** @type {State} */
  const state = {
    store,
    custom: Boolean(remembered),
    fields,
    tenantLabels: labelsOf(store),
    sharing: sharing.options,
    policy: fromLink.policy,
    // The views hold the build's result for the site's own store until Python answers.
    shown: boot.result,
    chosenId: defaultChoice(boot.result),
    choice: NO_CHOICE,
    page: 0,
    sequence: 0,
    inputAt: null,
    addressBehind: false,
    pending: null,
    pendingDue: null,
    replayOnAnswer: false,
    typing: null,
    predictionMade: false,
    predicted: [],
    predictedAt: null,
    appliedAt: null,
    lastCheck: null,
    activeStep: null,
    progress: emptyProgress(),
    openStage: null,
    revealPart: null,
    scoreboard: sharing.options.scoreboard,
    predictionsRecorded: false,
    partAfterPrediction: null,
    engine: "prerendered",
    offlineStarted: false,
    storeUnopened: false,
    refused: null,
    vectorsFailure: null,
    notebook: notes.notebook,
    storage: notes.storage,
    recovered: notes.recovered,
  };
  return { state, notices: [...fromLink.notices, ...sharing.notices] };
}

/** The query string of the policy asked for, with other parameters. @param {State} state @param {Record<string, string>} [extra] */
export function queryOf(state, extra = {}) {
  return writeQuery(state.policy, state.fields, extra);
}

/**
 * The address's parameters besides the policy: the link's options, and the scoreboard
 * while it measures, so the address (and a link copied from it) reopens it measured.
 * @param {State} state @returns {Record<string, string>}
 */
export function addressParams(state) {
  return shareParams({ ...state.sharing, scoreboard: state.scoreboard });
}

/** A step built by appending effects to one list. @param {(effects: Effect[]) => State} build @returns {Step} */
function step(build) {
  /** @type {Effect[]} */
  const effects = [];
  return { state: build(effects), effects };
}

/**
 * @param {State} state
 * @param {Event} event
 * @returns {Step}
 */
export function update(state, event) {
  switch (event.type) {
    case "start":
      return start(state, event.notices);
    case "engine-status":
      return engineStatus(state, event.status);
    case "vectors-status":
      return step((effects) => {
        effects.push({ type: "show-vectors-status", status: event.status });
        const vectorsFailure = event.status.state === "failed" ? (event.status.reason ?? event.status.text) : null;
        const next = { ...state, vectorsFailure };
        // Settings refused while they failed are asked again once a Retry has them loaded.
        if (event.status.state !== "ready" || state.refused?.cause !== "vectors" || state.engine !== "ready") return next;
        return request(askAgain(next, effects), effects);
      });
    case "controls-changed":
      if (samePolicy(event.policy, state.policy, state.fields)) return { state, effects: [] };
      return step((effects) => {
        const next = applyPolicy({ ...state, activeStep: null }, event.policy, event.at, effects);
        if (!event.typing) return holdInspection(next, effects);
        effects.push({ type: "typing-timer", seq: next.sequence, ms: TYPING_PAUSE_MS });
        return { ...next, replayOnAnswer: false, typing: next.sequence };
      });
    case "typing-paused":
      // Only the last keystroke's timer counts: each keystroke starts its own.
      if (state.typing !== event.seq) return { state, effects: [] };
      return step((effects) => typingDone(state, effects));
    case "question-committed":
      if (state.typing === null) return { state, effects: [] };
      return step((effects) => typingDone(state, effects));
    case "answer":
      return catchUpAddress(answer(state, event), event.seq);
    case "request-failed":
      if (event.seq !== state.sequence) return { state, effects: [] };
      return step((effects) => {
        // The vectors' failure is reported before the runs that waited for them are refused.
        const cause = state.vectorsFailure !== null && readsVectors(state.policy.scorer) ? "vectors" : "python";
        return refuse(state, { policy: state.policy, reason: event.reason, cause }, effects);
      });
    case "store-not-opened":
      // Python failed before the store reached it: the next Python opens it before any run.
      return { state: { ...state, storeUnopened: true }, effects: [] };
    case "pending-due":
      if (state.pendingDue !== event.seq) return { state, effects: [] };
      return step((effects) => pend({ ...state, pendingDue: null }, true, effects));
    case "guide-step":
      return guideStep(state, event);
    case "store-switched":
      return switchStore(state, event);
    case "choose-record":
      return { state: { ...state, chosenId: event.id, choice: { picked: true, displaced: null } }, effects: [{ type: "show-chosen" }] };
    case "turn-page": {
      const pages = Math.ceil(state.shown.records.length / PAGE_SIZE);
      const page = Math.min(pages - 1, Math.max(0, state.page + event.step));
      return { state: { ...state, page }, effects: [{ type: "show-result" }, { type: "show-prediction-choices", keep: true }] };
    }
    case "prediction-changed": {
      const predicted = event.predicted ?? state.predicted;
      return { state: { ...state, predictionMade: true, predicted, predictedAt: event.at ?? state.predictedAt }, effects: [{ type: "show-prediction" }] };
    }
    case "prediction-cleared":
      return { state: { ...state, predictionMade: false, predicted: [] }, effects: [{ type: "show-prediction" }] };
    case "stage-reached":
      if (event.stage !== 4) return { state, effects: [{ type: "show-prediction" }] };
      return step((effects) => {
        const next = finalStage(state, effects);
        // A guided step that asked for its prediction first shows its part now.
        if (next.partAfterPrediction === null || !samePolicy(next.policy, next.shown.policy, next.fields)) return next;
        effects.push({ type: "reveal-part", part: next.partAfterPrediction, id: next.chosenId });
        return { ...next, partAfterPrediction: null };
      });
    case "predictions-recorded":
      return { state: { ...state, predictionsRecorded: true }, effects: [] };
    case "lms-resumed":
      return step((effects) => resumed(state, event.resume, event.at, effects));
    case "notes-typed":
      return { state: withNotebook(state, { text: event.text }), effects: [{ type: "save-notes" }] };
    case "observation-added": {
      const before = event.text;
      const text = `${before.trimEnd()}${before.trim() ? "\n\n" : ""}${observationText(event.entry)}\n`;
      const next = withNotebook(state, { text, observations: [...state.notebook.observations, event.entry] });
      return { state: next, effects: [{ type: "show-notebook" }, { type: "save-notes" }] };
    }
    case "scoreboard-opened":
      if (state.scoreboard) return { state, effects: [] };
      return { state: { ...state, scoreboard: true }, effects: [{ type: "show-scoreboard" }, { type: "write-address" }, { type: "refresh-share" }] };
    case "scoreboard-kept": {
      const before = state.notebook.text;
      const text = `${before.trimEnd()}${before.trim() ? "\n\n" : ""}${scoreboardText(event.entry)}\n`;
      const next = withNotebook(state, { text, observations: [...state.notebook.observations, event.entry] });
      return { state: next, effects: [{ type: "show-notebook" }, { type: "save-notes" }] };
    }
    case "notes-saved": {
      // Once saving has failed the notes live in this tab only, and the warning stays.
      const storage = event.outcome === "ok" ? state.storage : event.outcome;
      return { state: { ...state, storage }, effects: [{ type: "show-storage-warning" }] };
    }
    case "baseline-captured":
      return { state: withNotebook(state, { baseline: snapshot(state.shown) }), effects: [{ type: "save-notes" }, { type: "show-baseline" }] };
    case "baseline-cleared":
      return { state: withNotebook(state, { baseline: null }), effects: [{ type: "save-notes" }, { type: "show-baseline" }] };
    case "recovered-discarded":
      return { state: { ...state, recovered: null }, effects: [{ type: "show-storage-warning" }] };
    default:
      throw new Error(`The page has no event ${/** @type {any} */ (event).type}`);
  }
}

/** @param {State} state @param {Partial<Notebook>} change @returns {State} */
function withNotebook(state, change) {
  return { ...state, notebook: { ...state.notebook, ...change } };
}

// The steps below each return the next state and append their effects to `effects`.

/** @param {State} state @param {string[]} notices @returns {Step} */
function start(state, notices) {
  return step((effects) => {
    effects.push(
      { type: "adopt-prerendered" },
      { type: "write-controls", policy: state.policy },
      { type: "mark-shown", query: writeQuery(state.shown.policy, state.fields).slice(1) },
      { type: "show-notices", messages: notices },
    );
    let next = state;
    if (!samePolicy(state.policy, defaultPolicy(state.fields), state.fields)) next = pend(next, true, effects);
    if (state.custom) {
      effects.push({ type: "show-store" }, { type: "show-prediction-choices", keep: false });
      next = pend(next, true, effects);
    }
    // The engine holds one store, sent once: it must hold the active one before the first run.
    effects.push({ type: "open-store" });
    return next;
  });
}

/** @param {State} state @param {import("../python/engine-client.js").Status} status @returns {Step} */
function engineStatus(state, status) {
  return step((effects) => {
    effects.push({ type: "show-status", status });
    /** @type {State} */
    let next = { ...state, engine: status.state };
    // The pending note says what Python is doing: it follows.
    if (next.pending !== null) next = pend(next, true, effects);
    if (status.state === "ready") {
      effects.push({ type: "mark", name: "rw:engine-ready" }); // User Timing, read by bench/ scripts
      if (next.storeUnopened) {
        effects.push({ type: "open-store" });
        next = { ...next, storeUnopened: false };
      }
      // Settings refused while Python was down are the controls' again (those refused for
      // the vectors wait for them).
      if (next.refused?.cause === "python") next = askAgain(next, effects);
      next = request(next, effects);
    }
    // Precache for offline use only once the runtime is in the HTTP cache, so the
    // service worker copies it instead of downloading it a second time.
    if (status.state !== "loading" && !next.offlineStarted) {
      next = { ...next, offlineStarted: true };
      effects.push({ type: "register-offline" });
    }
    return next;
  });
}

/**
 * Mark the views pending or not, with the note that says why and whose figures they hold;
 * the page is touched only when that note changes.
 * @param {State} state @param {boolean} on @param {Effect[]} effects
 */
function pend(state, on, effects) {
  const text = on ? pendingText(state) : null;
  if (state.pending !== text) effects.push({ type: "pending", text });
  return { ...state, pending: text };
}

/**
 * Settings the page cannot compute: rather than keep controls, address and link that no
 * figure on screen answers, it goes back to the settings shown, and says where the result
 * is why, and what would bring them (show-refusal). Nothing of a guided step stays in force.
 * @param {State} state @param {Refusal} refused @param {Effect[]} effects
 */
function refuse(state, refused, effects) {
  const policy = state.shown.policy;
  effects.push({ type: "write-controls", policy }, { type: "mark-asked", query: writeQuery(policy, state.fields).slice(1) });
  /** @type {State} */
  let next = { ...state, policy, refused, pendingDue: null, activeStep: null, replayOnAnswer: false, typing: null, inputAt: null, openStage: null, revealPart: null, partAfterPrediction: null };
  next = pend(next, false, effects);
  effects.push({ type: "show-refusal" }, { type: "refresh-share" });
  return writeAddress(next, effects);
}

/**
 * Python or the vectors are back: the settings refused are the controls' again, and asked
 * for (the caller sends the request).
 * @param {State} state @param {Effect[]} effects @returns {State}
 */
function askAgain(state, effects) {
  if (!state.refused) return state;
  const { policy } = state.refused;
  effects.push({ type: "write-controls", policy }, { type: "mark-asked", query: writeQuery(policy, state.fields).slice(1) }, { type: "show-refusal" });
  return { ...state, policy, refused: null, replayOnAnswer: true, addressBehind: true };
}

/** Ask the engine for the current policy's result; only the latest answer is shown. @param {State} state @param {Effect[]} effects */
function request(state, effects) {
  const seq = state.sequence + 1;
  /** @type {State} */
  let next = { ...state, sequence: seq, pendingDue: null };
  if (samePolicy(state.policy, state.shown.policy, state.fields)) next = pend(next, false, effects);
  else if (state.engine !== "ready") next = pend(next, true, effects);
  else {
    next = { ...next, pendingDue: seq };
    effects.push({ type: "pending-timer", seq, ms: PENDING_AFTER_MS });
  }
  effects.push({ type: "request", seq, policy: state.policy });
  return next;
}

/**
 * A new policy from the controls, a guided step or a new store: result, inspection, link.
 * @param {State} state @param {Policy} policy @param {number} at @param {Effect[]} effects
 */
function applyPolicy(state, policy, at, effects) {
  // Any change but a keystroke replays the inspection once answered, which settles typing too.
  /** @type {State} */
  let next = { ...state, policy, inputAt: at, appliedAt: at, replayOnAnswer: true, addressBehind: true, typing: null, openStage: null, revealPart: null, partAfterPrediction: null, refused: null };
  if (state.refused) effects.push({ type: "show-refusal" });
  // The policy asked for last, beside the one shown (mark-shown): a test waits for the two to agree.
  effects.push({ type: "mark-asked", query: writeQuery(policy, state.fields).slice(1) });
  next = request(next, effects);
  // A running engine answers within milliseconds, and the address follows its answer
  // (see catchUpAddress); otherwise the link is written now.
  if (next.engine !== "ready") next = writeAddress(next, effects);
  effects.push({ type: "refresh-share" });
  return next;
}

/**
 * A running engine answers within milliseconds, and its answer replays the inspection:
 * until then the player draws no more frames of the result being replaced. On a slow
 * processor such a frame would hold the answer back.
 * @param {State} state @param {Effect[]} effects
 */
function holdInspection(state, effects) {
  if (state.engine === "ready" && state.replayOnAnswer) effects.push({ type: "hold-inspection" });
  return state;
}

/**
 * Typing has paused or been committed: the inspection replays once, now if the last
 * keystroke's result is shown already, else as soon as it is.
 * @param {State} state @param {Effect[]} effects
 */
function typingDone(state, effects) {
  if (samePolicy(state.policy, state.shown.policy, state.fields)) {
    effects.push({ type: "restart-inspection" });
    return { ...state, typing: null };
  }
  return { ...state, typing: null, replayOnAnswer: true };
}

/**
 * Write the current policy into the address. history.replaceState holds the main thread
 * long enough for an answer arriving meanwhile to wait behind it; so after a control
 * change it runs once the answer is shown, not before.
 * @param {State} state @param {Effect[]} effects
 */
function writeAddress(state, effects) {
  effects.push({ type: "write-address" });
  return { ...state, addressBehind: false };
}

/** Shown, refused or unanswerable: after a control change the address catches up now. @param {Step} step @param {number} seq @returns {Step} */
function catchUpAddress({ state, effects }, seq) {
  if (seq !== state.sequence || !state.addressBehind) return { state, effects };
  return { state: writeAddress(state, effects), effects };
}

/** @param {State} state @param {{seq: number, answer: any, askedAt: number}} event @returns {Step} */
function answer(state, { seq, answer, askedAt }) {
  if (seq !== state.sequence) return { state, effects: [] };
  return step((effects) => {
    /** @type {State} */
    const next = { ...state, pendingDue: null };
    if (answer.error) return refuse(next, { policy: state.policy, reason: answer.error.message, cause: "engine" }, effects);
    /** @type {Result} */
    const shown = answer;
    const { chosenId, choice } = followChoice(shown, state.chosenId, state.choice);
    effects.push({ type: "show-result" }, { type: "mark-shown", query: writeQuery(shown.policy, state.fields).slice(1) });
    // The scoreboard measures the policy now shown, once it has been asked for.
    if (state.scoreboard) effects.push({ type: "show-scoreboard" });
    const updated = pend({ ...next, shown, chosenId, choice, replayOnAnswer: false, inputAt: null, openStage: null, revealPart: null }, false, effects);
    // A relaunch opens where the learner left, a guided step at the stage it shows; any
    // other change replays the inspection.
    if (state.openStage !== null) effects.push({ type: "seek-stage", stage: state.openStage });
    else if (state.replayOnAnswer) effects.push({ type: "restart-inspection" });
    if (state.revealPart !== null) effects.push({ type: "reveal-part", part: state.revealPart, id: chosenId });
    else if (state.openStage !== null && state.partAfterPrediction !== null) effects.push({ type: "ask-prediction" });
    effects.push({ type: "show-baseline" }, { type: "show-prediction" });
    // From the input (or Python becoming ready) to updated views, for bench/ scripts.
    effects.push({ type: "measure", start: state.inputAt ?? askedAt });
    // The player reports only a stage it moves to: opening at the final stage already shown is reached here.
    return state.openStage === 4 ? finalStage(updated, effects) : updated;
  });
}

/**
 * A guided step: its settings over the defaults, then the inspection from the start, or,
 * for a step that says what it shows, at that stage, on that record, with that part in view.
 *
 * An LMS scores a guided step by the first prediction checked there, so while that is still
 * to come, a step that shows the tray opens one stage before it: the learner predicts, and
 * the step's part comes into view once they reach the tray (stage-reached).
 * @param {State} state @param {{policy: Partial<Policy>, at: number, guide?: string, index?: number, shows?: Shows}} event @returns {Step}
 */
function guideStep(state, { policy: settings, at, guide, index, shows }) {
  const policy = /** @type {Policy} */ ({ ...defaultPolicy(state.fields), ...settings });
  const activeStep = guide !== undefined && index !== undefined ? { guide, index } : null;
  return step((effects) => {
    effects.push({ type: "write-controls", policy });
    /** @type {State} */
    let next = state;
    const asked = !samePolicy(policy, state.policy, state.fields);
    if (asked) next = holdInspection(applyPolicy(next, policy, at, effects), effects);
    else if (!shows) effects.push({ type: "restart-inspection" });
    next = { ...next, activeStep, appliedAt: at, typing: null };
    if (!shows) return next;
    const owed = shows.stage === 4 && state.predictionsRecorded && activeStep !== null && !(stepKey(activeStep) in state.progress.first);
    const stage = owed ? 3 : shows.stage;
    next = { ...next, chosenId: shows.record, partAfterPrediction: owed ? shows.part : null };
    if (stage === 4 && next.predictionMade) {
      // Made for another configuration, and never open before this tray: not a prediction of it.
      next = { ...next, predictionMade: false, predicted: [], predictedAt: null };
      effects.push({ type: "show-prediction-choices", keep: false });
    }
    // A step that shows the scoreboard has it measure: with its answer, or now when shown already.
    const measure = shows.part === SCOREBOARD_PART && !state.scoreboard;
    if (measure) {
      next = { ...next, scoreboard: true };
      if (!asked) effects.push({ type: "write-address" }, { type: "refresh-share" });
    }
    if (asked || !samePolicy(policy, state.shown.policy, state.fields)) {
      // Once its result is shown (answer).
      return { ...next, choice: { picked: true, displaced: null, held: true }, openStage: stage, revealPart: owed ? null : shows.part };
    }
    next = { ...next, choice: { picked: true, displaced: null } };
    if (measure) effects.push({ type: "show-scoreboard" });
    effects.push({ type: "seek-stage", stage }, { type: "show-chosen" });
    effects.push(owed ? { type: "ask-prediction" } : { type: "reveal-part", part: shows.part, id: shows.record });
    // The player reports only a stage it moves to: a step opened at the stage already shown is reached here.
    return stage === 4 ? finalStage(next, effects) : next;
  });
}

/**
 * The inspection reached its final stage. A standing prediction is checked against the
 * tray and reported once per prediction and result; a guided step in force counts as
 * reached (its first check is what the score counts); once every step of one guided
 * experiment has been reached, the activity is complete.
 * @param {State} state @param {Effect[]} effects @returns {State}
 */
function finalStage(state, effects) {
  effects.push({ type: "show-prediction" });
  // Only a result that answers the controls counts: a step whose answer is still on its way has not been seen.
  if (!samePolicy(state.policy, state.shown.policy, state.fields)) return state;
  let next = state;
  const key = state.activeStep ? stepKey(state.activeStep) : null;
  let { progress } = state;
  if (state.predictionMade) {
    const tray = state.shown.selected;
    const check = `${key ?? ""}|${queryOf(state)}|${[...state.predicted].sort().join(",")}`;
    if (check !== state.lastCheck) {
      const matched = state.predicted.length === tray.length && tray.every((id) => state.predicted.includes(id));
      const latencyMs = state.predictedAt !== null && state.appliedAt !== null ? Math.max(0, state.predictedAt - state.appliedAt) : 0;
      effects.push({ type: "report-prediction", check: { step: key, predicted: [...state.predicted], tray: [...tray], matched, latencyMs } });
      next = { ...next, lastCheck: check };
      if (key !== null && !(key in progress.first)) progress = { ...progress, first: { ...progress.first, [key]: matched } };
    }
  }
  if (key !== null && !progress.reached.includes(key)) progress = { ...progress, reached: [...progress.reached, key] };
  if (progress === state.progress) return next;
  const completing = progress.completed === null ? completedGuide(progress.reached, state.store.guides ?? []) : null;
  if (completing !== null) progress = { ...progress, completed: completing };
  effects.push({ type: "report-progress" });
  if (completing !== null) effects.push({ type: "complete-activity" });
  return { ...next, progress };
}

/**
 * A relaunch from an LMS: the configuration, stage, guided progress, baseline and notes
 * it kept. Notes this browser holds that differ from the LMS's copy are kept after it.
 * @param {State} state @param {import("../lms/lms-core.js").Resume} resume @param {number} at @param {Effect[]} effects @returns {State}
 */
function resumed(state, resume, at, effects) {
  const text = mergeNotes(state.notebook.text, resume.notes);
  const baseline = resume.baseline ?? state.notebook.baseline;
  let next = withNotebook(state, { text, baseline });
  next = { ...next, progress: resume.progress, activeStep: resume.step };
  effects.push({ type: "show-notebook" }, { type: "show-baseline" }, { type: "save-notes" });
  const policy = readQuery(`?${resume.query}`, state.fields, SHARE_PARAMS).policy;
  if (samePolicy(policy, state.policy, state.fields) && samePolicy(policy, state.shown.policy, state.fields)) {
    effects.push({ type: "seek-stage", stage: resume.stage });
    return next;
  }
  effects.push({ type: "write-controls", policy });
  next = applyPolicy(next, policy, at, effects);
  return { ...next, appliedAt: at, openStage: resume.stage };
}

/**
 * Make a store the active one: controls, lists and result follow it.
 * @param {State} state @param {{store: any, custom: boolean, opened: boolean, at: number}} event @returns {Step}
 */
function switchStore(state, { store, custom, opened, at }) {
  const fields = policyFields(store);
  const policy = defaultPolicy(fields);
  return step((effects) => {
    effects.push({ type: "show-store" }, { type: "show-prediction-choices", keep: false }, { type: "write-controls", policy });
    const next = pend({ ...state, store, custom, fields, tenantLabels: labelsOf(store), page: 0, predictionMade: false, predicted: [], activeStep: null, policy }, true, effects);
    // A learner's file was opened (and checked) by the engine already; the site's own store is sent again.
    if (!opened) effects.push({ type: "open-store" });
    return applyPolicy(next, policy, at, effects);
  });
}

/**
 * What a panel's setUp returns: how it performs each kind of effect it owns.
 * @typedef {{[type in Effect["type"]]?: (effect: any) => void}} Handlers
 */

/**
 * The performers of the page's effects, each from the panel that owns it, added as the
 * panels are set up one by one. Until ready(), an effect whose panel is not set up yet
 * waits, and every effect after it waits too, so that effects are performed in the
 * order asked; ready() performs them. Two panels performing one effect, or an effect no
 * panel performs once all are set up, is a bug, and throws.
 */
export function createPerformers() {
  /** @type {Handlers} */
  const performers = {};
  /** @type {Effect[] | null} null once every panel is set up */
  let waiting = [];
  const run = (/** @type {Effect} */ effect) => {
    const performer = performers[effect.type];
    if (!performer) throw new Error(`No panel performs the effect ${effect.type}`);
    performer(effect);
  };
  return {
    /** A panel's performers, as its setUp returned them. @param {Handlers} owned */
    add(owned) {
      for (const type of /** @type {Effect["type"][]} */ (Object.keys(owned))) {
        if (performers[type]) throw new Error(`Two panels perform the effect ${type}`);
        performers[type] = owned[type];
      }
    },
    /** @param {Effect} effect */
    perform(effect) {
      if (waiting && (waiting.length > 0 || !performers[effect.type])) waiting.push(effect);
      else run(effect);
    },
    /** Every panel is set up: perform what waited, in order. */
    ready() {
      const due = waiting ?? [];
      waiting = null;
      for (const effect of due) run(effect);
    },
  };
}

/**
 * Run the page: each event goes through update(), the state is kept, then each effect
 * is performed in order. An event dispatched while effects run (the player reporting
 * a stage as the inspection restarts) is handled at once, against the state already
 * kept, as the page's own callbacks always were.
 * @param {State} initial
 * @param {(effect: Effect) => void} perform
 */
export function createPage(initial, perform) {
  const page = { state: initial };
  return {
    state: () => page.state,
    /** @param {Event} event */
    dispatch(event) {
      const { state, effects } = update(page.state, event);
      page.state = state;
      for (const effect of effects) perform(effect);
    },
  };
}
