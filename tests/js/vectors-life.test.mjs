// engine-life.js and page-core.js on the static embedding's vectors: loaded when a run
// first needs them, runs waiting for them unsent, a failure refusing them until Retry, a
// new worker loading them again; the page asking again once they are loaded.
import assert from "node:assert/strict";
import { test } from "node:test";

import { initialState, update } from "../../site/js/core/page-core.js";
import { readsVectors, VECTOR_SCORERS } from "../../site/js/core/scorers.js";
import { policyFields } from "../../site/js/core/state.js";
import { life, RUN_TIMEOUT_MS } from "../../site/js/python/engine-life.js";
import { MSG } from "../../site/js/python/protocol.js";
import { drive, only, posted, readyWithStore } from "./life-driver.mjs";

/** @typedef {import("../../site/js/python/engine-life.js").Event} Event */
/** @typedef {import("../../site/js/python/engine-life.js").Effect} Effect */

/** @param {Effect[]} effects */
const vectorStates = (effects) => only(effects, "vectors-status").map((e) => /** @type {any} */ (e).status.state);

/** @param {number} id @param {boolean} vectors @param {number} [now] @returns {Event} */
const run = (id, vectors, now = 2000) => ({ type: "request", id, kind: "run", body: `{"n":${id}}`, haveTerms: "", vectors, now });

test("the scorers that read the vectors are the engine's embedding and hybrid", () => {
  assert.deepEqual([...VECTOR_SCORERS], ["embedding", "hybrid"]);
  assert.equal(readsVectors("hybrid"), true);
  assert.equal(readsVectors("bm25"), false);
});

test("the minimum similarity is shown with both scorers that read the vectors, RRF k with hybrid alone", () => {
  const fields = Object.fromEntries(policyFields({ questions: [{ id: "q", text: "Q?" }], tenants: [{ id: "a", label: "A" }] }).map((f) => [f.name, f]));
  assert.deepEqual(fields.min_similarity.shownWith, ["scorer", [...VECTOR_SCORERS]]);
  assert.deepEqual(fields.rrf_k.shownWith, ["scorer", "hybrid"]);
  assert.deepEqual(fields.bm25_k1.shownWith, ["scorer", "bm25"]);
});

test("a run that needs the vectors loads them once and waits for them unsent; other runs go on", () => {
  const first = drive([run(2, true)], readyWithStore());
  assert.equal(first.state.vectors, "loading");
  assert.deepEqual(posted(first.effects), [], "the run waits");
  assert.deepEqual(only(first.effects, "load-vectors"), [{ type: "load-vectors", fresh: false }]);
  assert.deepEqual(vectorStates(first.effects), ["loading"]);
  assert.deepEqual(only(first.effects, "wake"), [], "no deadline while it waits");

  const more = drive([run(3, true), run(4, false)], first.state);
  assert.deepEqual(only(more.effects, "load-vectors"), [], "asked for once");
  assert.deepEqual(posted(more.effects), [{ type: MSG.RUN, id: 4, policy: '{"n":4}', haveTerms: "" }]);

  const progress = life(more.state, { type: "vectors-progress", loaded: 10, total: 40 });
  assert.deepEqual(progress.effects, [
    { type: "vectors-status", status: { state: "loading", text: "Downloading the embedding vectors…", loaded: 10, total: 40 } },
  ]);

  const loaded = life(more.state, { type: "vectors-ready", tokens: 29528, dims: 256, now: 5000 });
  assert.equal(loaded.state.vectors, "ready");
  assert.deepEqual(
    posted(loaded.effects).map((m) => m.id),
    [2, 3],
    "the waiting runs go, in order",
  );
  assert.deepEqual(loaded.effects[0], {
    type: "vectors-status",
    status: { state: "ready", text: "Embedding vectors loaded: 29,528 word pieces of 256 dimensions each." },
  });
  assert.deepEqual(only(loaded.effects, "wake"), [{ type: "wake", after: RUN_TIMEOUT_MS }]);
  assert.ok(loaded.state.pending.filter((r) => r.kind === "run").every((r) => r.sent));

  const later = life(loaded.state, run(5, true, 6000));
  assert.deepEqual(posted(later.effects).map((m) => m.id), [5], "loaded vectors: sent at once");
  assert.deepEqual(only(later.effects, "load-vectors"), []);
});

test("a failed load rejects the waiting runs, refuses new ones, and its Retry loads past every cache", () => {
  const waiting = drive([run(2, true), run(3, false)], readyWithStore()).state;
  const failed = life(waiting, { type: "vectors-failed", reason: "the server answered 404 Not Found" });
  assert.equal(failed.state.vectors, "failed");
  assert.deepEqual(only(failed.effects, "reject"), [{ type: "reject", id: 2, reason: "the embedding vectors are not loaded" }]);
  const [status] = only(failed.effects, "vectors-status").map((e) => /** @type {any} */ (e).status);
  assert.equal(status.state, "failed");
  assert.equal(status.retry, true);
  assert.match(status.text, /could not be loaded: the server answered 404 Not Found\. TF-IDF and BM25 still work/);
  assert.deepEqual(failed.state.pending.map((r) => r.id), [3], "the lexical run is still answered");

  const refused = life(failed.state, run(4, true));
  assert.deepEqual(refused.effects, [{ type: "reject", id: 4, reason: "the embedding vectors are not loaded" }]);
  assert.deepEqual(posted(life(failed.state, run(5, false)).effects).map((m) => m.id), [5]);

  const retried = life(failed.state, { type: "vectors-retry" });
  assert.equal(retried.state.vectors, "loading");
  assert.deepEqual(only(retried.effects, "load-vectors"), [{ type: "load-vectors", fresh: true }]);
  assert.deepEqual(life(readyWithStore(), { type: "vectors-retry" }).effects, [], "nothing to retry before a failure");
});

