// Guided steps and the prediction (core/guided.js) through the page's update: a step's
// settings, the stage, record and part it shows, the prediction asked for first where an LMS
// records it, checks and progress, and a relaunch from an LMS.
import assert from "node:assert/strict";
import { test } from "node:test";

import { awaitsPrediction } from "../../site/js/core/guided.js";
import { update } from "../../site/js/core/page-core.js";
import { LOADING, READY, defaults, guide, ofType, readyPage, resultFor, run, types } from "./page-driver.mjs";

test("a guided step applies its settings over the defaults and asks for them", () => {
  const state = readyPage();
  const { state: next, effects } = update(state, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0 });
  const expected = { ...defaults, ...guide.steps[0].policy };
  assert.deepEqual(effects[0], { type: "write-controls", policy: expected });
  assert.deepEqual(ofType(effects, "request").map((e) => e.policy), [expected]);
  assert.deepEqual(next.policy, expected);
  assert.deepEqual(next.guided.activeStep, { guide: guide.id, index: 0 });
  assert.equal(next.guided.appliedAt, 100);
  assert.deepEqual(next.requests.afterAnswer, { then: "replay" });
});

test("re-applying a guided step whose settings are in force restarts the inspection without a request", () => {
  const state = readyPage();
  const applied = update(state, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0 });
  const again = update(applied.state, { type: "guide-step", policy: guide.steps[0].policy, at: 200, guide: guide.id, index: 0 });
  assert.deepEqual(types(again.effects), ["write-controls", "restart-inspection"]);
  assert.equal(again.state.requests.sequence, applied.state.requests.sequence);
});

test("a step that says what it shows opens at its stage, on its record, with its part in view, rather than replaying", () => {
  const step = guide.steps[1];
  const shows = { stage: 4, record: "M7", part: "tray" };
  const applied = update(readyPage(), { type: "guide-step", policy: step.policy, at: 100, guide: guide.id, index: 1, shows });
  assert.equal(applied.state.chosenId, "M7");
  assert.ok(!applied.effects.some((e) => e.type === "reveal-part"), "not before its result is shown");
  assert.deepEqual(applied.state.requests.afterAnswer, { then: "open", stage: 4, part: "tray" });
  const asked = ofType(applied.effects, "request").at(-1);
  // The answer does not rank M7: a step's record is shown all the same, headed by its exclusion.
  const answered = update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, ["M5"]), askedAt: 100 });
  assert.deepEqual(ofType(answered.effects, "seek-stage"), [{ type: "seek-stage", stage: 4 }]);
  assert.deepEqual(ofType(answered.effects, "reveal-part"), [{ type: "reveal-part", part: "tray", id: "M7" }]);
  assert.ok(!answered.effects.some((e) => e.type === "restart-inspection"));
  assert.equal(answered.state.chosenId, "M7");
  assert.deepEqual(answered.state.choice, { picked: true, displaced: null });
  assert.deepEqual(answered.state.requests.afterAnswer, { then: "nothing" }, "done once");
  // Opened at the final stage, the step is reached without the player moving to it.
  assert.deepEqual(answered.state.guided.progress.reached, [`${guide.id}:1`]);
  assert.ok(answered.effects.some((e) => e.type === "report-progress"));
  // Applied again with its result shown: at once, with no request.
  const again = update(answered.state, { type: "guide-step", policy: step.policy, at: 200, guide: guide.id, index: 1, shows: { ...shows, stage: 3, part: "breakdown" } });
  assert.deepEqual(types(again.effects), ["write-controls", "seek-stage", "show-chosen", "reveal-part"]);
  assert.deepEqual(ofType(again.effects, "reveal-part"), [{ type: "reveal-part", part: "breakdown", id: "M7" }]);
});

test("a guided step that shows the scoreboard has it measure: with its answer, or at once when its result is shown", () => {
  const step = guide.steps[1];
  const shows = { stage: 4, record: "M7", part: "scoreboard" };
  const applied = update(readyPage(), { type: "guide-step", policy: step.policy, at: 100, guide: guide.id, index: 1, shows });
  assert.equal(applied.state.scoreboard, true);
  assert.ok(!applied.effects.some((e) => e.type === "show-scoreboard"), "not before its result is shown");
  const asked = ofType(applied.effects, "request").at(-1);
  const answered = update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, ["M7"]), askedAt: 100 });
  assert.deepEqual(types(answered.effects).filter((t) => t === "show-scoreboard" || t === "reveal-part"), ["show-scoreboard", "reveal-part"]);
  assert.deepEqual(ofType(answered.effects, "reveal-part"), [{ type: "reveal-part", part: "scoreboard", id: "M7" }]);
  // Its settings shown already and the scoreboard off: measured at once, the address written.
  const shown = update(answered.state, { type: "guide-step", policy: step.policy, at: 200, guide: guide.id, index: 1, shows: { ...shows, part: "tray" } });
  const off = { ...shown.state, scoreboard: false };
  const again = update(off, { type: "guide-step", policy: step.policy, at: 300, guide: guide.id, index: 1, shows });
  assert.deepEqual(types(again.effects), [
    "write-controls", "write-address", "refresh-share", "show-scoreboard", "seek-stage", "show-chosen", "reveal-part", "show-prediction",
  ]);
  // A step showing another part leaves the scoreboard as it was.
  assert.equal(update(readyPage(), { type: "guide-step", policy: step.policy, at: 100, guide: guide.id, index: 1, shows: { ...shows, part: "tray" } }).state.scoreboard, false);
});

