// The page core's transitions: requests and their sequence, the address, pending
// marks, the inspection replay, guided steps, store switches, the notebook, and the
// performers of its effects while the panels are set up.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  NO_CHOICE, PENDING_AFTER_MS, TYPING_PAUSE_MS, addressParams, createPage, createPerformers, followChoice, initialState, update,
} from "../../site/js/core/page-core.js";
import { defaultPolicy, policyFields } from "../../site/js/core/state.js";
import { FIELD_TABLE } from "../../site/js/core/tables.js";

const siteStore = JSON.parse(readFileSync(new URL("../../fixtures/store.json", import.meta.url), "utf8"));
const otherStore = JSON.parse(readFileSync(new URL("../../fixtures/support-store.json", import.meta.url), "utf8"));
const defaults = defaultPolicy(policyFields(siteStore, FIELD_TABLE));

/**
 * A result shaped like the engine's, as far as the page core reads it.
 * @param {any} policy @param {string[]} [selected]
 */
function resultFor(policy, selected = ["M2"]) {
  const records = siteStore.records.map((/** @type {any} */ r) => ({ ...r, outcome: selected.includes(r.id) ? "selected" : "over_budget" }));
  return {
    policy: { ...policy },
    question: { id: policy.question, text: "?", terms: [], dropped_terms: [] },
    records,
    ranked: [...selected],
    selected: [...selected],
    words_used: 9,
    budget_words: policy.budget_words,
    counts: { stored: 10, in_scope: 10, ranked: 1, selected: 1 },
    coverage: { found: 1, total: 1, supporting: [], found_ids: [] },
  };
}

const boot = { store: siteStore, fields: FIELD_TABLE, result: resultFor(defaults) };
const emptyNotes = { notebook: { text: "", observations: [], baseline: null }, storage: /** @type {const} */ ("ok"), recovered: null };

/** @param {{search?: string, remembered?: any}} [options] */
function begin({ search = "", remembered = null } = {}) {
  return initialState({ boot, remembered, search, notes: emptyNotes });
}

