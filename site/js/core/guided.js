// The guided step in force and the learner's prediction: applying a step, checking a prediction
// at the final stage, the progress an LMS scores, and a relaunch from an LMS. Pure, like page-core.js.

import { completedGuide, emptyProgress, stepKey } from "../lms/lms-core.js";
import { notesResumed } from "./notebook-core.js";
import { NOTHING, ask, expectAnswer, holdInspection, settleTyping } from "./requests.js";
import { SHARE_PARAMS } from "./share.js";
import { defaultPolicy, readQuery, samePolicy, writeQuery } from "./state.js";

/** @typedef {import("./page-core.js").State} State */
/** @typedef {import("./page-core.js").Effect} Effect */
/** @typedef {import("./tables.js").Policy} Policy */

/**
 * What a guided step shows: the stage the inspection opens at, the record whose score is
 * explained, and the part of the page brought into view (engine.fields.GUIDE_PARTS).
 * @typedef {{stage: number, record: string, part: string}} Shows
 */

/** The guide part that is the scoreboard: a step showing it has the scoreboard measure. */
export const SCOREBOARD_PART = "scoreboard";

/**
 * @typedef {object} Guided
 * @property {{guide: string, index: number} | null} activeStep  the guided step in force; a control changed by hand leaves it
 * @property {import("../lms/lms-core.js").Progress} progress  guided steps reached, first checks, the completed experiment
 * @property {boolean} predictionMade
 * @property {string[]} predicted         the record ids the learner predicts (an empty prediction: an empty tray)
 * @property {number | null} predictedAt  when the prediction last changed
 * @property {number | null} appliedAt    when the configuration in force was applied (a control change or a guided step)
 * @property {string | null} lastCheck    the prediction checked last, against which result: each is reported once
 * @property {boolean} predictionsRecorded  an LMS records every checked prediction (lms.js)
 */

/**
 * The events only this slice decides.
 * @typedef {{type: "guide-step", policy: Partial<Policy>, at: number, guide?: string, index?: number, shows?: Shows}
 *   | {type: "prediction-changed", predicted?: string[], at?: number}
 *   | {type: "prediction-cleared"}
 *   | {type: "stage-reached", stage: number}
 *   | {type: "predictions-recorded"}
 *   | {type: "lms-resumed", resume: import("../lms/lms-core.js").Resume, at: number}} GuidedEvent
 */

/** No step taken, nothing predicted. @returns {Guided} */
export function initialGuided() {
  return {
    activeStep: null,
    progress: emptyProgress(),
    predictionMade: false,
    predicted: [],
    predictedAt: null,
    appliedAt: null,
    lastCheck: null,
    predictionsRecorded: false,
  };
}

/** @param {State} state @param {Partial<Guided>} change @returns {State} */
function withGuided(state, change) {
  return { ...state, guided: { ...state.guided, ...change } };
}

/**
 * Ask for a new policy (requests.js ask), its time kept: a prediction's latency is counted from it.
 * @param {State} state @param {Policy} policy @param {number} at @param {Effect[]} effects
 */
export function applyPolicy(state, policy, at, effects) {
  return withGuided(ask(state, policy, at, effects), { appliedAt: at });
}

/** A control changed by hand, a new store or a refusal: no guided step is in force. @param {State} state */
export function leaveStep(state) {
  return withGuided(state, { activeStep: null });
}

/** Made for another configuration: the prediction is no longer one. @param {State} state */
export function forgetPrediction(state) {
  return withGuided(state, { predictionMade: false, predicted: [], predictedAt: null });
}

/** A guided step waits for the learner's prediction before it shows its part (guideStep). @param {State} state */
export function awaitsPrediction(state) {
  return state.requests.afterAnswer.then === "predict";
}

/**
 * A guided step: its settings over the defaults, then the inspection from the start, or,
 * for a step that says what it shows, at that stage, on that record, with that part in view.
 *
 * An LMS scores a guided step by the first prediction checked there, so while that is still
 * to come, a step that shows the tray opens one stage before it: the learner predicts, and
 * the step's part comes into view once they reach the tray (stage-reached).
 * @param {State} state @param {Extract<GuidedEvent, {type: "guide-step"}>} event @param {Effect[]} effects @returns {State}
 */
function guideStep(state, { policy: settings, at, guide, index, shows }, effects) {
  const policy = /** @type {Policy} */ ({ ...defaultPolicy(state.fields), ...settings });
  const activeStep = guide !== undefined && index !== undefined ? { guide, index } : null;
  effects.push({ type: "write-controls", policy });
  let next = state;
  const asked = !samePolicy(policy, state.policy, state.fields);
  if (asked) next = holdInspection(applyPolicy(next, policy, at, effects), effects);
  else if (!shows) effects.push({ type: "restart-inspection" });
  next = withGuided(settleTyping(next), { activeStep, appliedAt: at });
  if (!shows) return next;
  const owed = shows.stage === 4 && state.guided.predictionsRecorded && activeStep !== null && !(stepKey(activeStep) in state.guided.progress.first);
  const stage = owed ? 3 : shows.stage;
  next = { ...next, chosenId: shows.record };
  if (stage === 4 && next.guided.predictionMade) {
    // Made for another configuration, and never open before this tray: not a prediction of it.
    next = forgetPrediction(next);
    effects.push({ type: "show-prediction-choices", keep: false });
  }
  // A step that shows the scoreboard has it measure: with its answer, or now when shown already.
  const measure = shows.part === SCOREBOARD_PART && !state.scoreboard;
  if (measure) {
    next = { ...next, scoreboard: true };
    if (!asked) effects.push({ type: "write-address" }, { type: "refresh-share" });
  }
  if (asked || !samePolicy(policy, state.shown.policy, state.fields)) {
    // Once its result is shown (requests.js answerShown).
    next = { ...next, choice: { picked: true, displaced: null, held: true } };
    return expectAnswer(next, owed ? { then: "predict", stage, part: shows.part, asked: false } : { then: "open", stage, part: shows.part });
  }
  next = expectAnswer({ ...next, choice: { picked: true, displaced: null } }, owed ? { then: "predict", stage, part: shows.part, asked: true } : NOTHING);
  if (measure) effects.push({ type: "show-scoreboard" });
  effects.push({ type: "seek-stage", stage }, { type: "show-chosen" });
  effects.push(owed ? { type: "ask-prediction" } : { type: "reveal-part", part: shows.part, id: shows.record });
  // The player reports only a stage it moves to: a step opened at the stage already shown is reached here.
  return stage === 4 ? finalStage(next, effects) : next;
}