test("a step opened at the tray drops a prediction made for another configuration, unchecked", () => {
  const predicted = update(readyPage(), { type: "prediction-changed", predicted: ["M5"], at: 50 }).state;
  const shows = { stage: 4, record: "M5", part: "tray" };
  const applied = update(predicted, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0, shows });
  assert.deepEqual(ofType(applied.effects, "show-prediction-choices"), [{ type: "show-prediction-choices", keep: false }]);
  assert.deepEqual([applied.state.guided.predictionMade, applied.state.guided.predicted], [false, []]);
  const asked = ofType(applied.effects, "request").at(-1);
  const answered = update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, ["M5"]), askedAt: 100 });
  assert.deepEqual(ofType(answered.effects, "report-prediction"), []);
  // A step that opens before the tray keeps it: the learner can still change it there.
  const before = update(predicted, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0, shows: { ...shows, stage: 3 } });
  assert.deepEqual([before.state.guided.predictionMade, before.state.guided.predicted], [true, ["M5"]]);
});

test("where an LMS records predictions, a step showing the tray asks for its prediction first, then shows its part", () => {
  const recorded = update(readyPage(), { type: "predictions-recorded" }).state;
  const shows = { stage: 4, record: "M5", part: "tray" };
  const applied = update(recorded, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0, shows });
  assert.deepEqual(applied.state.requests.afterAnswer, { then: "predict", stage: 3, part: "tray", asked: false });
  assert.ok(awaitsPrediction(applied.state));
  const asked = ofType(applied.effects, "request").at(-1);
  const answered = update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, ["M5"]), askedAt: 100 });
  // One stage before the tray, the prediction's choices in view; the step is not reached yet.
  assert.deepEqual(ofType(answered.effects, "seek-stage"), [{ type: "seek-stage", stage: 3 }]);
  assert.deepEqual(ofType(answered.effects, "ask-prediction"), [{ type: "ask-prediction" }]);
  assert.deepEqual(ofType(answered.effects, "reveal-part"), []);
  assert.deepEqual(answered.state.guided.progress.reached, []);
  assert.deepEqual(answered.state.requests.afterAnswer, { then: "predict", stage: 3, part: "tray", asked: true }, "the part still waits for the check");
  assert.ok(awaitsPrediction(answered.state));
  const guessed = update(answered.state, { type: "prediction-changed", predicted: ["M5"], at: 900 }).state;
  const reached = update(guessed, { type: "stage-reached", stage: 4 });
  assert.deepEqual(ofType(reached.effects, "report-prediction").map((e) => [e.check.step, e.check.matched]), [[`${guide.id}:0`, true]]);
  assert.deepEqual(ofType(reached.effects, "reveal-part"), [{ type: "reveal-part", part: "tray", id: "M5" }]);
  assert.deepEqual(reached.state.requests.afterAnswer, { then: "nothing" });
  assert.ok(!awaitsPrediction(reached.state));
  // Its first check made, the step opens at the tray from then on, at once when its result is shown.
  const again = update(reached.state, { type: "guide-step", policy: guide.steps[0].policy, at: 2000, guide: guide.id, index: 0, shows });
  assert.deepEqual(types(again.effects), ["write-controls", "show-prediction-choices", "seek-stage", "show-chosen", "reveal-part", "show-prediction"]);
  assert.deepEqual(ofType(again.effects, "seek-stage"), [{ type: "seek-stage", stage: 4 }]);
  // A control changed by hand before the tray forgets the step's part.
  const left = update(answered.state, { type: "controls-changed", policy: { ...answered.state.policy, budget_words: 30 }, at: 300 });
  assert.deepEqual(left.state.requests.afterAnswer, { then: "replay" });
});

