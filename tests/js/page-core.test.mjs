// The page core's own transitions, each spanning slices: the start, store switches, the
// record explained and the page of records, the scoreboard asked for, every event decided by
// one slice, and the runner and performers of its effects while the panels are set up.
import assert from "node:assert/strict";
import { test } from "node:test";

import { NO_CHOICE, SLICES, addressParams, createPage, createPerformers, followChoice, update } from "../../site/js/core/page-core.js";
import { FAILED, READY, begin, budget, defaults, ofType, otherStore, readyPage, resultFor, run, siteStore, types } from "./page-driver.mjs";

test("start: the prerendered views are adopted, the link's notices shown and the active store opened, with no request", () => {
  const { state, notices } = begin({ search: "?budget_words=nine" });
  assert.equal(notices.length, 1);
  const { effects } = update(state, { type: "start", notices });
  assert.deepEqual(types(effects), ["adopt-prerendered", "write-controls", "mark-shown", "show-notices", "open-store"]);
  assert.deepEqual(ofType(effects, "show-notices")[0].messages, notices);
});

test("start: a link asking for another policy than the prerendered one marks the views pending at once", () => {
  const { state } = begin({ search: "?budget_words=9" });
  assert.equal(state.policy.budget_words, 9);
  const step = update(state, { type: "start", notices: [] });
  // The note names the setting whose figures are on screen, not the one asked for.
  const note = "Waiting for Python to start and compute these settings: the figures shown are for Context word budget: 40 (not 9).";
  assert.deepEqual(ofType(step.effects, "pending"), [{ type: "pending", text: note }]);
  assert.equal(step.state.requests.pending, note);
  // Python failing to start changes what the note says.
  const failed = update(step.state, FAILED);
  assert.match(String(failed.state.requests.pending), /^Python is not running, so these settings cannot be computed until Retry \(above\) starts it: the figures shown are for Context word budget: 40 \(not 9\)\.$/);
});

test("start: a store remembered from this tab is shown, its fields rule the controls, and it is the one opened", () => {
  const { state } = begin({ remembered: otherStore });
  assert.equal(state.custom, true);
  assert.equal(state.policy.question, otherStore.questions[0].id);
  const { effects } = update(state, { type: "start", notices: [] });
  assert.deepEqual(types(effects), [
    "adopt-prerendered", "write-controls", "mark-shown", "show-notices", "show-store", "show-prediction-choices", "pending", "open-store",
  ]);
});

test("the scoreboard measures every answer only once asked for, and the address then says so", () => {
  const page = readyPage();
  assert.equal(page.scoreboard, false);
  const quiet = update(page, { type: "controls-changed", policy: budget(9), at: 100 });
  const unasked = update(quiet.state, { type: "answer", seq: quiet.state.requests.sequence, answer: resultFor(budget(9)), askedAt: 101 });
  assert.ok(!unasked.effects.some((e) => e.type === "show-scoreboard"), "no evaluation before the learner asks");
  assert.deepEqual(addressParams(unasked.state), {});
  const opened = update(unasked.state, { type: "scoreboard-opened" });
  assert.equal(opened.state.scoreboard, true);
  assert.deepEqual(types(opened.effects), ["show-scoreboard", "write-address", "refresh-share"]);
  assert.deepEqual(addressParams(opened.state), { scoreboard: "1" });
  assert.deepEqual(update(opened.state, { type: "scoreboard-opened" }).effects, [], "pressed twice: measured once");
  const changed = update(opened.state, { type: "controls-changed", policy: budget(8), at: 200 });
  const answered = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: resultFor(budget(8)), askedAt: 201 });
  assert.equal(ofType(answered.effects, "show-scoreboard").length, 1, "it follows the next answer");
});

test("a link with scoreboard=1 opens the scoreboard measuring, and keeps the link's other options in the address", () => {
  const { state, notices } = begin({ search: "?scoreboard=1&explain=0" });
  assert.deepEqual(notices, []);
  assert.equal(state.scoreboard, true);
  assert.deepEqual(addressParams(state), { explain: "0", scoreboard: "1" });
  const started = run(state, [{ type: "start", notices: [] }, READY]);
  const first = ofType(started.effects, "request")[0];
  const answered = update(started.state, { type: "answer", seq: first.seq, answer: resultFor(defaults), askedAt: 5 });
  assert.equal(ofType(answered.effects, "show-scoreboard").length, 1, "measured as soon as Python answers");
  assert.equal(begin({ search: "?scoreboard=yes" }).notices.length, 1, "a bad value is named and ignored");
  assert.equal(begin({ search: "?scoreboard=yes" }).state.scoreboard, false);
});

