// engine-life.js: every transition of the engine worker's life, event by event, with
// the effects engine-client.js performs for each.
import assert from "node:assert/strict";
import { test } from "node:test";

import { life, MAX_CRASHES_PER_MINUTE, REOPEN_ID, RUN_TIMEOUT_MS } from "../../site/js/python/engine-life.js";
import { MSG } from "../../site/js/python/protocol.js";
import { drive, only, posted, READY, readyWithStore, STORE_A } from "./life-driver.mjs";

/** @typedef {import("../../site/js/python/engine-life.js").Event} Event */
/** @typedef {import("../../site/js/python/engine-life.js").Effect} Effect */

const STORE_B = '{"records":[{"id":"B1"}]}';

/** @param {Effect[]} effects */
const statuses = (effects) => only(effects, "status").map((e) => /** @type {any} */ (e).status);

test("prerendered → loading: one worker, which waits for boot; a second start does nothing", () => {
  const { state, effects } = drive([{ type: "start" }]);
  assert.equal(state.phase, "loading");
  assert.deepEqual(effects, [
    { type: "status", status: { state: "loading", text: "Starting Python…", step: 0, of: 4 } },
    { type: "spawn", fresh: false, boot: false },
  ]);
  assert.deepEqual(life(state, { type: "start" }).effects, []);
});

test("boot: told to the worker once; before the worker exists, the worker boots at once when it starts", () => {
  const started = drive([{ type: "start" }]).state;
  assert.deepEqual(life(started, { type: "boot" }).effects, [{ type: "post", message: { type: MSG.BOOT } }]);
  assert.deepEqual(drive([{ type: "boot" }], life(started, { type: "boot" }).state).effects, [], "only once");
  const early = drive([{ type: "boot" }, { type: "start" }]);
  assert.deepEqual(only(early.effects, "spawn"), [{ type: "spawn", fresh: false, boot: true }]);
  assert.deepEqual(posted(early.effects), []);
});