/** Run events in order from a state; returns the last state and every effect, in order. */
function run(/** @type {any} */ state, /** @type {any[]} */ events) {
  /** @type {any[]} */
  const effects = [];
  for (const event of events) {
    const step = update(state, event);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const types = (/** @type {any[]} */ effects) => effects.map((e) => e.type);
const ofType = (/** @type {any[]} */ effects, /** @type {string} */ type) => effects.filter((e) => e.type === type);
const READY = { type: "engine-status", status: { state: "ready", text: "ready" } };
const LOADING = { type: "engine-status", status: { state: "loading", text: "loading", step: 1, of: 4 } };
const FAILED = { type: "engine-status", status: { state: "failed", text: "failed" } };

/** A page whose engine is ready and has answered its first request. */
function readyPage() {
  const { state } = begin();
  const started = run(state, [{ type: "start", notices: [] }, READY]);
  const first = ofType(started.effects, "request")[0];
  return run(started.state, [{ type: "answer", seq: first.seq, answer: resultFor(defaults), askedAt: 5 }]).state;
}

const budget = (/** @type {number} */ words) => ({ ...defaults, budget_words: words });

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
  assert.equal(step.state.pending, note);
  // Python failing to start changes what the note says.
  const failed = update(step.state, FAILED);
  assert.match(String(failed.state.pending), /^Python is not running, so these settings cannot be computed until Retry \(above\) starts it: the figures shown are for Context word budget: 40 \(not 9\)\.$/);
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

test("the engine becoming ready marks it and asks for the current policy once; offline set-up starts once", () => {
  const { state } = begin();
  const loading = update(state, LOADING);
  assert.deepEqual(types(loading.effects), ["show-status"]);
  const ready = update(loading.state, READY);
  assert.deepEqual(types(ready.effects), ["show-status", "mark", "request", "register-offline"]);
  assert.equal(ready.effects[1].name, "rw:engine-ready");
  const again = update(ready.state, READY);
  assert.deepEqual(types(again.effects), ["show-status", "mark", "request"], "offline set-up is not started twice");
});

test("a failed start still starts the offline set-up, and asks nothing of the engine", () => {
  const { effects } = update(begin().state, FAILED);
  assert.deepEqual(types(effects), ["show-status", "register-offline"]);
});

test("a store sent while Python had already failed is opened again before the first run once a Retry has Python ready", () => {
  const { state } = begin();
  const failed = run(state, [FAILED, { type: "start", notices: [] }, { type: "store-not-opened" }]);
  assert.equal(failed.state.storeUnopened, true);
  const ready = run(failed.state, [LOADING, READY]);
  assert.deepEqual(types(ready.effects), ["show-status", "show-status", "mark", "open-store", "request"]);
  assert.equal(ready.state.storeUnopened, false);
  const later = update(ready.state, READY);
  assert.deepEqual(types(later.effects), ["show-status", "mark", "request"], "opened once, not at every later start");
});

test("a control change sends exactly one request, for the new policy", () => {
  const state = readyPage();
  const { state: next, effects } = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const requests = ofType(effects, "request");
  assert.equal(requests.length, 1);
  assert.deepEqual(requests[0], { type: "request", seq: state.sequence + 1, policy: budget(9) });
  assert.equal(next.sequence, state.sequence + 1);
  // An empty question_text stays out of the link, which reads as it always did.
  const { question_text: empty, ...fixed } = budget(9);
  assert.equal(empty, "");
  assert.deepEqual(ofType(effects, "mark-asked"), [{ type: "mark-asked", query: new URLSearchParams({ ...fixed }).toString() }]);
  assert.ok(effects.some((e) => e.type === "refresh-share"));
});

test("a control change that leaves the policy as it is does nothing", () => {
  const state = readyPage();
  const step = update(state, { type: "controls-changed", policy: { ...defaults }, at: 100 });
  assert.deepEqual(step.effects, []);
  assert.equal(step.state, state);
});

test("an answer to an older request is dropped; the latest one is shown", () => {
  const state = readyPage();
  const changed = run(state, [
    { type: "controls-changed", policy: budget(9), at: 100 },
    { type: "controls-changed", policy: budget(12), at: 110 },
  ]);
  const [first, second] = ofType(changed.effects, "request");
  assert.equal(second.seq, first.seq + 1);
  const stale = update(changed.state, { type: "answer", seq: first.seq, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(stale.effects, []);
  assert.equal(stale.state, changed.state);
  const latest = update(changed.state, { type: "answer", seq: second.seq, answer: resultFor(budget(12)), askedAt: 111 });
  assert.equal(latest.state.shown.policy.budget_words, 12);
  assert.ok(latest.effects.some((e) => e.type === "show-result"));
  // A refusal of an older request is no reason to write the address either.
  assert.deepEqual(update(changed.state, { type: "request-failed", seq: first.seq, reason: "gone" }).effects, []);
});

test("with the engine running, the address follows the shown answer, not the control change", () => {
  const state = readyPage();
  const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  assert.ok(!changed.effects.some((e) => e.type === "write-address"));
  assert.equal(changed.state.addressBehind, true);
  const seq = changed.state.sequence;
  const answered = update(changed.state, { type: "answer", seq, answer: resultFor(budget(9)), askedAt: 101 });
  assert.equal(answered.effects.at(-1)?.type, "write-address", "written after the views are updated");
  assert.equal(answered.state.addressBehind, false);
  const shownAt = types(answered.effects).indexOf("show-result");
  assert.ok(shownAt >= 0 && shownAt < answered.effects.length - 1);
});

test("settings the engine refuses: controls and address go back to the settings shown, and the refusal is said", () => {
  const state = readyPage();
  const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const refused = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: { error: { name: "PolicyError", message: "no" } }, askedAt: 1 });
  assert.equal(refused.effects.at(-1)?.type, "write-address");
  assert.deepEqual(ofType(refused.effects, "write-controls"), [{ type: "write-controls", policy: state.shown.policy }]);
  assert.deepEqual(refused.state.policy, state.shown.policy);
  assert.deepEqual(refused.state.refused, { policy: budget(9), reason: "no", cause: "engine" });
  assert.ok(types(refused.effects).includes("show-refusal"));
  assert.equal(refused.state.pending, null);
});

test("a run Python cannot answer: the page goes back to the settings shown, and asks again once Python is ready", () => {
  const state = readyPage();
  const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const failed = update(changed.state, { type: "request-failed", seq: changed.state.sequence, reason: "Python is not running" });
  assert.deepEqual(types(failed.effects), ["write-controls", "mark-asked", "show-refusal", "refresh-share", "write-address"]);
  assert.equal(failed.state.addressBehind, false);
  assert.deepEqual(failed.state.policy, state.shown.policy);
  assert.equal(failed.state.refused?.cause, "python");
  // Refused before its pending mark was due: the mark never comes.
  assert.deepEqual(update(failed.state, { type: "pending-due", seq: changed.state.sequence }).effects, []);
  // A changed control clears the refusal.
  const moved = update(failed.state, { type: "controls-changed", policy: budget(12), at: 200 });
  assert.equal(moved.state.refused, null);
  assert.ok(types(moved.effects).includes("show-refusal"));
  // Python back: the refused settings are the controls' again, and asked for.
  const back = update({ ...failed.state, engine: "failed" }, READY);
  assert.deepEqual(ofType(back.effects, "write-controls"), [{ type: "write-controls", policy: budget(9) }]);
  assert.deepEqual(ofType(back.effects, "request").map((e) => e.policy), [budget(9)]);
  assert.equal(back.state.refused, null);
});

for (const [name, status] of [["still loading", LOADING], ["failed to start", FAILED]]) {
  test(`with Python ${name}, a control change writes the address at once and marks the views pending`, () => {
    const { state } = run(begin().state, [{ type: "start", notices: [] }, status]);
    const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
    assert.deepEqual(types(changed.effects), ["mark-asked", "pending", "request", "write-address", "refresh-share"]);
    assert.equal(changed.state.addressBehind, false);
    assert.match(String(changed.state.pending), /the figures shown are for Context word budget: 40 \(not 9\)\.$/);
  });
}

test("an input change restarts the inspection once its answer is shown, and only then", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  assert.ok(!changed.effects.some((e) => e.type === "restart-inspection"));
  assert.equal(changed.state.replayOnAnswer, true);
  const answered = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(types(answered.effects), [
    "show-result", "mark-shown", "restart-inspection", "show-baseline", "show-prediction", "measure", "write-address",
  ]);
  assert.equal(answered.state.replayOnAnswer, false);
  // Python restarting recomputes the same policy: the inspection is not replayed for that.
  const recomputed = run(answered.state, [LOADING, READY]);
  const seq = ofType(recomputed.effects, "request")[0].seq;
  const again = update(recomputed.state, { type: "answer", seq, answer: resultFor(budget(9)), askedAt: 300 });
  assert.ok(!again.effects.some((e) => e.type === "restart-inspection"));
});

// ---------------------------------------------------------------- typing your own question

const asking = (/** @type {string} */ text) => ({ ...defaults, question_text: text });

test("while a running engine computes a change, the inspection is held: not while typing, nor before Python is ready", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  assert.equal(ofType(changed.effects, "hold-inspection").length, 1);
  const typed = update(readyPage(), { type: "controls-changed", policy: asking("r"), at: 100, typing: true });
  assert.deepEqual(ofType(typed.effects, "hold-inspection"), [], "a keystroke's answer does not replay the inspection");
  const { state } = run(begin().state, [{ type: "start", notices: [] }, LOADING]);
  assert.deepEqual(ofType(update(state, { type: "controls-changed", policy: budget(9), at: 100 }).effects, "hold-inspection"), []);
});