test("switching to a learner's store (opened by the engine already) resets the controls and asks once", () => {
  const ready = readyPage();
  const state = { ...ready, page: 1, guided: { ...ready.guided, predictionMade: true } };
  const { state: next, effects } = update(state, { type: "store-switched", store: otherStore, custom: true, opened: true, at: 100 });
  assert.equal(next.store, otherStore);
  assert.equal(next.custom, true);
  assert.equal(next.page, 0);
  assert.equal(next.guided.predictionMade, false);
  assert.equal(next.policy.question, otherStore.questions[0].id);
  assert.ok(!effects.some((e) => e.type === "open-store"));
  assert.equal(ofType(effects, "request").length, 1);
  assert.deepEqual(types(effects).slice(0, 4), ["show-store", "show-prediction-choices", "write-controls", "pending"]);
});

test("an edited store in force keeps the settings it still allows, and its answer is shown as a keystroke's is", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: { ...budget(9), question: "timeout-incident" }, at: 50 }).state;
  const edited = { ...siteStore, records: siteStore.records.map((r) => (r.id === "M1" ? { ...r, text: `${r.text} again` } : r)) };
  const { state: next, effects } = update(changed, { type: "store-switched", store: edited, custom: true, opened: true, at: 100, edited: true });
  assert.equal(next.policy.budget_words, 9);
  assert.equal(next.policy.question, "timeout-incident");
  assert.equal(next.requests.inputAt, 100, "the answer's measure starts at the edit");
  assert.equal(ofType(effects, "request").length, 1);
  assert.ok(!types(effects).includes("pending"), "no pending mark before a running engine has had time to answer");
  assert.deepEqual(next.requests.afterAnswer, { then: "nothing" }, "no replay on every keystroke");
  // A question the edit removed falls back to the store's first.
  const without = { ...edited, questions: edited.questions.filter((q) => q.id !== "timeout-incident") };
  const fallen = update(next, { type: "store-switched", store: without, custom: true, opened: true, at: 200, edited: true }).state;
  assert.equal(fallen.policy.question, without.questions[0].id);
  assert.equal(fallen.policy.budget_words, 9);
});

test("switching back to the site's store opens it in the engine again before asking", () => {
  const custom = update(readyPage(), { type: "store-switched", store: otherStore, custom: true, opened: true, at: 100 }).state;
  const { effects } = update(custom, { type: "store-switched", store: siteStore, custom: false, opened: false, at: 200 });
  const order = types(effects);
  assert.ok(order.indexOf("open-store") >= 0 && order.indexOf("open-store") < order.indexOf("request"));
});

test("the breakdown follows the answer: the learner's pick while it is ranked, else the top of the ranking, saying which was displaced", () => {
  const state = update(readyPage(), { type: "choose-record", id: "M7" });
  assert.deepEqual(state.effects, [{ type: "show-chosen" }]);
  assert.deepEqual(state.state.choice, { picked: true, displaced: null });
  const changed = update(state.state, { type: "controls-changed", policy: budget(9), at: 100 });
  const kept = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: resultFor(budget(9), ["M5", "M7"]), askedAt: 1 });
  assert.equal(kept.state.chosenId, "M7");
  assert.deepEqual(kept.state.choice, { picked: true, displaced: null });
  // M7 is still stored but no longer ranked: the top of the ranking is shown, and M7 named as displaced.
  const moved = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: resultFor(budget(9), ["M5"]), askedAt: 1 });
  assert.equal(moved.state.chosenId, "M5");
  assert.deepEqual(moved.state.choice, { picked: false, displaced: "M7" });
  // Not picked by the learner, the breakdown keeps following the top of each ranking.
  const again = update(moved.state, { type: "controls-changed", policy: budget(10), at: 200 });
  const next = update(again.state, { type: "answer", seq: again.state.requests.sequence, answer: resultFor(budget(10), ["M2", "M5"]), askedAt: 2 });
  assert.equal(next.state.chosenId, "M2");
  assert.deepEqual(next.state.choice, { picked: false, displaced: null });
});

test("with nothing ranked, the breakdown keeps the record it showed", () => {
  const empty = { ...resultFor(budget(9), []), ranked: [] };
  assert.deepEqual(followChoice(empty, "M7", { picked: true, displaced: null }), { chosenId: "M7", choice: { picked: false, displaced: null } });
  assert.deepEqual(followChoice(empty, "gone", NO_CHOICE), { chosenId: "M1", choice: NO_CHOICE });
});