test("a step whose result is shown already and whose first check is owed asks for the prediction at once, and only once", () => {
  const step = guide.steps[0];
  const settled = run(readyPage(), [{ type: "predictions-recorded" }, { type: "controls-changed", policy: { ...defaults, ...step.policy }, at: 50 }]);
  const shownAlready = update(settled.state, { type: "answer", seq: settled.state.requests.sequence, answer: resultFor(settled.state.policy, ["M5"]), askedAt: 50 }).state;
  const shows = { stage: 4, record: "M5", part: "tray" };
  const applied = update(shownAlready, { type: "guide-step", policy: step.policy, at: 100, guide: guide.id, index: 0, shows });
  assert.deepEqual(types(applied.effects), ["write-controls", "seek-stage", "show-chosen", "ask-prediction"]);
  assert.deepEqual(ofType(applied.effects, "seek-stage"), [{ type: "seek-stage", stage: 3 }]);
  assert.deepEqual(applied.state.requests.afterAnswer, { then: "predict", stage: 3, part: "tray", asked: true });
  // Python restarted and computed the same settings again: the step is not opened or asked again.
  const recomputed = run(applied.state, [LOADING, READY]);
  const again = update(recomputed.state, { type: "answer", seq: ofType(recomputed.effects, "request")[0].seq, answer: resultFor(applied.state.policy, ["M5"]), askedAt: 300 });
  assert.deepEqual(again.effects.filter((e) => ["seek-stage", "ask-prediction", "restart-inspection", "reveal-part"].includes(e.type)), []);
  // The tray reached with a prediction: checked, and the step's part comes into view.
  const guessed = update(again.state, { type: "prediction-changed", predicted: ["M5"], at: 400 }).state;
  const reached = update(guessed, { type: "stage-reached", stage: 4 });
  assert.deepEqual(ofType(reached.effects, "report-prediction").map((e) => [e.check.step, e.check.matched, e.check.latencyMs]), [[`${guide.id}:0`, true, 300]]);
  assert.deepEqual(ofType(reached.effects, "reveal-part"), [{ type: "reveal-part", part: "tray", id: "M5" }]);
  assert.deepEqual(reached.state.requests.afterAnswer, { then: "nothing" });
});

test("a step opened at once, its settings shown, is not replayed over by a late answer for those settings", () => {
  const step = guide.steps[1];
  const settled = run(readyPage(), [{ type: "controls-changed", policy: { ...defaults, ...step.policy }, at: 50 }]);
  const shownAlready = update(settled.state, { type: "answer", seq: settled.state.requests.sequence, answer: resultFor(settled.state.policy, ["M7"]), askedAt: 50 }).state;
  // Changed and changed back before either answer came: the settings shown are asked for again.
  const back = run(shownAlready, [
    { type: "controls-changed", policy: { ...shownAlready.policy, budget_words: 9 }, at: 60 },
    { type: "controls-changed", policy: shownAlready.policy, at: 70 },
  ]);
  const shows = { stage: 4, record: "M7", part: "tray" };
  const applied = update(back.state, { type: "guide-step", policy: step.policy, at: 100, guide: guide.id, index: 1, shows });
  assert.deepEqual(ofType(applied.effects, "seek-stage"), [{ type: "seek-stage", stage: 4 }]);
  const late = update(applied.state, { type: "answer", seq: applied.state.requests.sequence, answer: resultFor(applied.state.policy, ["M7"]), askedAt: 110 });
  assert.deepEqual(ofType(late.effects, "restart-inspection"), [], "the step stays open at its stage");
});

/**
 * Apply a guided step and let the engine answer it with this tray.
 * @param {any} state @param {number} index @param {string[]} tray @param {number} at
 */
function stepAnswered(state, index, tray, at) {
  const applied = update(state, { type: "guide-step", policy: guide.steps[index].policy, at, guide: guide.id, index });
  const asked = ofType(applied.effects, "request").at(-1);
  if (!asked) return applied.state;
  return update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, tray), askedAt: at }).state;
}

test("the LMS activity is complete only once every step of one guided experiment reached stage 4", () => {
  let state = readyPage();
  assert.deepEqual(types(update(state, { type: "stage-reached", stage: 4 }).effects), ["show-prediction"]);
  const trays = [["M5"], [], []];
  /** @type {string[][]} */
  const seen = [];
  for (const [index, tray] of trays.entries()) {
    state = stepAnswered(state, index, tray, 100 * (index + 1));
    assert.deepEqual(types(update(state, { type: "stage-reached", stage: 3 }).effects), ["show-prediction"]);
    const reached = update(state, { type: "stage-reached", stage: 4 });
    seen.push(types(reached.effects));
    state = reached.state;
  }
  assert.deepEqual(seen, [
    ["show-prediction", "report-progress"],
    ["show-prediction", "report-progress"],
    ["show-prediction", "report-progress", "complete-activity"],
  ]);
  assert.deepEqual(state.guided.progress, { reached: ["current-vs-historical:0", "current-vs-historical:1", "current-vs-historical:2"], first: {}, completed: guide.id });
  // Reached again: nothing new to report, and never completed twice.
  assert.deepEqual(types(update(state, { type: "stage-reached", stage: 4 }).effects), ["show-prediction"]);
});

