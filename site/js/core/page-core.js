// The page's one state and its pure update function: events in, next state and effects out.
//
// The state is what every part reads (store, policy asked for, result shown) plus one slice per
// part with state of its own (requests.js, guided.js, notebook-core.js); update() hands each event
// to the slice that decides it, or decides it here when it spans slices. No DOM, no timers.

import { ON_GUIDED, applyPolicy, finalStage, forgetPrediction, initialGuided, leaveStep } from "./guided.js";
import { ON_NOTES } from "./notebook-core.js";
import { ON_REQUESTS, answerShown, catchUpAddress, followed, holdInspection, initialRequests, pend, refuse, typed, unanswered } from "./requests.js";
import { SHARE_PARAMS, readShareOptions, shareParams } from "./share.js";
import { defaultPolicy, policyFields, readQuery, samePolicy, writeQuery } from "./state.js";

/** @typedef {import("./shapes.js").Result} Result */
/** @typedef {import("./tables.js").Policy} Policy */
/** @typedef {import("./state.js").Field} Field */
/** @typedef {import("./share.js").ShareOptions} ShareOptions */
/** @typedef {import("./guided.js").Shows} Shows */

/** Records per page of cards, table rows and chart bars: large stores stay responsive. */
export const PAGE_SIZE = 50;

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
 * @property {boolean} scoreboard         the scoreboard measures every answer shown: asked for by the learner, a guided
 *   step that shows it, or the link
 * @property {import("./requests.js").Requests} requests  requests and answers, and the engine's phase
 * @property {import("./guided.js").Guided} guided  the guided step in force, its progress, and the prediction
 * @property {import("./notebook-core.js").Notes} notes  the notebook and where it is kept
 */

/**
 * The events the page core decides itself, each spanning slices.
 * @typedef {{type: "start", notices: string[]}
 *   | {type: "controls-changed", policy: Policy, at: number, typing?: boolean, follow?: boolean}
 *   | {type: "answer", seq: number, answer: any, askedAt: number}
 *   | {type: "request-failed", seq: number, reason: string}
 *   | {type: "store-switched", store: any, custom: boolean, opened: boolean, at: number, edited?: boolean}
 *   | {type: "choose-record", id: string}
 *   | {type: "turn-page", step: number}
 *   | {type: "scoreboard-opened"}} PageEvent
 */

/**
 * @typedef {PageEvent | import("./requests.js").RequestsEvent | import("./guided.js").GuidedEvent
 *   | import("./notebook-core.js").NotesEvent} Event
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

/**
 * How a slice decides each event it owns: the next state, its effects appended in order.
 * @template {{type: string}} E
 * @typedef {{[K in E["type"]]: (state: State, event: Extract<E, {type: K}>, effects: Effect[]) => State}} On
 */

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
    scoreboard: sharing.options.scoreboard,
    requests: initialRequests(),
    guided: initialGuided(),
    notes: { ...notes },
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

/** @param {State} state @param {{seq: number, answer: any, askedAt: number}} event @param {Effect[]} effects @returns {State} */
function answer(state, { answer, askedAt }, effects) {
  // Nothing of a guided step stays in force once its settings are refused.
  if (answer.error) return leaveStep(refuse(state, { policy: state.policy, reason: answer.error.message, cause: "engine" }, effects));
  /** @type {Result} */
  const shown = answer;
  const { chosenId, choice } = followChoice(shown, state.chosenId, state.choice);
  effects.push({ type: "show-result" }, { type: "mark-shown", query: writeQuery(shown.policy, state.fields).slice(1) });
  // The scoreboard measures the policy now shown, once it has been asked for.
  if (state.scoreboard) effects.push({ type: "show-scoreboard" });
  const next = answerShown({ ...state, shown, chosenId, choice }, effects);
  effects.push({ type: "show-baseline" }, { type: "show-prediction" });
  // From the input (or Python becoming ready) to updated views, for bench/ scripts.
  effects.push({ type: "measure", start: state.requests.inputAt ?? askedAt });
  // The player reports only a stage it moves to: opening at the final stage already shown is reached here.
  const { afterAnswer } = state.requests;
  return afterAnswer.then === "open" && afterAnswer.stage === 4 ? finalStage(next, effects) : next;
}