/** Type `text` one keystroke at a time, each answered at once; returns the state and every effect. */
function typeQuestion(/** @type {any} */ state, /** @type {string} */ text, at = 1000) {
  /** @type {any[]} */
  const effects = [];
  for (let i = 1; i <= text.length; i++) {
    const typed = update(state, { type: "controls-changed", policy: asking(text.slice(0, i)), at: at + i, typing: true });
    const answered = update(typed.state, { type: "answer", seq: typed.state.sequence, answer: resultFor(asking(text.slice(0, i))), askedAt: at + i });
    state = answered.state;
    effects.push(...typed.effects, ...answered.effects);
  }
  return { state, effects };
}

test("typing shows each keystroke's result at once and never restarts the inspection meanwhile", () => {
  const start = readyPage();
  const { state, effects } = typeQuestion(start, "region");
  assert.equal(ofType(effects, "request").length, 6);
  assert.equal(ofType(effects, "show-result").length, 6);
  assert.deepEqual(ofType(effects, "restart-inspection"), []);
  assert.equal(state.shown.policy.question_text, "region");
  // One pause timer per keystroke, each naming its own request.
  const timers = ofType(effects, "typing-timer");
  assert.deepEqual(timers.map((t) => t.ms), Array(6).fill(TYPING_PAUSE_MS));
  assert.deepEqual(timers.map((t) => t.seq), ofType(effects, "request").map((r) => r.seq));
  assert.equal(state.typing, timers.at(-1).seq);
  // The link follows the text, and the exact link of the empty text is the one of old.
  assert.ok(ofType(effects, "mark-asked").at(-1).query.endsWith("&question_text=region"));
});

