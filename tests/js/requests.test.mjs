// Requests and their answers (core/requests.js) through the page's update: the sequence that
// shows only the latest answer, the address, pending marks, refusals and asking again, the
// engine's phase, and what an answer does to the inspection while typing and after.
import assert from "node:assert/strict";
import { test } from "node:test";

import { update } from "../../site/js/core/page-core.js";
import { PENDING_AFTER_MS, TYPING_PAUSE_MS } from "../../site/js/core/requests.js";
import { FAILED, LOADING, READY, begin, budget, defaults, ofType, readyPage, resultFor, run, types } from "./page-driver.mjs";

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
  assert.equal(failed.state.requests.storeUnopened, true);
  const ready = run(failed.state, [LOADING, READY]);
  assert.deepEqual(types(ready.effects), ["show-status", "show-status", "mark", "open-store", "request"]);
  assert.equal(ready.state.requests.storeUnopened, false);
  const later = update(ready.state, READY);
  assert.deepEqual(types(later.effects), ["show-status", "mark", "request"], "opened once, not at every later start");
});

test("a control change sends exactly one request, for the new policy", () => {
  const state = readyPage();
  const { state: next, effects } = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const requests = ofType(effects, "request");
  assert.equal(requests.length, 1);
  assert.deepEqual(requests[0], { type: "request", seq: state.requests.sequence + 1, policy: budget(9) });
  assert.equal(next.requests.sequence, state.requests.sequence + 1);
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
  assert.equal(changed.state.requests.addressBehind, true);
  const seq = changed.state.requests.sequence;
  const answered = update(changed.state, { type: "answer", seq, answer: resultFor(budget(9)), askedAt: 101 });
  assert.equal(answered.effects.at(-1)?.type, "write-address", "written after the views are updated");
  assert.equal(answered.state.requests.addressBehind, false);
  const shownAt = types(answered.effects).indexOf("show-result");
  assert.ok(shownAt >= 0 && shownAt < answered.effects.length - 1);
});

test("settings the engine refuses: controls and address go back to the settings shown, and the refusal is said", () => {
  const state = readyPage();
  const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const refused = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: { error: { name: "PolicyError", message: "no" } }, askedAt: 1 });
  assert.equal(refused.effects.at(-1)?.type, "write-address");
  assert.deepEqual(ofType(refused.effects, "write-controls"), [{ type: "write-controls", policy: state.shown.policy }]);
  assert.deepEqual(refused.state.policy, state.shown.policy);
  assert.deepEqual(refused.state.requests.refused, { policy: budget(9), reason: "no", cause: "engine" });
  assert.ok(types(refused.effects).includes("show-refusal"));
  assert.equal(refused.state.requests.pending, null);
});

test("a run Python cannot answer: the page goes back to the settings shown, and asks again once Python is ready", () => {
  const state = readyPage();
  const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const failed = update(changed.state, { type: "request-failed", seq: changed.state.requests.sequence, reason: "Python is not running" });
  assert.deepEqual(types(failed.effects), ["write-controls", "mark-asked", "show-refusal", "refresh-share", "write-address"]);
  assert.equal(failed.state.requests.addressBehind, false);
  assert.deepEqual(failed.state.policy, state.shown.policy);
  assert.equal(failed.state.requests.refused?.cause, "python");
  // Refused before its pending mark was due: the mark never comes.
  assert.deepEqual(update(failed.state, { type: "pending-due", seq: changed.state.requests.sequence }).effects, []);
  // A changed control clears the refusal.
  const moved = update(failed.state, { type: "controls-changed", policy: budget(12), at: 200 });
  assert.equal(moved.state.requests.refused, null);
  assert.ok(types(moved.effects).includes("show-refusal"));
  // Python back: the refused settings are the controls' again, and asked for.
  const back = update({ ...failed.state, requests: { ...failed.state.requests, engine: "failed" } }, READY);
  assert.deepEqual(ofType(back.effects, "write-controls"), [{ type: "write-controls", policy: budget(9) }]);
  assert.deepEqual(ofType(back.effects, "request").map((e) => e.policy), [budget(9)]);
  assert.equal(back.state.requests.refused, null);
});

for (const [name, status] of [["still loading", LOADING], ["failed to start", FAILED]]) {
  test(`with Python ${name}, a control change writes the address at once and marks the views pending`, () => {
    const { state } = run(begin().state, [{ type: "start", notices: [] }, status]);
    const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
    assert.deepEqual(types(changed.effects), ["mark-asked", "pending", "request", "write-address", "refresh-share"]);
    assert.equal(changed.state.requests.addressBehind, false);
    assert.match(String(changed.state.requests.pending), /the figures shown are for Context word budget: 40 \(not 9\)\.$/);
  });
}

