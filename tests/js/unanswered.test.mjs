// What the page says while its views do not answer the controls: every setting it names is
// one that differs, with the value on screen first.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { defaultPolicy, policyFields } from "../../site/js/core/state.js";
import { differences, pendingText, refusalText } from "../../site/js/core/unanswered.js";

const siteStore = JSON.parse(readFileSync(new URL("../../fixtures/store.json", import.meta.url), "utf8"));
const otherStore = JSON.parse(readFileSync(new URL("../../fixtures/support-store.json", import.meta.url), "utf8"));
const fields = policyFields(siteStore);
const defaults = defaultPolicy(fields);
const shown = /** @type {any} */ ({ policy: defaults, records: siteStore.records.map((/** @type {any} */ r) => ({ id: r.id })) });

test("differences name each differing setting by its label, the value on screen first, as the controls show values", () => {
  assert.deepEqual(differences(defaults, defaults, fields), []);
  const asked = { ...defaults, scorer: /** @type {const} */ ("embedding"), previous_sessions: true, question_text: "where" };
  assert.deepEqual(differences(defaults, asked, fields), [
    "Include previous sessions: off (not on)",
    "Scorer: TF-IDF cosine (not Static embedding (meaning))",
    "Your question: none (not “where”)",
  ]);
});

test("the pending note follows Python's phase and names what the figures are for, at most three settings", () => {
  const asked = { ...defaults, budget_words: 9, max_records: 1, recency_weight: 0.5, max_age_hours: 10 };
  const base = { store: siteStore, shown, policy: asked, fields };
  assert.match(pendingText({ ...base, engine: "loading" }), /^Waiting for Python to start and compute these settings: the figures shown are for .*; and 1 more setting\.$/);
  assert.match(pendingText({ ...base, engine: "ready" }), /^Computing these settings: /);
  assert.match(pendingText({ ...base, engine: "failed" }), /^Python is not running/);
  assert.equal(pendingText({ ...base, policy: defaults, engine: "ready" }), "Computing these settings.");
  // Another store opened before Python holds it: the figures are the site's own store's.
  assert.match(pendingText({ ...base, store: otherStore, engine: "loading" }), /the figures shown are the site's own store's, not the store you opened\.$/);
});

test("a refusal names the scorer asked for, why it cannot be computed, and the scorer the page is back on", () => {
  const embedding = { ...defaults, scorer: /** @type {const} */ ("embedding") };
  const vectors = refusalText({ policy: embedding, reason: "the embedding vectors are not loaded", cause: "vectors" }, defaults, "the download failed (Failed to fetch)");
  assert.equal(
    vectors,
    "Static embedding (meaning) cannot be computed here: its vectors could not be loaded (the download failed (Failed to fetch)). The controls, the figures, the address and Copy link are back on the settings shown, scored by TF-IDF cosine. TF-IDF cosine and BM25 (as Lucene scores it) work without the vectors.",
  );
  assert.match(refusalText({ policy: embedding, reason: "Python is not running", cause: "python" }, defaults, null), /: Python is not running\. .* Start Python again to compute them\.$/);
  assert.doesNotMatch(refusalText({ policy: embedding, reason: "no", cause: "engine" }, defaults, null), /again/);
});