test("a new worker loads the vectors again, and the runs that need them wait for it", () => {
  const loaded = drive([run(2, true), { type: "vectors-ready", tokens: 10, dims: 4, now: 3000 }], readyWithStore()).state;
  const crashed = life(loaded, { type: "worker-error", reason: "out of memory", now: 4000 });
  assert.equal(crashed.state.vectors, "loading");
  assert.deepEqual(only(crashed.effects, "load-vectors"), [{ type: "load-vectors", fresh: false }]);
  assert.ok(
    crashed.effects.findIndex((e) => e.type === "spawn") < crashed.effects.findIndex((e) => e.type === "load-vectors"),
    "loaded by the new worker",
  );
  const asked = life(crashed.state, run(6, true, 4100));
  assert.deepEqual(posted(asked.effects), [], "waits for the new worker's vectors");

  // Never loaded: a new worker does not load them.
  const plain = life(readyWithStore(), { type: "worker-error", reason: "x", now: 4000 });
  assert.deepEqual(only(plain.effects, "load-vectors"), []);
  assert.equal(plain.state.vectors, "none");
});

test("Python failing while the vectors load says so, and its Retry starts over without them", () => {
  const loading = drive([{ type: "start" }, run(2, true, 0)]).state;
  assert.equal(loading.vectors, "loading");
  const failed = life(loading, { type: "failed", reason: "the wheel failed to load" });
  assert.equal(failed.state.vectors, "none");
  const [status] = only(failed.effects, "vectors-status").map((e) => /** @type {any} */ (e).status);
  assert.deepEqual(status, { state: "failed", text: "The embedding vectors were not loaded: Python stopped." });
  assert.deepEqual(only(failed.effects, "reject").map((e) => /** @type {any} */ (e).id), [2]);
  assert.deepEqual(only(life(failed.state, { type: "retry" }).effects, "load-vectors"), []);
});

test("before the worker exists, a run that needs the vectors has the new worker load them", () => {
  const asked = drive([run(1, true, 0)]);
  assert.deepEqual(only(asked.effects, "load-vectors"), [], "no worker yet");
  assert.equal(asked.state.vectors, "loading");
  const started = life(asked.state, { type: "start" });
  assert.deepEqual(only(started.effects, "load-vectors"), [{ type: "load-vectors", fresh: false }]);
  assert.deepEqual(posted(started.effects), [], "the run still waits");
});

const STORE_DATA = {
  title: "t",
  tenants: [{ id: "team-a", label: "Team A" }],
  questions: [{ id: "q", text: "Q?", supporting: { "team-a": [] } }],
  records: [],
};

/** A page whose engine is ready, showing the build's (default) result. */
function page() {
  const fields = initialState({
    boot: { store: STORE_DATA, result: /** @type {any} */ ({ policy: {}, selected: [], ranked: [], records: [{ id: "A1" }] }) },
    remembered: null,
    search: "",
    notes: /** @type {any} */ ({ notebook: { text: "", observations: [], baseline: null }, storage: "ok", recovered: null }),
  }).state;
  return { ...fields, requests: { ...fields.requests, engine: /** @type {const} */ ("ready") } };
}

test("the page shows each vectors status, and asks again once they load after its request was refused", () => {
  const start = page();
  const shown = update(start, { type: "vectors-status", status: { state: "loading", text: "…" } });
  assert.deepEqual(shown.effects, [{ type: "show-vectors-status", status: { state: "loading", text: "…" } }]);

  const embedding = { ...start.policy, scorer: /** @type {const} */ ("embedding") };
  const failedStatus = { state: /** @type {const} */ ("failed"), text: "The embedding vectors could not be loaded: offline.", retry: true, reason: "offline" };
  const failing = update({ ...start, policy: embedding, requests: { ...start.requests, sequence: 4 } }, { type: "vectors-status", status: failedStatus });
  assert.equal(failing.state.requests.vectorsFailure, "offline");
  const refused = update(failing.state, { type: "request-failed", seq: 4, reason: "the embedding vectors are not loaded" });
  assert.deepEqual(refused.state.requests.refused, { policy: embedding, reason: "the embedding vectors are not loaded", cause: "vectors" });
  assert.deepEqual(refused.state.policy, start.shown.policy, "the controls go back to the settings shown");
  const stale = update({ ...failing.state, requests: { ...failing.state.requests, sequence: 5 } }, { type: "request-failed", seq: 4, reason: "the embedding vectors are not loaded" });
  assert.equal(stale.state.requests.refused, null, "an older request's refusal changes nothing");

  const loaded = update(refused.state, { type: "vectors-status", status: { state: "ready", text: "loaded" } });
  assert.deepEqual(
    loaded.effects.filter((e) => e.type === "request").map((e) => /** @type {any} */ (e).policy),
    [embedding],
  );
  assert.deepEqual(loaded.effects.filter((e) => e.type === "write-controls").map((e) => /** @type {any} */ (e).policy), [embedding]);
  assert.equal(loaded.state.requests.refused, null);
  const notAgain = update(start, { type: "vectors-status", status: { state: "ready", text: "loaded" } });
  assert.deepEqual(notAgain.effects.filter((e) => e.type === "request"), [], "an answered page asks nothing");
});