test("a pause restarts the inspection once: earlier keystrokes' timers do nothing", () => {
  const { state, effects } = typeQuestion(readyPage(), "region");
  const timers = ofType(effects, "typing-timer");
  for (const timer of timers.slice(0, -1)) {
    assert.deepEqual(update(state, { type: "typing-paused", seq: timer.seq }).effects, []);
  }
  const paused = update(state, { type: "typing-paused", seq: timers.at(-1).seq });
  assert.deepEqual(types(paused.effects), ["restart-inspection"]);
  assert.equal(paused.state.typing, null);
  // Enter, leaving the box, or the same timer again: nothing more to replay.
  assert.deepEqual(update(paused.state, { type: "question-committed" }).effects, []);
  assert.deepEqual(update(paused.state, { type: "typing-paused", seq: timers.at(-1).seq }).effects, []);
});

test("committing (Enter or leaving the box) restarts the inspection once, before any pause", () => {
  const { state, effects } = typeQuestion(readyPage(), "pending");
  const committed = update(state, { type: "question-committed" });
  assert.deepEqual(types(committed.effects), ["restart-inspection"]);
  const late = update(committed.state, { type: "typing-paused", seq: ofType(effects, "typing-timer").at(-1).seq });
  assert.deepEqual(late.effects, []);
  assert.deepEqual(update(readyPage(), { type: "question-committed" }).effects, [], "nothing typed, nothing to replay");
});

test("a pause before the last keystroke's answer replays the inspection when that answer comes", () => {
  const typed = update(readyPage(), { type: "controls-changed", policy: asking("r"), at: 10, typing: true });
  const paused = update(typed.state, { type: "typing-paused", seq: typed.state.sequence });
  assert.deepEqual(paused.effects, []);
  const answered = update(paused.state, { type: "answer", seq: typed.state.sequence, answer: resultFor(asking("r")), askedAt: 11 });
  assert.equal(ofType(answered.effects, "restart-inspection").length, 1);
});

test("another control changed while typing replays once its answer is shown; the typing timer then does nothing", () => {
  const { state, effects } = typeQuestion(readyPage(), "re");
  const changed = update(state, { type: "controls-changed", policy: { ...asking("re"), budget_words: 9 }, at: 2000 });
  assert.equal(changed.state.typing, null);
  assert.deepEqual(ofType(changed.effects, "typing-timer"), []);
  const answered = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: resultFor({ ...asking("re"), budget_words: 9 }), askedAt: 2001 });
  assert.equal(ofType(answered.effects, "restart-inspection").length, 1);
  assert.deepEqual(update(answered.state, { type: "typing-paused", seq: ofType(effects, "typing-timer").at(-1).seq }).effects, []);
});

test("choosing a fixed question again (the text cleared) is an ordinary change: asked once, replayed once", () => {
  const { state } = typeQuestion(readyPage(), "region");
  const fixed = { ...defaults, question: "timeout-incident", question_text: "" };
  const changed = update(state, { type: "controls-changed", policy: fixed, at: 3000 });
  assert.deepEqual(ofType(changed.effects, "request").map((r) => r.policy), [fixed]);
  assert.equal(changed.state.typing, null);
  assert.ok(!ofType(changed.effects, "mark-asked")[0].query.includes("question_text"));
  const answered = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: resultFor(fixed), askedAt: 3001 });
  assert.equal(ofType(answered.effects, "restart-inspection").length, 1);
});

test("a guided step with an own question applies it and replays, settling any typing", () => {
  const { state } = typeQuestion(readyPage(), "reg");
  const stepped = update(state, { type: "guide-step", policy: { question_text: "Where do our servers live?", store: "semantic" }, at: 4000 });
  assert.equal(stepped.state.typing, null);
  assert.equal(stepped.state.policy.question_text, "Where do our servers live?");
  assert.deepEqual(ofType(stepped.effects, "write-controls")[0].policy, stepped.state.policy);
  assert.equal(stepped.state.replayOnAnswer, true);
});

test("the update is measured from the input, or from the request when no input waits", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  const answered = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(ofType(answered.effects, "measure"), [{ type: "measure", start: 100 }]);
  assert.equal(answered.state.inputAt, null);
  const ready = update(answered.state, READY);
  const seq = ofType(ready.effects, "request")[0].seq;
  const next = update(ready.state, { type: "answer", seq, answer: resultFor(budget(9)), askedAt: 250 });
  assert.deepEqual(ofType(next.effects, "measure"), [{ type: "measure", start: 250 }]);
});