/**
 * The inspection reached its final stage. A standing prediction is checked against the
 * tray and reported once per prediction and result; a guided step in force counts as
 * reached (its first check is what the score counts); once every step of one guided
 * experiment has been reached, the activity is complete.
 * @param {State} state @param {Effect[]} effects @returns {State}
 */
export function finalStage(state, effects) {
  effects.push({ type: "show-prediction" });
  // Only a result that answers the controls counts: a step whose answer is still on its way has not been seen.
  if (!samePolicy(state.policy, state.shown.policy, state.fields)) return state;
  const { activeStep, predictionMade, predicted, predictedAt, appliedAt, lastCheck } = state.guided;
  let next = state;
  const key = activeStep ? stepKey(activeStep) : null;
  let { progress } = state.guided;
  if (predictionMade) {
    const tray = state.shown.selected;
    const check = `${key ?? ""}|${writeQuery(state.policy, state.fields)}|${[...predicted].sort().join(",")}`;
    if (check !== lastCheck) {
      const matched = predicted.length === tray.length && tray.every((id) => predicted.includes(id));
      const latencyMs = predictedAt !== null && appliedAt !== null ? Math.max(0, predictedAt - appliedAt) : 0;
      effects.push({ type: "report-prediction", check: { step: key, predicted: [...predicted], tray: [...tray], matched, latencyMs } });
      next = withGuided(next, { lastCheck: check });
      if (key !== null && !(key in progress.first)) progress = { ...progress, first: { ...progress.first, [key]: matched } };
    }
  }
  if (key !== null && !progress.reached.includes(key)) progress = { ...progress, reached: [...progress.reached, key] };
  if (progress === state.guided.progress) return next;
  const completing = progress.completed === null ? completedGuide(progress.reached, state.store.guides ?? []) : null;
  if (completing !== null) progress = { ...progress, completed: completing };
  effects.push({ type: "report-progress" });
  if (completing !== null) effects.push({ type: "complete-activity" });
  return withGuided(next, { progress });
}

/**
 * The final stage reached: the prediction is checked, and a guided step that asked for it
 * first shows its part now.
 * @param {State} state @param {Effect[]} effects
 */
function finalStageReached(state, effects) {
  const next = finalStage(state, effects);
  const { afterAnswer } = next.requests;
  if (afterAnswer.then !== "predict" || !samePolicy(next.policy, next.shown.policy, next.fields)) return next;
  effects.push({ type: "reveal-part", part: afterAnswer.part, id: next.chosenId });
  // Its answer still to come (asked for again in the meantime), the step still opens where it said.
  return expectAnswer(next, afterAnswer.asked ? NOTHING : { then: "open", stage: afterAnswer.stage, part: null });
}

/**
 * A relaunch from an LMS: the configuration, stage, guided progress, baseline and notes
 * it kept.
 * @param {State} state @param {import("../lms/lms-core.js").Resume} resume @param {number} at @param {Effect[]} effects @returns {State}
 */
function resumed(state, resume, at, effects) {
  let next = withGuided(notesResumed(state, resume, effects), { progress: resume.progress, activeStep: resume.step });
  const policy = readQuery(`?${resume.query}`, state.fields, SHARE_PARAMS).policy;
  if (samePolicy(policy, state.policy, state.fields) && samePolicy(policy, state.shown.policy, state.fields)) {
    effects.push({ type: "seek-stage", stage: resume.stage });
    return next;
  }
  effects.push({ type: "write-controls", policy });
  next = applyPolicy(next, policy, at, effects);
  return expectAnswer(next, { then: "open", stage: resume.stage, part: null });
}

/** @type {import("./page-core.js").On<GuidedEvent>} */
export const ON_GUIDED = {
  "guide-step": guideStep,
  "prediction-changed": (state, { predicted, at }, effects) => {
    effects.push({ type: "show-prediction" });
    return withGuided(state, { predictionMade: true, predicted: predicted ?? state.guided.predicted, predictedAt: at ?? state.guided.predictedAt });
  },
  "prediction-cleared": (state, _, effects) => {
    effects.push({ type: "show-prediction" });
    return withGuided(state, { predictionMade: false, predicted: [] });
  },
  "stage-reached": (state, { stage }, effects) => {
    if (stage === 4) return finalStageReached(state, effects);
    effects.push({ type: "show-prediction" });
    return state;
  },
  "predictions-recorded": (state) => withGuided(state, { predictionsRecorded: true }),
  "lms-resumed": (state, { resume, at }, effects) => resumed(state, resume, at, effects),
};
