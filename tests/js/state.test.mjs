// The URL <-> policy table: every parameter malformed, out of range, repeated or
// absurdly long falls back to its default with a notice naming it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { defaultPolicy, policyFields, readQuery, writeQuery } from "../../site/js/state.js";

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
