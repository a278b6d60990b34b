// The store editor's pure parts: the draft's history (every edit undoable, typing in one field
// one edit), what a form field's text puts in the draft, a step captured from the workbench,
// where a problem is shown, and the form drawn from the engine's format table.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { FIELD_TABLE, STORE_FORMAT } from "../../site/js/core/tables.js";
import { editorForm } from "../../site/js/editor/editor-form.js";
import {
  addItem,
  capturedStep,
  commitTyping,
  edit,
  fieldOfProblem,
  moveItem,
  newItem,
  newStore,
  pathText,
  policyValueOf,
  redo,
  removeItem,
  startHistory,
  undo,
  valueOf,
} from "../../site/js/editor/editor-state.js";

const siteStore = JSON.parse(readFileSync(new URL("../../fixtures/store.json", import.meta.url), "utf8"));

test("every edit is undone and redone; keystrokes in one field are one edit until the field is left", () => {
  const before = JSON.stringify(siteStore);
  const start = startHistory(siteStore);
  const typed = ["2", "20"].reduce((h, text) => edit(h, ["records", 0, "age_hours"], valueOf("hours", text, true)), start);
  assert.equal(typed.present.records[0].age_hours, 20);
  assert.equal(typed.past.length, 1, "two keystrokes, one edit");
  const left = edit(commitTyping(typed), ["records", 0, "age_hours"], 21);
  assert.equal(left.past.length, 2, "after leaving the field, a new edit");
  const other = edit(left, ["title"], "Renamed");
  const back = undo(undo(other));
  assert.equal(back.present.title, siteStore.title);
  assert.equal(back.present.records[0].age_hours, 20);
  assert.equal(redo(redo(back)).present, other.present);
  assert.equal(undo(start), start, "nothing to undo");
  assert.equal(JSON.stringify(siteStore), before, "the store edited is never changed");
  const added = addItem(other, ["tenants"], newItem("tenant", other.present));
  assert.deepEqual(added.present.tenants.at(-1), { id: "tenant-3", label: "Tenant 3" });
  const removed = removeItem(added, ["records"], 0);
  assert.equal(removed.present.records.length, siteStore.records.length - 1);
  const moved = moveItem(removed, ["tenants"], 0, 1);
  assert.deepEqual(moved.present.tenants.map((/** @type {any} */ t) => t.id), ["team-b", "team-a", "tenant-3"]);
  assert.deepEqual(undo(undo(undo(moved))).present, other.present);
  assert.equal(edit(undo(other), ["title"], "Again").future.length, 0, "a new edit drops what was undone");
});

test("a field's text goes into the draft as the engine reads it; what is not valid goes in as written, for the engine to name", () => {
  assert.equal(valueOf("hours", "2.5", true), 2.5);
  assert.equal(valueOf("hours", "soon", true), "soon");
  assert.equal(valueOf("key", "", true), null);
  assert.equal(valueOf("note", " ", false), undefined);
  assert.deepEqual(valueOf("ids", "M1, M2,", false), ["M1", "M2"]);
  assert.equal(valueOf("ids", "", false), undefined);
  assert.equal(policyValueOf("budget_words", "9"), 9);
  assert.equal(policyValueOf("previous_sessions", "true"), true);
  assert.equal(policyValueOf("budget_words", ""), undefined);
  assert.equal(pathText(["questions", 0, "supporting", "team-a"]), "questions[0].supporting.team-a");
});

test("a step captured from the workbench sets its question, tenant and every changed setting, and shows what is in view", () => {
  const defaults = Object.fromEntries(FIELD_TABLE.map((row) => [row.name, row.default]));
  const policy = { ...defaults, question: "q1", tenant: "t1", budget_words: 9 };
  const step = capturedStep(policy, { ...defaults, question: "q1", tenant: "t1" }, { stage: 4, record: "M2", part: "tray" });
  assert.deepEqual(step, { title: "", policy: { question: "q1", tenant: "t1", budget_words: 9 }, look_for: "", shows: { stage: 4, record: "M2", part: "tray" } });
});

test("a problem is shown at its field, or at the nearest field that holds it", () => {
  const fields = new Set(["records[3].age_hours", "questions[0].supporting.team-a"]);
  const has = (/** @type {string} */ path) => fields.has(path);
  assert.equal(fieldOfProblem("records[3].age_hours", has), "records[3].age_hours");
  assert.equal(fieldOfProblem("questions[0].supporting.team-a[1]", has), "questions[0].supporting.team-a");
  assert.equal(fieldOfProblem("records", has), null);
});

test("the form has a labelled field for every field the format table gives, and every policy field for a step", () => {
  const markup = String(editorForm(siteStore));
  for (const kind of ["tenant", "record", "question", "guide", "step"]) {
    const path = { tenant: "tenants[0]", record: "records[0]", question: "questions[0]", guide: "guides[0]", step: "guides[0].steps[0]" }[kind];
    for (const row of STORE_FORMAT[/** @type {"record"} */ (kind)].filter((r) => !["list", "map", "object"].includes(r.kind))) {
      assert.ok(markup.includes(`data-path="${path}.${row.name}"`), `${path}.${row.name}`);
    }
  }
  for (const row of FIELD_TABLE) assert.ok(markup.includes(`data-path="guides[0].steps[0].policy.${row.name}"`), row.name);
  assert.ok(markup.includes('data-path="questions[0].supporting.team-a"'));
  assert.ok(markup.includes('data-path="guides[0].steps[0].shows.part"'));
  // Every field's label points at its control, and its help and problem are described by it.
  const ids = [...markup.matchAll(/<label for="(ed-\d+)"/g)].map((m) => m[1]);
  assert.equal(ids.length, [...markup.matchAll(/data-path="/g)].length);
  for (const id of ids.slice(0, 5)) assert.ok(markup.includes(`id="${id}" data-path`) && markup.includes(`aria-describedby="${id}-help ${id}-error"`));
});

test("a store's text never becomes markup in the editor", () => {
  const hostile = { ...newStore(), title: '<img src=x onerror="alert(1)">', tenants: [{ id: '"><script>', label: "</legend><b>" }] };
  const markup = String(editorForm(hostile));
  assert.ok(!markup.includes("<img") && !markup.includes("<script>") && !markup.includes("<b>"));
  assert.ok(markup.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"));
});
