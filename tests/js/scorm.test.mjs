// SCORM 1.2 in scorm.js with windows and an API made of plain objects: where ADL's
// discovery looks and where it stops, and what the reporter tells the API, in order:
// when it commits, what a refused commit leaves for the next, and what leaving calls.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MAX_PARENT_HOPS, ScormReporter, findApi } from "../../site/js/lms/scorm.js";

const API = { LMSInitialize: () => "true", name: "the LMS's API" };

/** A window; its parent is itself at the top, as in browsers. @param {object} [fields] */
function win(fields = {}) {
  /** @type {any} */
  const w = { opener: null, ...fields };
  w.parent ??= w;
  w.top ??= w.parent === w ? w : w.parent.top;
  return w;
}

/** A chain of `levels` frames under `top`; returns the innermost. @param {any} top @param {number} levels */
function framesUnder(top, levels) {
  let w = top;
  for (let i = 0; i < levels; i += 1) w = win({ parent: w, top });
  return w;
}

test("the API is found in this window or a parent up to seven levels up, not beyond", () => {
  assert.equal(findApi(win({ API })), API);
  assert.equal(MAX_PARENT_HOPS, 7);
  assert.equal(findApi(framesUnder(win({ API }), 7)), API);
  assert.equal(findApi(framesUnder(win({ API }), 8)), null);
  assert.equal(findApi(framesUnder(win(), 3)), null);
});

test("then in the opener and its parents (a popup opened by a frame of the LMS)", () => {
  const lms = win({ API });
  const menuFrame = framesUnder(lms, 2);
  assert.equal(findApi(win({ opener: lms })), API);
  assert.equal(findApi(win({ opener: menuFrame })), API);
});

test("then in the top window's opener and its parents (a player popup that frames the content)", () => {
  const lms = win({ API });
  const player = win({ opener: framesUnder(lms, 1) });
  const content = framesUnder(player, 2);
  assert.equal(content.opener, null);
  assert.equal(findApi(content), API);
});

test("another origin's window (reading it throws) is passed over, and something else named API is no API", () => {
  const foreign = win();
  Object.defineProperty(foreign, "API", { get: () => { throw new Error("SecurityError"); } });
  const lms = win({ API });
  assert.equal(findApi(framesUnder(foreign, 1)), null);
  assert.equal(findApi(win({ opener: foreign, parent: undefined })), null);
  assert.equal(findApi(win({ API: { LMSInitialize: "no" }, opener: lms })), API);
});

/**
 * An API that records each call and keeps values; LMSCommit answers what `commits` says
 * ("true" unless told otherwise; "throw" throws, as a closed window's API does).
 * @param {Record<string, string>} data
 */
function recordingApi(data = {}) {
  /** @type {any[][]} */
  const calls = [];
  const api = {
    calls,
    commits: "true",
    LMSInitialize: () => (calls.push(["LMSInitialize"]), "true"),
    LMSGetValue: (/** @type {string} */ k) => (calls.push(["LMSGetValue", k]), data[k] ?? ""),
    LMSSetValue: (/** @type {string} */ k, /** @type {string} */ v) => (calls.push(["LMSSetValue", k, v]), (data[k] = v), "true"),
    LMSCommit: () => {
      calls.push(["LMSCommit"]);
      if (api.commits === "throw") throw new Error("The window is closed");
      return api.commits;
    },
    LMSFinish: () => (calls.push(["LMSFinish"]), "true"),
  };
  return api;
}

/** The calls' names, LMSSetValue with its element. @param {any[][]} calls */
const named = (calls) => calls.map((c) => c.slice(0, 2).join(" "));

/** Let the reporter's end-of-task commit run. */
const endOfTask = () => new Promise((resolve) => setTimeout(resolve, 0));

const resume = { query: "budget_words=9", stage: 3, step: null, progress: { reached: [], first: {}, completed: null }, baseline: null, notes: "n" };
const check = { step: "g:0", predicted: ["M5"], tray: ["M5"], matched: true, latencyMs: 1500 };

