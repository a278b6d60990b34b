// The views and Python's worker keep no state at module level: what they remember lives
// in one object made by a factory and passed where it is needed (views/view.js's
// Placed, python/worker-state.js's WorkerState), so a test or a second instance starts
// clean and every reader of that state is named by its parameters.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const SITE_JS = new URL("../../site/js/", import.meta.url);

/**
 * Top-level declarations that hold changing state: a let or var, a map, or an empty set
 * or list to be filled (a set of fixed names is a constant). @param {string} text
 */
export function moduleState(text) {
  return text.split("\n").filter((line) => /^(export )?(let|var) |^(export )?const \w+ = (new (Map|WeakMap)\b|new Set\(\)|\[\])/.test(line));
}

test("no module of the views or of Python's worker keeps state at module level", () => {
  const views = readdirSync(new URL("views/", SITE_JS)).map((name) => `views/${name}`);
  const worker = ["engine-worker.js", ...readdirSync(new URL("python/", SITE_JS)).filter((name) => name.startsWith("worker-")).map((name) => `python/${name}`)];
  assert.ok(views.includes("views/view.js") && worker.includes("python/worker-loop.js"));
  const found = [...views, ...worker].flatMap((module) => moduleState(readFileSync(new URL(module, SITE_JS), "utf8")).map((line) => `${module}: ${line}`));
  assert.deepEqual(found, []);
});

test("the check finds a module-level let, var, map and list, and lets constants and locals be", () => {
  const text = "let a = 1;\nexport let b;\nvar c;\nconst d = new Map();\nconst e = [];\nconst F = 4;\nconst G = new Set([1]);\nfunction f() {\n  let local = 1;\n}";
  assert.deepEqual(moduleState(text), ["let a = 1;", "export let b;", "var c;", "const d = new Map();", "const e = [];"]);
});
