// The editor's check of a draft store across the worker protocol: EngineClient.checkStore
// posts rw:check (after the vectors when a step's scorer reads them) and resolves with the
// engine's object; the worker answers it with check_store_json, no store open needed, and
// leaves the store in force alone. Python is faked; tests/test_engine_pyodide.py runs the
// real one.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { EngineClient, stepsReadVectors } from "../../site/js/python/engine-client.js";
import { MSG } from "../../site/js/python/protocol.js";
import { receive } from "../../site/js/python/worker-loop.js";
import { createWorkerState } from "../../site/js/python/worker-state.js";
import { READY } from "./life-driver.mjs";

const CHECKED = { claims: [], unchecked: [], steps: 1, checked: 3, problems: [] };
const step = (/** @type {string} */ scorer, part = "table") => ({ title: "S", look_for: "M1", policy: { scorer }, shows: { part } });
const draft = (/** @type {string[]} */ scorers) => JSON.stringify({ guides: [{ id: "g", steps: scorers.map(step) }] });

const saved = { Worker: globalThis.Worker, document: globalThis.document, postMessage: globalThis.postMessage, setTimeout: globalThis.setTimeout };
afterEach(() => {
  Object.assign(globalThis, saved);
});

/** A page with a fake Worker: what the client posts to it, and a way to answer as the worker would. */
function page() {
  /** @type {any[]} */
  const sent = [];
  /** @type {((event: {data: any}) => void) | null} */
  let listener = null;
  class FakeWorker {
    /** @param {any} message */
    postMessage(message) {
      sent.push(message);
    }
    /** @param {string} type @param {(event: any) => void} handler */
    addEventListener(type, handler) {
      if (type === "message") listener = handler;
    }
    terminate() {}
  }
  // The client's wake-ups (a run's time limit) must not keep the test process alive.
  const unref = (/** @type {() => void} */ fn, /** @type {number} */ ms) => saved.setTimeout(fn, ms).unref();
  Object.assign(globalThis, { Worker: FakeWorker, document: { documentElement: { dataset: {} } }, setTimeout: unref });
  const runtime = /** @type {any} */ ({ vectorsURL: "vectors.rwse", vectorsBytes: 10, pageModules: [] });
  const client = new EngineClient(runtime, new URL("https://example.test/engine-worker.js"));
  client.start();
  client.boot();
  const answer = (/** @type {any} */ message) => listener?.({ data: message });
  answer({ ...READY, type: MSG.READY });
  return { client, sent, answer };
}

test("stepsReadVectors: a draft whose guided step runs under a scorer that reads the vectors, or shows the scoreboard", () => {
  assert.equal(stepsReadVectors(draft(["tfidf", "bm25"])), false);
  const scoreboard = JSON.stringify({ guides: [{ id: "g", steps: [step("tfidf"), step("bm25", "scoreboard")] }] });
  assert.equal(stepsReadVectors(scoreboard), true, "the scoreboard measures the embedding scorers too");
  assert.equal(stepsReadVectors(draft(["tfidf", "hybrid"])), true);
  assert.equal(stepsReadVectors(draft(["embedding"])), true);
  assert.equal(stepsReadVectors("{not json"), false);
  assert.equal(stepsReadVectors('{"guides": [{"steps": null}, null, {"steps": [null, {"policy": null}]}]}'), false);
});

test("checkStore posts rw:check with the draft's text and resolves with the engine's object, unmerged", async () => {
  const { client, sent, answer } = page();
  const text = draft(["bm25"]);
  const checking = client.checkStore(text);
  const posted = sent.filter((m) => m.type === MSG.CHECK);
  assert.deepEqual(posted, [{ type: MSG.CHECK, id: posted[0].id, store: text }]);
  answer({ type: MSG.RESULT, id: posted[0].id, response: JSON.stringify(CHECKED), parts: null });
  assert.deepEqual(await checking, CHECKED);
});

test("a draft with an embedding step is checked once the vectors are loaded", async () => {
  const { client, sent, answer } = page();
  const checking = client.checkStore(draft(["tfidf", "embedding"]));
  assert.deepEqual(
    sent.filter((m) => m.type === MSG.VECTORS || m.type === MSG.CHECK).map((m) => m.type),
    [MSG.VECTORS],
    "the vectors are asked for, and the check waits for them",
  );
  answer({ type: MSG.VECTORS_READY, tokens: 5, dims: 2 });
  const posted = sent.filter((m) => m.type === MSG.CHECK);
  assert.equal(posted.length, 1);
  answer({ type: MSG.RESULT, id: posted[0].id, response: JSON.stringify(CHECKED), parts: null });
  assert.deepEqual(await checking, CHECKED);
});

test("the worker answers rw:check with check_store_json, with no store open, and the store in force stays", async () => {
  const state = createWorkerState(fetch, new URL("https://example.test/engine-worker.js"));
  /** @type {string[]} */
  const asked = [];
  let destroyed = 0;
  const checkJson = Object.assign((/** @type {string} */ text) => (asked.push(text), JSON.stringify(CHECKED)), {
    destroy: () => destroyed++,
  });
  state.engineReady = Promise.resolve(/** @type {any} */ ({ checkJson: () => checkJson }));
  /** @type {any[]} */
  const replies = [];
  globalThis.postMessage = /** @type {any} */ ((/** @type {any} */ message) => replies.push(message));
  receive(state, { type: MSG.CHECK, id: 4, store: "{}" });
  await state.work;
  assert.deepEqual(asked, ["{}"]);
  assert.equal(destroyed, 1, "the proxy of check_store_json is let go");
  assert.deepEqual(replies, [{ type: MSG.RESULT, id: 4, response: JSON.stringify(CHECKED), parts: null }]);
  assert.equal(state.current, null, "a check opens no store");
  clearTimeout(state.idleTimer);
});
