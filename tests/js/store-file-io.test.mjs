// Export: a store opened unchanged comes out as the file it was opened from, the
// fixture stores byte for byte even when written afresh, and an edited store comes out
// in the fixtures' layout whatever order its keys were built in.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { exportName, exportText, sameJSON, storeText } from "../../site/js/editor/store-file-io.js";

const FIXTURES = ["store.json", "support-store.json"];
const read = (/** @type {string} */ name) => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8");

/** The same value with every object's keys in reverse order, as an editor might build it. @param {any} value @returns {any} */
const reversed = (value) =>
  Array.isArray(value) ? value.map(reversed) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)])) : value;

for (const name of FIXTURES) {
  test(`fixtures/${name} written afresh is its own text, byte for byte`, () => {
    const text = read(name);
    assert.equal(storeText(JSON.parse(text)), text);
  });

  test(`fixtures/${name} with its keys shuffled is written in the fixture's order`, () => {
    const text = read(name);
    const shuffled = reversed(JSON.parse(text));
    // Policies and supporting maps keep the author's order; restore those so only the format's objects differ.
    const original = JSON.parse(text);
    for (const [g, guide] of (shuffled.guides ?? []).entries()) {
      for (const [s, step] of guide.steps.entries()) step.policy = original.guides[g].steps[s].policy;
    }
    for (const [q, question] of shuffled.questions.entries()) question.supporting = original.questions[q].supporting;
    assert.notEqual(JSON.stringify(shuffled), JSON.stringify(original));
    assert.equal(storeText(shuffled), text);
  });

  test(`fixtures/${name} opened unchanged exports the file's own text, and importing the export gives the same store`, () => {
    const text = read(name);
    const store = JSON.parse(text);
    assert.equal(exportText(store, text), text);
    assert.ok(sameJSON(JSON.parse(exportText(store, text)), store));
  });
}

test("a file in another layout, opened unchanged, exports as that file", () => {
  const text = JSON.stringify(JSON.parse(read("support-store.json")));
  assert.equal(exportText(JSON.parse(text), text), text);
});

test("an edited store exports in the store format's layout, not the original text", () => {
  const text = JSON.stringify(JSON.parse(read("support-store.json")));
  const store = JSON.parse(text);
  store.records[0].text = "A new sentence.";
  const out = exportText(store, text);
  assert.notEqual(out, text);
  assert.equal(out, storeText(store));
  assert.equal(JSON.parse(out).records[0].text, "A new sentence.");
  assert.ok(out.endsWith("}\n"));
});

test("keys outside the format stay, after the format's own", () => {
  const store = { records: [], extra: 1, title: "T", schema: 1 };
  assert.deepEqual(Object.keys(JSON.parse(storeText(store))), ["schema", "title", "records", "extra"]);
});

test("sameJSON compares values, not key order", () => {
  assert.ok(sameJSON({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
  assert.ok(!sameJSON({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(!sameJSON([1, 2], { 0: 1, 1: 2 }));
  assert.ok(!sameJSON({ a: null }, { a: {} }));
});

test("the file is named from the store's title", () => {
  assert.equal(exportName({ title: "Platform team agent memory" }), "platform-team-agent-memory.json");
  assert.equal(exportName({ title: "Café « Crème » — règles / refunds?" }), "cafe-creme-regles-refunds.json");
  assert.equal(exportName({ title: "" }), "store.json");
  assert.equal(exportName({ title: "<script>" }), "script.json");
});