test("a step does not count while its answer is on the way, nor after a control is changed by hand", () => {
  const state = readyPage();
  const waiting = update(state, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0 }).state;
  assert.deepEqual(types(update(waiting, { type: "stage-reached", stage: 4 }).effects), ["show-prediction"]);
  const answered = stepAnswered(state, 0, ["M5"], 100);
  const left = update(answered, { type: "controls-changed", policy: { ...answered.policy, budget_words: 30 }, at: 300 });
  assert.equal(left.state.guided.activeStep, null);
  const shown = update(left.state, { type: "answer", seq: left.state.requests.sequence, answer: resultFor(left.state.policy, ["M5"]), askedAt: 300 }).state;
  assert.deepEqual(types(update(shown, { type: "stage-reached", stage: 4 }).effects), ["show-prediction"]);
});

test("a prediction checked at stage 4 is reported once, with its latency; a step's first check is what counts", () => {
  let state = stepAnswered(readyPage(), 0, ["M5"], 1000);
  state = update(state, { type: "prediction-changed", predicted: ["M5", "M10"], at: 4500 }).state;
  const first = update(state, { type: "stage-reached", stage: 4 });
  assert.deepEqual(ofType(first.effects, "report-prediction"), [
    { type: "report-prediction", check: { step: "current-vs-historical:0", predicted: ["M5", "M10"], tray: ["M5"], matched: false, latencyMs: 3500 } },
  ]);
  assert.deepEqual(first.state.guided.progress.first, { "current-vs-historical:0": false });
  // The same prediction reaching stage 4 again is not a new check.
  assert.deepEqual(ofType(update(first.state, { type: "stage-reached", stage: 4 }).effects, "report-prediction"), []);
  // A corrected prediction is reported too, but the step's first check stands.
  const fixed = update(first.state, { type: "prediction-changed", predicted: ["M5"], at: 6000 }).state;
  const second = update(fixed, { type: "stage-reached", stage: 4 });
  assert.equal(ofType(second.effects, "report-prediction")[0].check.matched, true);
  assert.deepEqual(second.state.guided.progress.first, { "current-vs-historical:0": false });
  // Outside a guided step a check is reported but counts for no step.
  const free = update(readyPage(), { type: "prediction-changed", predicted: [], at: 50 }).state;
  const check = ofType(update(free, { type: "stage-reached", stage: 4 }).effects, "report-prediction")[0].check;
  assert.deepEqual([check.step, check.matched], [null, false]);
});

test("a relaunch restores notes, baseline and progress, and opens its configuration at the saved stage", () => {
  const state = readyPage();
  const progress = { reached: ["current-vs-historical:0"], first: { "current-vs-historical:0": true }, completed: null };
  const resume = { query: "question=timeout-incident&budget_words=9", stage: 2, step: { guide: guide.id, index: 0 }, progress, baseline: { policy: {} }, notes: "from the LMS" };
  const { state: next, effects } = update(state, { type: "lms-resumed", resume, at: 10 });
  assert.equal(next.notes.notebook.text, "from the LMS");
  assert.deepEqual(next.notes.notebook.baseline, { policy: {} });
  assert.deepEqual(next.guided.progress, progress);
  assert.deepEqual(next.guided.activeStep, { guide: guide.id, index: 0 });
  assert.equal(next.policy.budget_words, 9);
  assert.deepEqual(types(effects).slice(0, 4), ["show-notebook", "show-baseline", "save-notes", "write-controls"]);
  assert.deepEqual(next.requests.afterAnswer, { then: "open", stage: 2, part: null });
  const answered = update(next, { type: "answer", seq: next.requests.sequence, answer: resultFor(next.policy, ["M5"]), askedAt: 20 });
  assert.deepEqual(ofType(answered.effects, "seek-stage"), [{ type: "seek-stage", stage: 2 }]);
  assert.deepEqual(ofType(answered.effects, "restart-inspection"), []);
  // The configuration already shown: straight to the stage.
  const same = update(state, { type: "lms-resumed", resume: { ...resume, query: "" }, at: 10 });
  assert.deepEqual(ofType(same.effects, "seek-stage"), [{ type: "seek-stage", stage: 2 }]);
  assert.deepEqual(ofType(same.effects, "request"), []);
});