/**
 * Make a store the active one: controls, lists and result follow it. An edit of the store
 * in force (the store editor's draft) keeps the settings the edited store still allows, and
 * its answer is shown as a keystroke's is: at once, the replay waiting for a pause.
 * @param {State} state @param {{store: any, custom: boolean, opened: boolean, at: number, edited?: boolean}} event @param {Effect[]} effects
 */
function switchStore(state, { store, custom, opened, at, edited }, effects) {
  const fields = policyFields(store);
  const policy = edited ? readQuery(queryOf(state), fields).policy : defaultPolicy(fields);
  effects.push({ type: "show-store" }, { type: "show-prediction-choices", keep: false }, { type: "write-controls", policy });
  const switched = leaveStep(forgetPrediction({ ...state, store, custom, fields, tenantLabels: labelsOf(store), page: 0, policy }));
  const next = edited ? switched : pend(switched, true, effects);
  // A learner's file was opened (and checked) by the engine already; the site's own store is sent again.
  if (!opened) effects.push({ type: "open-store" });
  const asked = applyPolicy(next, policy, at, effects);
  return edited ? typed(asked, effects) : asked;
}

/** @type {On<PageEvent>} */
const ON_PAGE = {
  start: (state, { notices }, effects) => {
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
  },
  "controls-changed": (state, { policy, at, typing, follow }, effects) => {
    if (samePolicy(policy, state.policy, state.fields)) return state;
    const next = applyPolicy(leaveStep(state), policy, at, effects);
    if (follow) return followed(next);
    return typing ? typed(next, effects) : holdInspection(next, effects);
  },
  answer: (state, event, effects) => (event.seq === state.requests.sequence ? catchUpAddress(answer(state, event, effects), event.seq, effects) : state),
  "request-failed": (state, { seq, reason }, effects) => {
    if (seq !== state.requests.sequence) return state;
    return leaveStep(refuse(state, unanswered(state, reason), effects));
  },
  "store-switched": switchStore,
  "choose-record": (state, { id }, effects) => {
    effects.push({ type: "show-chosen" });
    return { ...state, chosenId: id, choice: { picked: true, displaced: null } };
  },
  "turn-page": (state, { step }, effects) => {
    const pages = Math.ceil(state.shown.records.length / PAGE_SIZE);
    effects.push({ type: "show-result" }, { type: "show-prediction-choices", keep: true });
    return { ...state, page: Math.min(pages - 1, Math.max(0, state.page + step)) };
  },
  "scoreboard-opened": (state, _, effects) => {
    if (state.scoreboard) return state;
    effects.push({ type: "show-scoreboard" }, { type: "write-address" }, { type: "refresh-share" });
    return { ...state, scoreboard: true };
  },
};

// A part of the page with state of its own adds a slice: its state under one key of State,
// its events in a table of its own, spread into ON.
/** @type {On<Event>} */
const ON = { ...ON_PAGE, ...ON_REQUESTS, ...ON_GUIDED, ...ON_NOTES };

/** Each slice's table, for the test that no event is decided twice. */
export const SLICES = { page: ON_PAGE, requests: ON_REQUESTS, guided: ON_GUIDED, notes: ON_NOTES };

/**
 * @param {State} state
 * @param {Event} event
 * @returns {Step}
 */
export function update(state, event) {
  if (!Object.hasOwn(ON, event.type)) throw new Error(`The page has no event ${event.type}`);
  const decide = /** @type {(state: State, event: Event, effects: Effect[]) => State} */ (ON[event.type]);
  /** @type {Effect[]} */
  const effects = [];
  return { state: decide(state, event, effects), effects };
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
