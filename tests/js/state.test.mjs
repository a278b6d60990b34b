// The URL <-> policy table: every parameter malformed, out of range, repeated or
// absurdly long falls back to its default with a notice naming it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { NO_WORDS, OWN_OPTION, defaultPolicy, parseValue, policyFields, readQuery, writeQuery } from "../../site/js/core/state.js";

const store = JSON.parse(readFileSync(new URL("../../fixtures/store.json", import.meta.url), "utf8"));
const fields = policyFields(store);
const defaults = defaultPolicy(fields);

const BAD = {
  question: ["nope", "", "DEPLOYMENT-REGION"],
  tenant: ["team-z", "Team A"],
  store: ["semntic", "ALL", "1"],
  previous_sessions: ["yes", "1", "TRUE", ""],
  max_age_hours: ["-1", "100001", "abc", "1e3", "", "NaN", "Infinity"],
  latest_per_key: ["no", "0"],
  recency_weight: ["1.5", "-0.1", "half", "0x1"],
  budget_words: ["501", "-1", "9.5", "nine", " "],
  max_records: ["0", "51", "2.5", "many"],
  question_text: ["x".repeat(201), "é".repeat(150) + "\u0007".repeat(20) + "ü".repeat(51)],
};

for (const [name, values] of Object.entries(BAD)) {
  for (const value of [...values, "9".repeat(5000)]) {
    test(`${name}=${value.slice(0, 12)} falls back to the default with a notice`, () => {
      const { policy, notices } = readQuery(`?${new URLSearchParams({ [name]: value })}`, fields);
      assert.deepEqual(policy, defaults);
      assert.equal(notices.length, 1);
      assert.match(notices[0], new RegExp(`${name}`));
      assert.ok(notices[0].length < 400, "a long value is shortened in the notice");
    });
  }
  test(`${name} given twice falls back to the default with a notice`, () => {
    const good = writeQuery(defaults, fields).slice(1);
    const once = new URLSearchParams(good).get(name);
    const { policy, notices } = readQuery(`?${name}=${once}&${name}=${once}`, fields);
    assert.deepEqual(policy, defaults);
    assert.match(notices[0], new RegExp(`gives ${name} 2 times`));
  });
}

test("a valid link round-trips through the query string", () => {
  const policy = { ...defaults, question: "timeout-incident", budget_words: 9, recency_weight: 0.35, previous_sessions: true, max_age_hours: 12.5 };
  const { policy: back, notices } = readQuery(writeQuery(policy, fields), fields);
  assert.deepEqual(back, policy);
  assert.deepEqual(notices, []);
});

test("unknown parameters are named; parameters owned by the page are not", () => {
  const { notices } = readQuery("?embed=1&colour=blue", fields, ["embed"]);
  assert.equal(notices.length, 1);
  assert.match(notices[0], /colour/);
});

// ---------------------------------------------------------------- question_text

const textField = /** @type {any} */ (fields.find((f) => f.name === "question_text"));

test("an empty question_text stays out of the link; any other text is in it and reads back", () => {
  assert.equal(writeQuery(defaults, fields).includes("question_text"), false);
  for (const text of ["Where do our servers live?", "a&b=c + d%20?#", "<img src=x onerror=alert(1)>", "😀".repeat(200), " x "]) {
    const policy = { ...defaults, question_text: text };
    const query = writeQuery(policy, fields);
    assert.ok(query.includes("question_text="));
    assert.deepEqual(readQuery(query, fields), { policy, notices: [] });
  }
});

test("question_text: control characters are stripped, then at most 200 characters (code points)", () => {
  assert.deepEqual(parseValue(textField, "pend\u0007ing\u0000 review\u009f"), { ok: true, value: "pending review" });
  assert.deepEqual(parseValue(textField, `${"a".repeat(200)}${"\u001b".repeat(50)}`), { ok: true, value: "a".repeat(200) });
  assert.deepEqual(parseValue(textField, "😀".repeat(200)), { ok: true, value: "😀".repeat(200) });
  assert.deepEqual(parseValue(textField, "😀".repeat(201)), { ok: false, rule: "must be at most 200 characters" });
  assert.deepEqual(parseValue(textField, "half \ud800 a pair"), { ok: false, rule: "must be valid Unicode text" });
  const { policy, notices } = readQuery("?question_text=pend%07ing+review", fields);
  assert.equal(policy.question_text, "pending review");
  assert.deepEqual(notices, []);
});

test("question_text: tabs and line breaks read as spaces, as the engine reads them", () => {
  for (const gap of ["\t", "\n", "\r\n", "\u000b", "\u000c", "\u001f", "\u0085"]) {
    assert.deepEqual(parseValue(textField, `checkout${gap}incident`), { ok: true, value: `checkout${" ".repeat(gap.length)}incident` });
  }
  assert.equal(readQuery("?question_text=checkout%09incident", fields).policy.question_text, "checkout incident");
});

test("question_text with no words left once cleaned is refused, in the box and in a link", () => {
  assert.match(NO_WORDS, /^has no words/);
  for (const text of [" ", "\t", "\n\r\n", "\u0000", "\u0007\u001b\u007f", " \u00a0\u3000\u2028 ", "\u009f\t"]) {
    assert.deepEqual(parseValue(textField, text), { ok: false, rule: NO_WORDS });
  }
  assert.deepEqual(parseValue(textField, ""), { ok: true, value: "" });
  const { policy, notices } = readQuery("?question_text=%09%0A&budget_words=9", fields);
  assert.deepEqual(policy, { ...defaults, budget_words: 9 });
  assert.equal(notices.length, 1);
  assert.match(notices[0], /question_text=.* has no words, only spaces or control characters .*; using the default \(empty\)/);
});

test("a link whose question_text is not validly encoded falls back with a notice naming it", () => {
  for (const raw of ["%E0%A4%A", "caf%E9", "%ED%A0%80", "abc%"]) {
    const { policy, notices } = readQuery(`?question_text=${raw}&budget_words=9`, fields);
    assert.deepEqual(policy, { ...defaults, budget_words: 9 });
    assert.equal(notices.length, 1);
    assert.match(notices[0], /question_text is not validly encoded text.*using the default \(empty\)/);
  }
});

test("the Question control offers the store's questions, then one option for your own question", () => {
  const question = /** @type {any} */ (fields.find((f) => f.name === "question"));
  assert.deepEqual(question.options.at(-1), { value: OWN_OPTION, label: "Your own question" });
  assert.deepEqual(question.options.slice(0, -1).map((/** @type {any} */ o) => o.value), store.questions.map((/** @type {any} */ q) => q.id));
  assert.equal(question.choices.includes(OWN_OPTION), false, "a link cannot choose the option itself");
  assert.equal(textField.replaces, "question");
});
