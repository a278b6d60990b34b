// The notebook (core/notebook-core.js) through the page's update: notes typed and saved, a
// failed save, the baseline, and observations and scoreboards kept in it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { update } from "../../site/js/core/page-core.js";
import { defaults, readyPage, types } from "./page-driver.mjs";

test("a scoreboard kept in the notebook is added after the notes, as text and as an entry, and saved", () => {
  const page = update(readyPage(), { type: "notes-typed", text: "my guess: hybrid wins\n\n" }).state;
  const entry = {
    kind: "scoreboard", time: "2026-11-29T10:20:00.000Z", link: "https://x/?scoreboard=1", policy: { tenant: "team-a" }, k: 3,
    measure_names: { ndcg: "nDCG@k" }, means: { tfidf: { ndcg: 0.5 }, hybrid: { ndcg: 0.75 } }, best: { ndcg: ["hybrid"] },
    measured: ["deployment-region"], unmeasured: [],
  };
  const kept = update(page, { type: "scoreboard-kept", entry: /** @type {any} */ (entry) });
  assert.deepEqual(types(kept.effects), ["show-notebook", "save-notes"]);
  assert.deepEqual(kept.state.notes.notebook.observations, [entry]);
  assert.match(kept.state.notes.notebook.text, /^my guess: hybrid wins\n\n### Scoreboard 2026-11-29 10:20 UTC\n/);
  assert.match(kept.state.notes.notebook.text, /\| Hybrid \| 0\.750 \(best\) \|\n$/);
});

test("the notebook is saved on every change; a failed save is remembered and warned about", () => {
  const state = readyPage();
  const typed = update(state, { type: "notes-typed", text: "hello" });
  assert.equal(typed.state.notes.notebook.text, "hello");
  assert.deepEqual(typed.effects, [{ type: "save-notes" }]);
  const full = update(typed.state, { type: "notes-saved", outcome: "full" });
  assert.equal(full.state.notes.storage, "full");
  assert.deepEqual(full.effects, [{ type: "show-storage-warning" }]);
  assert.equal(update(full.state, { type: "notes-saved", outcome: "ok" }).state.notes.storage, "full", "the warning stays");
  const captured = update(typed.state, { type: "baseline-captured" });
  assert.deepEqual(captured.state.notes.notebook.baseline?.policy, state.shown.policy);
  assert.deepEqual(types(captured.effects), ["save-notes", "show-baseline"]);
  assert.equal(update(captured.state, { type: "baseline-cleared" }).state.notes.notebook.baseline, null);
});

test("an observation is appended to the notebook's text and kept with the others", () => {
  const state = readyPage();
  const entry = {
    time: "2026-11-29T09:00:00.000Z", link: "http://x/?a", question: "?", policy: defaults, tray: [], words_used: 0,
    coverage: { found: 0, total: 1, supporting: [] }, exclusions: [],
  };
  const added = update(state, { type: "observation-added", entry, text: "My notes  \n" });
  assert.match(added.state.notes.notebook.text, /^My notes\n\n### Observation 2026-11-29 09:00 UTC\n/);
  assert.deepEqual(added.state.notes.notebook.observations, [entry]);
  assert.deepEqual(types(added.effects), ["show-notebook", "save-notes"]);
});