test("turning pages stays within the records", () => {
  const state = readyPage();
  const back = update(state, { type: "turn-page", step: -1 });
  assert.equal(back.state.page, 0);
  assert.deepEqual(back.effects, [{ type: "show-result" }, { type: "show-prediction-choices", keep: true }]);
  assert.equal(update(state, { type: "turn-page", step: 1 }).state.page, 0, "ten records fit on one page");
});

test("each event is decided by one slice, and an event no slice decides is refused", () => {
  const owners = Object.entries(SLICES).flatMap(([slice, on]) => Object.keys(on).map((type) => [type, slice]));
  const twice = owners.filter(([type], i) => owners.findIndex(([other]) => other === type) !== i);
  assert.deepEqual(twice, []);
  // One event of each slice reaches it through update.
  assert.equal(update(readyPage(), { type: "store-not-opened" }).state.requests.storeUnopened, true);
  assert.equal(update(readyPage(), { type: "predictions-recorded" }).state.guided.predictionsRecorded, true);
  const ready = readyPage();
  assert.equal(update({ ...ready, notes: { ...ready.notes, recovered: "{" } }, { type: "recovered-discarded" }).state.notes.recovered, null);
  for (const type of ["no-such-event", "toString", "constructor"]) {
    assert.throws(() => update(readyPage(), /** @type {any} */ ({ type })), new RegExp(`The page has no event ${type}`));
  }
});

test("the page runner keeps the state and handles an event raised by an effect at once", () => {
  /** @type {string[]} */
  const performed = [];
  const page = createPage(readyPage(), (effect) => {
    performed.push(effect.type);
    // The player reports a stage synchronously when the inspection restarts.
    if (effect.type === "restart-inspection") page.dispatch({ type: "stage-reached", stage: 1 });
  });
  page.dispatch({ type: "controls-changed", policy: budget(9), at: 100 });
  assert.equal(page.state().policy.budget_words, 9);
  page.dispatch({ type: "answer", seq: page.state().requests.sequence, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(performed.slice(-8), [
    "show-result", "mark-shown", "restart-inspection", "show-prediction", "show-baseline", "show-prediction", "measure", "write-address",
  ]);
});

test("performers: an effect asked for before its panel is set up waits, with every effect after it, until all are", () => {
  const performers = createPerformers();
  /** @type {string[]} */
  const done = [];
  performers.add({ pending: (/** @type {any} */ e) => done.push(`pending ${e.on}`) });
  performers.perform({ type: "pending", on: true });
  assert.deepEqual(done, ["pending true"], "a set-up panel performs at once");
  performers.perform({ type: "write-address" });
  performers.perform({ type: "pending", on: false });
  assert.deepEqual(done, ["pending true"], "the later effect waits behind the one whose panel is not set up");
  performers.add({ "write-address": () => done.push("write-address") });
  assert.deepEqual(done, ["pending true"]);
  performers.ready();
  assert.deepEqual(done, ["pending true", "write-address", "pending false"]);
  performers.perform({ type: "pending", on: true });
  assert.equal(done.at(-1), "pending true");
  assert.throws(() => performers.perform({ type: "register-offline" }), /No panel performs the effect register-offline/);
  assert.throws(() => performers.add({ pending: () => {} }), /Two panels perform the effect pending/);
});

test("a followed change (the as-of line dragged) asks at once and its answer shows without replaying the inspection", () => {
  const page = readyPage();
  const asOf = { ...budget(40), as_of_hours: 100 };
  const moved = update(page, { type: "controls-changed", policy: asOf, at: 100, follow: true });
  assert.equal(ofType(moved.effects, "request").length, 1);
  assert.deepEqual(ofType(moved.effects, "typing-timer"), [], "no pause awaited");
  const shown = update(moved.state, { type: "answer", seq: moved.state.requests.sequence, answer: resultFor(asOf), askedAt: 101 });
  assert.ok(!shown.effects.some((e) => e.type === "restart-inspection"), "nothing replays");
  // The same change by hand replays once its answer is shown.
  const byHand = update(page, { type: "controls-changed", policy: asOf, at: 100 });
  const replayed = update(byHand.state, { type: "answer", seq: byHand.state.requests.sequence, answer: resultFor(asOf), askedAt: 101 });
  assert.ok(replayed.effects.some((e) => e.type === "restart-inspection"));
});
