// What the tests of the page core and its slices share: the site's stores, results shaped like
// the engine's, a page started and answered, and running events through update(). Not a test
// file: node --test runs only names such as *.test.mjs.
import { readFileSync } from "node:fs";

import { initialState, update } from "../../site/js/core/page-core.js";
import { defaultPolicy, policyFields } from "../../site/js/core/state.js";
import { FIELD_TABLE } from "../../site/js/core/tables.js";

export const siteStore = JSON.parse(readFileSync(new URL("../../fixtures/store.json", import.meta.url), "utf8"));
export const otherStore = JSON.parse(readFileSync(new URL("../../fixtures/support-store.json", import.meta.url), "utf8"));
export const defaults = defaultPolicy(policyFields(siteStore, FIELD_TABLE));
export const guide = siteStore.guides[0];

/**
 * A result shaped like the engine's, as far as the page core reads it.
 * @param {any} policy @param {string[]} [selected]
 */
export function resultFor(policy, selected = ["M2"]) {
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
export function begin({ search = "", remembered = null } = {}) {
  return initialState({ boot, remembered, search, notes: emptyNotes });
}

/** Run events in order from a state; returns the last state and every effect, in order. */
export function run(/** @type {any} */ state, /** @type {any[]} */ events) {
  /** @type {any[]} */
  const effects = [];
  for (const event of events) {
    const step = update(state, event);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

export const types = (/** @type {any[]} */ effects) => effects.map((e) => e.type);
export const ofType = (/** @type {any[]} */ effects, /** @type {string} */ type) => effects.filter((e) => e.type === type);
export const READY = { type: "engine-status", status: { state: "ready", text: "ready" } };
export const LOADING = { type: "engine-status", status: { state: "loading", text: "loading", step: 1, of: 4 } };
export const FAILED = { type: "engine-status", status: { state: "failed", text: "failed" } };

/** A page whose engine is ready and has answered its first request. */
export function readyPage() {
  const { state } = begin();
  const started = run(state, [{ type: "start", notices: [] }, READY]);
  const first = ofType(started.effects, "request")[0];
  return run(started.state, [{ type: "answer", seq: first.seq, answer: resultFor(defaults), askedAt: 5 }]).state;
}

export const budget = (/** @type {number} */ words) => ({ ...defaults, budget_words: words });