test("an answer with an error keeps the last result, unmarked, its settings back in the controls", () => {
  const state = readyPage();
  const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const late = update(changed.state, { type: "pending-due", seq: changed.state.sequence });
  const refused = update(late.state, {
    type: "answer", seq: changed.state.sequence, answer: { error: { name: "PolicyError", message: "budget_words is wrong" } }, askedAt: 1,
  });
  assert.equal(refused.state.shown, state.shown);
  assert.equal(refused.state.pending, null);
  assert.deepEqual(ofType(refused.effects, "pending"), [{ type: "pending", text: null }]);
  assert.ok(!refused.effects.some((e) => e.type === "show-result" || e.type === "restart-inspection"));
  assert.equal(refused.state.refused?.reason, "budget_words is wrong");
});

test("a running engine's answer is marked pending only once it is late", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  const seq = changed.state.sequence;
  assert.deepEqual(ofType(changed.effects, "pending-timer"), [{ type: "pending-timer", seq, ms: PENDING_AFTER_MS }]);
  assert.ok(!changed.effects.some((e) => e.type === "pending"));
  // The answer came in time: the timer's event changes nothing.
  const answered = update(changed.state, { type: "answer", seq, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(update(answered.state, { type: "pending-due", seq }).effects, []);
  // The answer is late: the views are marked, then cleared by the answer.
  const late = update(changed.state, { type: "pending-due", seq });
  assert.deepEqual(late.effects, [{ type: "pending", text: "Computing these settings: the figures shown are for Context word budget: 40 (not 9)." }]);
  const cleared = update(late.state, { type: "answer", seq, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(ofType(cleared.effects, "pending"), [{ type: "pending", text: null }]);
  // A newer request supersedes the older one's timer.
  const newer = update(changed.state, { type: "controls-changed", policy: budget(12), at: 120 });
  assert.deepEqual(update(newer.state, { type: "pending-due", seq }).effects, []);
});

test("asking again for the policy already shown clears the pending mark at once", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  const late = update(changed.state, { type: "pending-due", seq: changed.state.sequence });
  const back = update(late.state, { type: "controls-changed", policy: { ...defaults }, at: 130 });
  assert.deepEqual(ofType(back.effects, "pending"), [{ type: "pending", text: null }]);
  assert.ok(!back.effects.some((e) => e.type === "pending-timer"));
});

const guide = siteStore.guides[0];

test("a guided step applies its settings over the defaults and asks for them", () => {
  const state = readyPage();
  const { state: next, effects } = update(state, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0 });
  const expected = { ...defaults, ...guide.steps[0].policy };
  assert.deepEqual(effects[0], { type: "write-controls", policy: expected });
  assert.deepEqual(ofType(effects, "request").map((e) => e.policy), [expected]);
  assert.deepEqual(next.policy, expected);
  assert.deepEqual(next.activeStep, { guide: guide.id, index: 0 });
  assert.equal(next.appliedAt, 100);
  assert.equal(next.replayOnAnswer, true);
});

test("re-applying a guided step whose settings are in force restarts the inspection without a request", () => {
  const state = readyPage();
  const applied = update(state, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0 });
  const again = update(applied.state, { type: "guide-step", policy: guide.steps[0].policy, at: 200, guide: guide.id, index: 0 });
  assert.deepEqual(types(again.effects), ["write-controls", "restart-inspection"]);
  assert.equal(again.state.sequence, applied.state.sequence);
});

test("a step that says what it shows opens at its stage, on its record, with its part in view, rather than replaying", () => {
  const step = guide.steps[1];
  const shows = { stage: 4, record: "M7", part: "tray" };
  const applied = update(readyPage(), { type: "guide-step", policy: step.policy, at: 100, guide: guide.id, index: 1, shows });
  assert.equal(applied.state.chosenId, "M7");
  assert.ok(!applied.effects.some((e) => e.type === "reveal-part"), "not before its result is shown");
  const asked = ofType(applied.effects, "request").at(-1);
  // The answer does not rank M7: a step's record is shown all the same, headed by its exclusion.
  const answered = update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, ["M5"]), askedAt: 100 });
  assert.deepEqual(ofType(answered.effects, "seek-stage"), [{ type: "seek-stage", stage: 4 }]);
  assert.deepEqual(ofType(answered.effects, "reveal-part"), [{ type: "reveal-part", part: "tray", id: "M7" }]);
  assert.ok(!answered.effects.some((e) => e.type === "restart-inspection"));
  assert.equal(answered.state.chosenId, "M7");
  assert.deepEqual(answered.state.choice, { picked: true, displaced: null });
  // Opened at the final stage, the step is reached without the player moving to it.
  assert.deepEqual(answered.state.progress.reached, [`${guide.id}:1`]);
  assert.ok(answered.effects.some((e) => e.type === "report-progress"));
  // Applied again with its result shown: at once, with no request.
  const again = update(answered.state, { type: "guide-step", policy: step.policy, at: 200, guide: guide.id, index: 1, shows: { ...shows, stage: 3, part: "breakdown" } });
  assert.deepEqual(types(again.effects), ["write-controls", "seek-stage", "show-chosen", "reveal-part"]);
  assert.deepEqual(ofType(again.effects, "reveal-part"), [{ type: "reveal-part", part: "breakdown", id: "M7" }]);
});