test("the reporter: incomplete and committed at start; what a checked step brings goes in one commit at the end of its task", async () => {
  const api = recordingApi({ "cmi.core.lesson_status": "not attempted", "cmi.interactions._count": "2" });
  const reporter = new ScormReporter(api, { score: true, now: () => 0 });
  assert.deepEqual(named(api.calls).filter((c) => !c.startsWith("LMSGetValue")), ["LMSInitialize", "LMSSetValue cmi.core.lesson_status", "LMSCommit"]);
  api.calls.length = 0;
  reporter.recordPrediction(check, new Date(2026, 0, 1, 9, 0, 0));
  reporter.setScore({ raw: 8 });
  reporter.complete();
  assert.ok(api.calls.some((c) => c[1] === "cmi.interactions.2.id"), "numbered after the two already there");
  assert.ok(!api.calls.some((c) => c[0] === "LMSCommit"), "not before the task's other changes are set");
  await endOfTask();
  assert.equal(api.calls.filter((c) => c[0] === "LMSCommit").length, 1);
  assert.deepEqual(named(api.calls).slice(-2), ["LMSSetValue cmi.core.lesson_status", "LMSCommit"]);
});

test("resume data is set only when it changes, and committed only when asked; nothing set, nothing committed", () => {
  const api = recordingApi();
  const reporter = new ScormReporter(api, { score: true, now: () => 0 });
  api.calls.length = 0;
  assert.equal(reporter.commit(), true);
  assert.deepEqual(api.calls, []);
  reporter.suspend(resume);
  reporter.suspend(resume);
  assert.deepEqual(named(api.calls), ["LMSSetValue cmi.suspend_data"]);
  reporter.commit();
  reporter.commit();
  assert.deepEqual(named(api.calls), ["LMSSetValue cmi.suspend_data", "LMSCommit"]);
});

test("a refused commit is said once, retried with the next change, and said again once the LMS holds everything", async () => {
  /** @type {boolean[]} */
  const heard = [];
  const api = recordingApi();
  const reporter = new ScormReporter(api, { score: true, now: () => 0, onSaved: (saved) => heard.push(saved) });
  for (const failure of ["false", "throw"]) {
    api.commits = failure;
    reporter.recordPrediction(check, new Date());
    await endOfTask();
    reporter.suspend({ ...resume, notes: failure });
    assert.equal(reporter.commit(), false, "a refusal leaves it unsaved");
    assert.deepEqual(heard, failure === "false" ? [false] : [false, true, false]);
    api.commits = "true";
    reporter.setScore({ raw: 8 });
    await endOfTask();
    assert.deepEqual(heard.at(-1), true);
    assert.equal(reporter.commit(), true);
  }
  assert.equal(api.calls.filter((c) => c[0] === "LMSCommit").length, 1 + 2 * 3);
});

test("leaving sets the resume data, exit and session time, then LMSFinish, the last call, once; it commits nothing itself", async () => {
  let now = 1000;
  const api = recordingApi();
  const reporter = new ScormReporter(api, { score: true, now: () => now });
  now = 1000 + 83_456;
  reporter.recordPrediction(check, new Date());
  reporter.finish(resume);
  reporter.finish(resume);
  reporter.setScore({ raw: 8 });
  reporter.complete();
  await endOfTask();
  const tail = named(api.calls).slice(-4);
  assert.deepEqual(tail, ["LMSSetValue cmi.suspend_data", "LMSSetValue cmi.core.exit", "LMSSetValue cmi.core.session_time", "LMSFinish"]);
  assert.deepEqual(api.calls.at(-2), ["LMSSetValue", "cmi.core.session_time", "0000:01:23.45"]);
  assert.equal(api.calls.filter((c) => c[0] === "LMSCommit").length, 1, "only the start's");
});

test("a completed activity stays completed; without a score no score is set", () => {
  const api = recordingApi({ "cmi.core.lesson_status": "completed" });
  const reporter = new ScormReporter(api, { score: false, now: () => 0 });
  reporter.setScore({ raw: 50 });
  reporter.complete();
  assert.ok(!api.calls.some((c) => c[0] === "LMSSetValue" && (c[1] === "cmi.core.lesson_status" || c[1].startsWith("cmi.core.score"))));
  const scored = recordingApi();
  const second = new ScormReporter(scored, { score: true, now: () => 0 });
  second.setScore({ raw: 23 });
  second.complete();
  second.complete();
  const set = scored.calls.filter((c) => c[0] === "LMSSetValue").map((c) => `${c[1]}=${c[2]}`);
  assert.deepEqual(set, ["cmi.core.lesson_status=incomplete", "cmi.core.score.min=0", "cmi.core.score.max=100", "cmi.core.score.raw=23", "cmi.core.lesson_status=completed"]);
});