test("an input change restarts the inspection once its answer is shown, and only then", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  assert.ok(!changed.effects.some((e) => e.type === "restart-inspection"));
  assert.deepEqual(changed.state.requests.afterAnswer, { then: "replay" });
  const answered = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(types(answered.effects), [
    "show-result", "mark-shown", "restart-inspection", "show-baseline", "show-prediction", "measure", "write-address",
  ]);
  assert.deepEqual(answered.state.requests.afterAnswer, { then: "nothing" });
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
    const answered = update(typed.state, { type: "answer", seq: typed.state.requests.sequence, answer: resultFor(asking(text.slice(0, i))), askedAt: at + i });
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
  assert.equal(state.requests.typing, timers.at(-1).seq);
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
  assert.equal(paused.state.requests.typing, null);
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
  const paused = update(typed.state, { type: "typing-paused", seq: typed.state.requests.sequence });
  assert.deepEqual(paused.effects, []);
  const answered = update(paused.state, { type: "answer", seq: typed.state.requests.sequence, answer: resultFor(asking("r")), askedAt: 11 });
  assert.equal(ofType(answered.effects, "restart-inspection").length, 1);
});

test("another control changed while typing replays once its answer is shown; the typing timer then does nothing", () => {
  const { state, effects } = typeQuestion(readyPage(), "re");
  const changed = update(state, { type: "controls-changed", policy: { ...asking("re"), budget_words: 9 }, at: 2000 });
  assert.equal(changed.state.requests.typing, null);
  assert.deepEqual(ofType(changed.effects, "typing-timer"), []);
  const answered = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: resultFor({ ...asking("re"), budget_words: 9 }), askedAt: 2001 });
  assert.equal(ofType(answered.effects, "restart-inspection").length, 1);
  assert.deepEqual(update(answered.state, { type: "typing-paused", seq: ofType(effects, "typing-timer").at(-1).seq }).effects, []);
});

test("choosing a fixed question again (the text cleared) is an ordinary change: asked once, replayed once", () => {
  const { state } = typeQuestion(readyPage(), "region");
  const fixed = { ...defaults, question: "timeout-incident", question_text: "" };
  const changed = update(state, { type: "controls-changed", policy: fixed, at: 3000 });
  assert.deepEqual(ofType(changed.effects, "request").map((r) => r.policy), [fixed]);
  assert.equal(changed.state.requests.typing, null);
  assert.ok(!ofType(changed.effects, "mark-asked")[0].query.includes("question_text"));
  const answered = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: resultFor(fixed), askedAt: 3001 });
  assert.equal(ofType(answered.effects, "restart-inspection").length, 1);
});

test("a guided step with an own question applies it and replays, settling any typing", () => {
  const { state } = typeQuestion(readyPage(), "reg");
  const stepped = update(state, { type: "guide-step", policy: { question_text: "Where do our servers live?", store: "semantic" }, at: 4000 });
  assert.equal(stepped.state.requests.typing, null);
  assert.equal(stepped.state.policy.question_text, "Where do our servers live?");
  assert.deepEqual(ofType(stepped.effects, "write-controls")[0].policy, stepped.state.policy);
  assert.deepEqual(stepped.state.requests.afterAnswer, { then: "replay" });
});

test("the update is measured from the input, or from the request when no input waits", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  const answered = update(changed.state, { type: "answer", seq: changed.state.requests.sequence, answer: resultFor(budget(9)), askedAt: 101 });
  assert.deepEqual(ofType(answered.effects, "measure"), [{ type: "measure", start: 100 }]);
  assert.equal(answered.state.requests.inputAt, null);
  const ready = update(answered.state, READY);
  const seq = ofType(ready.effects, "request")[0].seq;
  const next = update(ready.state, { type: "answer", seq, answer: resultFor(budget(9)), askedAt: 250 });
  assert.deepEqual(ofType(next.effects, "measure"), [{ type: "measure", start: 250 }]);
});

test("an answer with an error keeps the last result, unmarked, its settings back in the controls", () => {
  const state = readyPage();
  const changed = update(state, { type: "controls-changed", policy: budget(9), at: 100 });
  const late = update(changed.state, { type: "pending-due", seq: changed.state.requests.sequence });
  const refused = update(late.state, {
    type: "answer", seq: changed.state.requests.sequence, answer: { error: { name: "PolicyError", message: "budget_words is wrong" } }, askedAt: 1,
  });
  assert.equal(refused.state.shown, state.shown);
  assert.equal(refused.state.requests.pending, null);
  assert.deepEqual(ofType(refused.effects, "pending"), [{ type: "pending", text: null }]);
  assert.ok(!refused.effects.some((e) => e.type === "show-result" || e.type === "restart-inspection"));
  assert.equal(refused.state.requests.refused?.reason, "budget_words is wrong");
});

test("a running engine's answer is marked pending only once it is late", () => {
  const changed = update(readyPage(), { type: "controls-changed", policy: budget(9), at: 100 });
  const seq = changed.state.requests.sequence;
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
  const late = update(changed.state, { type: "pending-due", seq: changed.state.requests.sequence });
  const back = update(late.state, { type: "controls-changed", policy: { ...defaults }, at: 130 });
  assert.deepEqual(ofType(back.effects, "pending"), [{ type: "pending", text: null }]);
  assert.ok(!back.effects.some((e) => e.type === "pending-timer"));
});