test("the scoreboard measures every answer only once asked for, and the address then says so", () => {
  const page = readyPage();
  assert.equal(page.scoreboard, false);
  const quiet = update(page, { type: "controls-changed", policy: budget(9), at: 100 });
  const unasked = update(quiet.state, { type: "answer", seq: quiet.state.sequence, answer: resultFor(budget(9)), askedAt: 101 });
  assert.ok(!unasked.effects.some((e) => e.type === "show-scoreboard"), "no evaluation before the learner asks");
  assert.deepEqual(addressParams(unasked.state), {});
  const opened = update(unasked.state, { type: "scoreboard-opened" });
  assert.equal(opened.state.scoreboard, true);
  assert.deepEqual(types(opened.effects), ["show-scoreboard", "write-address", "refresh-share"]);
  assert.deepEqual(addressParams(opened.state), { scoreboard: "1" });
  assert.deepEqual(update(opened.state, { type: "scoreboard-opened" }).effects, [], "pressed twice: measured once");
  const changed = update(opened.state, { type: "controls-changed", policy: budget(8), at: 200 });
  const answered = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: resultFor(budget(8)), askedAt: 201 });
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

test("a scoreboard kept in the notebook is added after the notes, as text and as an entry, and saved", () => {
  const page = update(readyPage(), { type: "notes-typed", text: "my guess: hybrid wins\n\n" }).state;
  const entry = {
    kind: "scoreboard", time: "2026-11-29T10:20:00.000Z", link: "https://x/?scoreboard=1", policy: { tenant: "team-a" }, k: 3,
    measure_names: { ndcg: "nDCG@k" }, means: { tfidf: { ndcg: 0.5 }, hybrid: { ndcg: 0.75 } }, best: { ndcg: ["hybrid"] },
    measured: ["deployment-region"], unmeasured: [],
  };
  const kept = update(page, { type: "scoreboard-kept", entry: /** @type {any} */ (entry) });
  assert.deepEqual(types(kept.effects), ["show-notebook", "save-notes"]);
  assert.deepEqual(kept.state.notebook.observations, [entry]);
  assert.match(kept.state.notebook.text, /^my guess: hybrid wins\n\n### Scoreboard 2026-11-29 10:20 UTC\n/);
  assert.match(kept.state.notebook.text, /\| Hybrid \| 0\.750 \(best\) \|\n$/);
});

test("a step opened at the tray drops a prediction made for another configuration, unchecked", () => {
  const predicted = update(readyPage(), { type: "prediction-changed", predicted: ["M5"], at: 50 }).state;
  const shows = { stage: 4, record: "M5", part: "tray" };
  const applied = update(predicted, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0, shows });
  assert.deepEqual(ofType(applied.effects, "show-prediction-choices"), [{ type: "show-prediction-choices", keep: false }]);
  assert.deepEqual([applied.state.predictionMade, applied.state.predicted], [false, []]);
  const asked = ofType(applied.effects, "request").at(-1);
  const answered = update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, ["M5"]), askedAt: 100 });
  assert.deepEqual(ofType(answered.effects, "report-prediction"), []);
  // A step that opens before the tray keeps it: the learner can still change it there.
  const before = update(predicted, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0, shows: { ...shows, stage: 3 } });
  assert.deepEqual([before.state.predictionMade, before.state.predicted], [true, ["M5"]]);
});