test("loading → ready: progress on the way; the boot (fresh or snapshot) is reported", () => {
  const { state, effects } = drive([
    { type: "start" },
    { type: "progress", step: 2, of: 4, label: "Starting Python" },
    { ...READY, now: 5 },
  ]);
  assert.equal(state.phase, "ready");
  assert.deepEqual(statuses(effects).slice(1), [
    { state: "loading", text: "Starting Python…", step: 2, of: 4 },
    {
      state: "ready",
      text: "Python 3.14.0 is running engine 0.1.0 in your browser (ready in 1.3 s). Every change is recomputed live.",
    },
  ]);
  assert.deepEqual(only(effects, "python-boot"), [{ type: "python-boot", boot: "fresh" }]);

  const restored = drive([{ type: "start" }, { ...READY, boot: "snapshot", now: 5 }]).effects;
  assert.deepEqual(only(restored, "python-boot"), [{ type: "python-boot", boot: "snapshot" }]);
  assert.match(statuses(restored)[1].text, /\(ready in 1\.3 s, restored from this browser's saved copy\)/);
  assert.deepEqual(drive([{ type: "progress", step: 3, of: 4, label: "late" }], state).effects, [], "no progress once ready");
});

test("loading → failed, by the worker's report or its death: the worker goes, runs are rejected, opens wait", () => {
  for (const death of [
    { type: "failed", reason: "Python's standard library failed to load (HTTP 404)" },
    { type: "worker-error", reason: "Python's standard library failed to load (HTTP 404)", now: 9 },
  ]) {
    const { state, effects } = drive([
      { type: "start" },
      { type: "request", id: 1, kind: "open", body: STORE_A, kept: "A", now: 1 },
      { type: "request", id: 2, kind: "run", body: "{}", now: 2 },
      /** @type {Event} */ (death),
    ]);
    assert.equal(state.phase, "failed");
    const last = effects.slice(-3);
    assert.deepEqual(last.slice(0, 2), [
      { type: "terminate" },
      { type: "reject", id: 2, reason: "Python's standard library failed to load (HTTP 404)" },
    ]);
    assert.deepEqual(last[2], {
      type: "status",
      status: {
        state: "failed",
        text: "Python could not start: Python's standard library failed to load (HTTP 404). The results shown were computed when the page was built; check your connection and retry.",
      },
    });
    assert.deepEqual(state.pending.map((r) => [r.id, r.sent]), [[1, false]], "the open waits for the next worker");
  }
});

test("a worker that cannot even be created fails the load", () => {
  const { state, effects } = drive([{ type: "start" }, { type: "spawn-failed", reason: "blocked" }]);
  assert.equal(state.phase, "failed");
  assert.match(statuses(effects).at(-1).text, /^Python could not start: the worker could not start \(blocked\)\./);
});

test("while failed, new requests are refused at once", () => {
  const failed = drive([{ type: "start" }, { type: "failed", reason: "x" }]).state;
  assert.deepEqual(life(failed, { type: "request", id: 3, kind: "run", body: "{}", now: 0 }).effects, [
    { type: "reject", id: 3, reason: "Python is not running" },
  ]);
  assert.deepEqual(life(failed, { type: "request", id: 4, kind: "open", body: STORE_B, now: 0 }).effects, [
    { type: "reject", id: 4, reason: "Python is not running" },
  ]);
  assert.deepEqual(life(failed, { type: "failed", reason: "again" }).effects, [], "a failure is reported once");
});

test("failed → retry → loading: a fresh worker (past every cache) that boots, opens the store in force, then the waiting opens", () => {
  const ready = readyWithStore();
  const failed = drive([
    { type: "request", id: 2, kind: "open", body: STORE_B, kept: "B", now: 1001 },
    { type: "failed", reason: "x" },
  ], ready).state;
  const { state, effects } = drive([{ type: "retry" }], failed);
  assert.equal(state.phase, "loading");
  assert.equal(state.fresh, true);
  assert.deepEqual(effects, [
    { type: "status", status: { state: "loading", text: "Starting Python…", step: 0, of: 4 } },
    { type: "spawn", fresh: true, boot: true },
    { type: "post", message: { type: MSG.OPEN, id: REOPEN_ID, store: STORE_A } },
    { type: "post", message: { type: MSG.OPEN, id: 2, store: STORE_B } },
  ]);
  // The open that waited is answered by the new worker; B is then the store in force.
  const after = drive([
    { ...READY, now: 2000 },
    { type: "reply", id: REOPEN_ID, response: '{"records":1,"words":[3],"recency":[1]}', now: 2001 },
    { type: "reply", id: 2, response: '{"records":1,"words":[5],"recency":[1]}', now: 2002 },
  ], state);
  assert.deepEqual(only(after.effects, "opened"), [{ type: "opened", id: 2, reply: { records: 1, words: [5], recency: [1] } }]);
  assert.deepEqual(after.state.store, { text: STORE_B, kept: "B", words: [5], recency: [1] });
  // A later restart still fetches past every cache, as today's Retry did.
  const crashed = life(after.state, { type: "worker-error", reason: "boom", now: 3000 });
  assert.deepEqual(only(crashed.effects, "spawn"), [{ type: "spawn", fresh: true, boot: true }]);
});

test("retry while a worker is loading stops it first and rejects its runs", () => {
  const { effects } = drive([
    { type: "start" },
    { type: "request", id: 1, kind: "run", body: "{}", now: 0 },
    { type: "retry" },
  ]);
  assert.deepEqual(effects.slice(3, 5), [{ type: "terminate" }, { type: "reject", id: 1, reason: "Python was restarted" }]);
  assert.deepEqual(only(effects, "spawn").at(-1), { type: "spawn", fresh: true, boot: false });
});

test("ready → crash → loading: a new worker, the store in force opened again before any run", () => {
  const ready = readyWithStore();
  const { state, effects } = drive([
    { type: "request", id: 2, kind: "run", body: '{"budget_words":9}', now: 1100 },
    { type: "request", id: 3, kind: "open", body: STORE_B, kept: "B", now: 1101 },
    { type: "worker-error", reason: "simulated crash", now: 1200 },
  ], ready);
  assert.equal(state.phase, "loading");
  assert.deepEqual(effects.slice(-6), [
    { type: "terminate" },
    { type: "reject", id: 2, reason: "simulated crash" },
    { type: "status", status: { state: "loading", text: "Python stopped (simulated crash); restarting it…", step: 0, of: 4 } },
    { type: "spawn", fresh: false, boot: true },
    { type: "post", message: { type: MSG.OPEN, id: REOPEN_ID, store: STORE_A } },
    { type: "post", message: { type: MSG.OPEN, id: 3, store: STORE_B } },
  ]);
  // The page's next run goes to the new worker, after those opens.
  assert.deepEqual(posted(life(state, { type: "request", id: 4, kind: "run", body: "{}", now: 1300 }).effects), [
    { type: MSG.RUN, id: 4, policy: "{}", haveTerms: "" },
  ]);
});

test(`more than ${MAX_CRASHES_PER_MINUTE} crashes within a minute: give up; older crashes do not count`, () => {
  let state = readyWithStore(0);
  const crashAt = (/** @type {number} */ now) => {
    const next = drive([{ type: "worker-error", reason: "boom", now }, { ...READY, now }], state);
    state = next.state;
    return next.effects;
  };
  crashAt(1_000);
  crashAt(2_000);
  crashAt(3_000);
  assert.equal(state.phase, "ready", `${MAX_CRASHES_PER_MINUTE} restarts within a minute`);
  const fourth = life(state, { type: "worker-error", reason: "boom", now: 4_000 });
  assert.equal(fourth.state.phase, "failed");
  assert.match(statuses(fourth.effects)[0].text, /^Python could not start: boom, repeatedly\./);
  assert.deepEqual(only(fourth.effects, "spawn"), []);

  // Spread over more than a minute, each crash is restarted.
  state = readyWithStore(0);
  for (const now of [1_000, 30_000, 61_500, 90_000, 122_000]) crashAt(now);
  assert.equal(state.phase, "ready");
});

test("the run timeout counts only while ready: from the request, or from ready for one made while loading", () => {
  const loading = drive([{ type: "start" }, { type: "boot" }, { type: "request", id: 1, kind: "run", body: "{}", now: 0 }]);
  assert.deepEqual(only(loading.effects, "wake"), [], "no timer while Python loads");
  assert.deepEqual(life(loading.state, { type: "tick", now: 60_000 }).effects, [], "a tick while loading is no crash");

  const ready = drive([{ ...READY, now: 20_000 }], loading.state);
  assert.deepEqual(only(ready.effects, "wake"), [{ type: "wake", after: RUN_TIMEOUT_MS }]);
  assert.deepEqual(life(ready.state, { type: "tick", now: 20_000 + RUN_TIMEOUT_MS - 1 }).effects, [{ type: "wake", after: 1 }]);
  const late = life(ready.state, { type: "tick", now: 20_000 + RUN_TIMEOUT_MS });
  assert.equal(late.state.phase, "loading");
  assert.equal(statuses(late.effects)[0].text, "Python stopped (the engine stopped answering); restarting it…");

  // A request made while ready gets its timer; once answered, a tick finds nothing late.
  const asked = life(readyWithStore(), { type: "request", id: 2, kind: "run", body: "{}", now: 5_000 });
  assert.deepEqual(only(asked.effects, "wake"), [{ type: "wake", after: RUN_TIMEOUT_MS }]);
  const answered = life(asked.state, { type: "reply", id: 2, response: "{}", now: 5_001 });
  assert.deepEqual(life(answered.state, { type: "tick", now: 5_000 + RUN_TIMEOUT_MS }).effects, []);
});

test("a silent worker found late before it was ever ready is a failed load, not a restart", () => {
  const failed = drive([{ type: "start" }, { type: "failed", reason: "x" }]).state;
  assert.deepEqual(life(failed, { type: "tick", now: 1e9 }).effects, []);
});

test("replies: an accepted store comes into force; a refused one leaves the one before; runs carry their parts and the store they came from", () => {
  const ready = readyWithStore();
  assert.deepEqual(ready.store, { text: STORE_A, kept: "A", words: [3], recency: [1] });
  const refusal = '{"error":{"name":"InvalidStore","message":"records[0].text: is missing","problems":[]}}';
  const { state, effects } = drive([
    { type: "request", id: 2, kind: "open", body: STORE_B, kept: "B", now: 1 },
    { type: "request", id: 3, kind: "run", body: "{}", now: 2 },
    { type: "reply", id: 2, response: refusal, now: 3 },
    { type: "reply", id: 3, response: '{"records":[]}', parts: "[[]]", now: 4 },
  ], ready);
  assert.deepEqual(only(effects, "opened"), [{ type: "opened", id: 2, reply: JSON.parse(refusal) }]);
  assert.deepEqual(only(effects, "answered"), [{ type: "answered", id: 3, response: '{"records":[]}', parts: "[[]]", store: ready.store }]);
  assert.equal(state.store, ready.store);
  assert.deepEqual(state.pending, []);
  assert.deepEqual(posted(effects), [
    { type: MSG.OPEN, id: 2, store: STORE_B },
    { type: MSG.RUN, id: 3, policy: "{}", haveTerms: "" },
  ]);
  // An unreadable reply is refused too, and an unknown id is ignored.
  const garbled = drive([
    { type: "request", id: 4, kind: "open", body: STORE_B, kept: "B", now: 5 },
    { type: "reply", id: 4, response: "<html>", now: 6 },
    { type: "reply", id: 99, response: "{}", now: 7 },
  ], state);
  assert.equal(/** @type {any} */ (only(garbled.effects, "opened")[0]).reply.error.name, "InternalError");
  assert.equal(garbled.state.store, ready.store);
});

test("requests made before the worker exists wait for it, in order", () => {
  const { effects } = drive([
    { type: "request", id: 1, kind: "open", body: STORE_A, kept: "A", now: 0 },
    { type: "request", id: 2, kind: "run", body: "{}", now: 0 },
    { type: "start" },
  ]);
  assert.deepEqual(effects, [
    { type: "status", status: { state: "loading", text: "Starting Python…", step: 0, of: 4 } },
    { type: "spawn", fresh: false, boot: false },
    { type: "post", message: { type: MSG.OPEN, id: 1, store: STORE_A } },
    { type: "post", message: { type: MSG.RUN, id: 2, policy: "{}", haveTerms: "" } },
  ]);
});

test("a request that throws in the worker is rejected and counts as a crash", () => {
  const asked = life(readyWithStore(), { type: "request", id: 2, kind: "run", body: "{}", now: 1_100 });
  const { state, effects } = life(asked.state, { type: "run-error", id: 2, reason: "RangeError: out of memory", now: 1_200 });
  assert.deepEqual(effects.slice(0, 2), [{ type: "reject", id: 2, reason: "RangeError: out of memory" }, { type: "terminate" }]);
  assert.equal(state.phase, "loading");
  assert.deepEqual(state.crashes, [1_200]);
});

test("the store in force refused by a restarted worker counts as a crash", () => {
  const restarted = drive([{ type: "worker-error", reason: "boom", now: 2_000 }, { ...READY, now: 3_000 }], readyWithStore()).state;
  const refusal = '{"error":{"name":"InternalError","message":"MemoryError","problems":[]}}';
  const { state, effects } = life(restarted, { type: "reply", id: REOPEN_ID, response: refusal, now: 3_001 });
  assert.equal(state.phase, "loading");
  assert.match(statuses(effects)[0].text, /the open store could not be opened again \(MemoryError\)/);
  assert.deepEqual(state.crashes, [2_000, 3_001]);
  // Accepted again, nothing changes.
  const fine = life(restarted, { type: "reply", id: REOPEN_ID, response: '{"records":1,"words":[3],"recency":[1]}', now: 3_001 });
  assert.deepEqual(fine.effects, []);
  assert.deepEqual(fine.state.pending, []);
});

test("a run names the per-term parts the client holds, and a new worker is told the same", () => {
  const ready = readyWithStore();
  const asked = life(ready, { type: "request", id: 2, kind: "run", body: "{}", haveTerms: "store:question", now: 1100 });
  assert.deepEqual(posted(asked.effects), [{ type: MSG.RUN, id: 2, policy: "{}", haveTerms: "store:question" }]);
  const restarted = life(asked.state, { type: "worker-error", reason: "boom", now: 1200 });
  // A crashed worker's runs are rejected (the page asks again), so nothing is re-sent.
  assert.deepEqual(only(restarted.effects, "reject"), [{ type: "reject", id: 2, reason: "boom" }]);
});

test("an evaluation and a sweep are posted as rw:evaluate and answered like a run", () => {
  const state = readyWithStore();
  const asked = life(state, { type: "request", id: 7, kind: "evaluate", body: '{"recency_weight":0.5}', now: 1100 });
  const swept = life(asked.state, { type: "request", id: 8, kind: "sweep", body: "{}", field: "mmr_lambda", now: 1101 });
  assert.deepEqual(posted([...asked.effects, ...swept.effects]), [
    { type: MSG.EVALUATE, id: 7, policy: '{"recency_weight":0.5}', sweep: "" },
    { type: MSG.EVALUATE, id: 8, policy: "{}", sweep: "mmr_lambda" },
  ]);
  const answered = life(swept.state, { type: "reply", id: 7, response: '{"k":3}', now: 1200 });
  assert.deepEqual(
    answered.effects.filter((e) => e.type === "answered").map((e) => /** @type {any} */ (e).response),
    ['{"k":3}'],
  );
  const died = life(answered.state, { type: "worker-error", reason: "gone", now: 1300 });
  assert.ok(died.effects.some((e) => e.type === "reject" && /** @type {any} */ (e).id === 8), "a pending sweep is rejected with the runs");
});