test("where an LMS records predictions, a step showing the tray asks for its prediction first, then shows its part", () => {
  const recorded = update(readyPage(), { type: "predictions-recorded" }).state;
  const shows = { stage: 4, record: "M5", part: "tray" };
  const applied = update(recorded, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0, shows });
  const asked = ofType(applied.effects, "request").at(-1);
  const answered = update(applied.state, { type: "answer", seq: asked.seq, answer: resultFor(asked.policy, ["M5"]), askedAt: 100 });
  // One stage before the tray, the prediction's choices in view; the step is not reached yet.
  assert.deepEqual(ofType(answered.effects, "seek-stage"), [{ type: "seek-stage", stage: 3 }]);
  assert.deepEqual(ofType(answered.effects, "ask-prediction"), [{ type: "ask-prediction" }]);
  assert.deepEqual(ofType(answered.effects, "reveal-part"), []);
  assert.deepEqual(answered.state.progress.reached, []);
  const guessed = update(answered.state, { type: "prediction-changed", predicted: ["M5"], at: 900 }).state;
  const reached = update(guessed, { type: "stage-reached", stage: 4 });
  assert.deepEqual(ofType(reached.effects, "report-prediction").map((e) => [e.check.step, e.check.matched]), [[`${guide.id}:0`, true]]);
  assert.deepEqual(ofType(reached.effects, "reveal-part"), [{ type: "reveal-part", part: "tray", id: "M5" }]);
  assert.equal(reached.state.partAfterPrediction, null);
  // Its first check made, the step opens at the tray from then on, at once when its result is shown.
  const again = update(reached.state, { type: "guide-step", policy: guide.steps[0].policy, at: 2000, guide: guide.id, index: 0, shows });
  assert.deepEqual(types(again.effects), ["write-controls", "show-prediction-choices", "seek-stage", "show-chosen", "reveal-part", "show-prediction"]);
  assert.deepEqual(ofType(again.effects, "seek-stage"), [{ type: "seek-stage", stage: 4 }]);
  // A control changed by hand before the tray forgets the step's part.
  const left = update(answered.state, { type: "controls-changed", policy: { ...answered.state.policy, budget_words: 30 }, at: 300 });
  assert.equal(left.state.partAfterPrediction, null);
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
  assert.deepEqual(state.progress, { reached: ["current-vs-historical:0", "current-vs-historical:1", "current-vs-historical:2"], first: {}, completed: guide.id });
  // Reached again: nothing new to report, and never completed twice.
  assert.deepEqual(types(update(state, { type: "stage-reached", stage: 4 }).effects), ["show-prediction"]);
});

test("a step does not count while its answer is on the way, nor after a control is changed by hand", () => {
  const state = readyPage();
  const waiting = update(state, { type: "guide-step", policy: guide.steps[0].policy, at: 100, guide: guide.id, index: 0 }).state;
  assert.deepEqual(types(update(waiting, { type: "stage-reached", stage: 4 }).effects), ["show-prediction"]);
  const answered = stepAnswered(state, 0, ["M5"], 100);
  const left = update(answered, { type: "controls-changed", policy: { ...answered.policy, budget_words: 30 }, at: 300 });
  assert.equal(left.state.activeStep, null);
  const shown = update(left.state, { type: "answer", seq: left.state.sequence, answer: resultFor(left.state.policy, ["M5"]), askedAt: 300 }).state;
  assert.deepEqual(types(update(shown, { type: "stage-reached", stage: 4 }).effects), ["show-prediction"]);
});

test("a prediction checked at stage 4 is reported once, with its latency; a step's first check is what counts", () => {
  let state = stepAnswered(readyPage(), 0, ["M5"], 1000);
  state = update(state, { type: "prediction-changed", predicted: ["M5", "M10"], at: 4500 }).state;
  const first = update(state, { type: "stage-reached", stage: 4 });
  assert.deepEqual(ofType(first.effects, "report-prediction"), [
    { type: "report-prediction", check: { step: "current-vs-historical:0", predicted: ["M5", "M10"], tray: ["M5"], matched: false, latencyMs: 3500 } },
  ]);
  assert.deepEqual(first.state.progress.first, { "current-vs-historical:0": false });
  // The same prediction reaching stage 4 again is not a new check.
  assert.deepEqual(ofType(update(first.state, { type: "stage-reached", stage: 4 }).effects, "report-prediction"), []);
  // A corrected prediction is reported too, but the step's first check stands.
  const fixed = update(first.state, { type: "prediction-changed", predicted: ["M5"], at: 6000 }).state;
  const second = update(fixed, { type: "stage-reached", stage: 4 });
  assert.equal(ofType(second.effects, "report-prediction")[0].check.matched, true);
  assert.deepEqual(second.state.progress.first, { "current-vs-historical:0": false });
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
  assert.equal(next.notebook.text, "from the LMS");
  assert.deepEqual(next.notebook.baseline, { policy: {} });
  assert.deepEqual(next.progress, progress);
  assert.deepEqual(next.activeStep, { guide: guide.id, index: 0 });
  assert.equal(next.policy.budget_words, 9);
  assert.deepEqual(types(effects).slice(0, 4), ["show-notebook", "show-baseline", "save-notes", "write-controls"]);
  const answered = update(next, { type: "answer", seq: next.sequence, answer: resultFor(next.policy, ["M5"]), askedAt: 20 });
  assert.deepEqual(ofType(answered.effects, "seek-stage"), [{ type: "seek-stage", stage: 2 }]);
  assert.deepEqual(ofType(answered.effects, "restart-inspection"), []);
  // The configuration already shown: straight to the stage.
  const same = update(state, { type: "lms-resumed", resume: { ...resume, query: "" }, at: 10 });
  assert.deepEqual(ofType(same.effects, "seek-stage"), [{ type: "seek-stage", stage: 2 }]);
  assert.deepEqual(ofType(same.effects, "request"), []);
});

test("switching to a learner's store (opened by the engine already) resets the controls and asks once", () => {
  const state = { ...readyPage(), page: 1, predictionMade: true };
  const { state: next, effects } = update(state, { type: "store-switched", store: otherStore, custom: true, opened: true, at: 100 });
  assert.equal(next.store, otherStore);
  assert.equal(next.custom, true);
  assert.equal(next.page, 0);
  assert.equal(next.predictionMade, false);
  assert.equal(next.policy.question, otherStore.questions[0].id);
  assert.ok(!effects.some((e) => e.type === "open-store"));
  assert.equal(ofType(effects, "request").length, 1);
  assert.deepEqual(types(effects).slice(0, 4), ["show-store", "show-prediction-choices", "write-controls", "pending"]);
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
  const kept = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: resultFor(budget(9), ["M5", "M7"]), askedAt: 1 });
  assert.equal(kept.state.chosenId, "M7");
  assert.deepEqual(kept.state.choice, { picked: true, displaced: null });
  // M7 is still stored but no longer ranked: the top of the ranking is shown, and M7 named as displaced.
  const moved = update(changed.state, { type: "answer", seq: changed.state.sequence, answer: resultFor(budget(9), ["M5"]), askedAt: 1 });
  assert.equal(moved.state.chosenId, "M5");
  assert.deepEqual(moved.state.choice, { picked: false, displaced: "M7" });
  // Not picked by the learner, the breakdown keeps following the top of each ranking.
  const again = update(moved.state, { type: "controls-changed", policy: budget(10), at: 200 });
  const next = update(again.state, { type: "answer", seq: again.state.sequence, answer: resultFor(budget(10), ["M2", "M5"]), askedAt: 2 });
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

test("the notebook is saved on every change; a failed save is remembered and warned about", () => {
  const state = readyPage();
  const typed = update(state, { type: "notes-typed", text: "hello" });
  assert.equal(typed.state.notebook.text, "hello");
  assert.deepEqual(typed.effects, [{ type: "save-notes" }]);
  const full = update(typed.state, { type: "notes-saved", outcome: "full" });
  assert.equal(full.state.storage, "full");
  assert.deepEqual(full.effects, [{ type: "show-storage-warning" }]);
  assert.equal(update(full.state, { type: "notes-saved", outcome: "ok" }).state.storage, "full", "the warning stays");
  const captured = update(typed.state, { type: "baseline-captured" });
  assert.deepEqual(captured.state.notebook.baseline?.policy, state.shown.policy);
  assert.deepEqual(types(captured.effects), ["save-notes", "show-baseline"]);
  assert.equal(update(captured.state, { type: "baseline-cleared" }).state.notebook.baseline, null);
});

test("an observation is appended to the notebook's text and kept with the others", () => {
  const state = readyPage();
  const entry = {
    time: "2026-11-29T09:00:00.000Z", link: "http://x/?a", question: "?", policy: defaults, tray: [], words_used: 0,
    coverage: { found: 0, total: 1, supporting: [] }, exclusions: [],
  };
  const added = update(state, { type: "observation-added", entry, text: "My notes  \n" });
  assert.match(added.state.notebook.text, /^My notes\n\n### Observation 2026-11-29 09:00 UTC\n/);
  assert.deepEqual(added.state.notebook.observations, [entry]);
  assert.deepEqual(types(added.effects), ["show-notebook", "save-notes"]);
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
  page.dispatch({ type: "answer", seq: page.state().sequence, answer: resultFor(budget(9)), askedAt: 101 });
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
