// site/js's folders as its architecture: read every module's imports (its import
// statements, import() calls and JSDoc import() types) and fail on any that runs the
// wrong way between folders or names a missing file, and on any cycle of imports that
// load code (a type named both ways loads nothing).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SITE_JS = fileURLToPath(new URL("../../site/js/", import.meta.url));

// [importer's folder, imported folder, why not]. The views and panels draw the page; the
// pure core, the boundary to Python and the LMS reporting must work without them (the
// core and the boundary load under Node and in Python's worker, where no DOM exists).
const FORBIDDEN = [
  ["core", "views", "the pure core does not depend on how the page is drawn"],
  ["core", "panels", "the pure core does not depend on the panels that perform its effects"],
  ["python", "views", "the boundary to Python does not draw"],
  ["python", "panels", "the boundary to Python does not draw"],
  ["lms", "views", "LMS reporting does not draw"],
  ["lms", "panels", "LMS reporting does not draw"],
];

/** Every .js module under dir, as paths relative to it. @param {string} dir @returns {string[]} */
function modules(dir, under = "") {
  return readdirSync(path.join(dir, under), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(under, entry.name);
    if (entry.isDirectory()) return modules(dir, relative);
    return entry.name.endsWith(".js") ? [relative] : [];
  });
}

/** The relative specifiers a module's text names. @param {string} text @returns {string[]} */
export function specifiers(text) {
  const found = [...text.matchAll(/\bfrom\s+["'](\.{1,2}\/[^"']+)["']|\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|^\s*import\s+["'](\.{1,2}\/[^"']+)["']/gm)];
  return found.map((match) => match[1] ?? match[2] ?? match[3]);
}

/** A module's text without its comments, where its JSDoc types are. @param {string} text */
const code = (text) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

/** A module's folder: its first path part, or "" for the entry scripts at the top. @param {string} module */
const folderOf = (module) => (module.includes("/") ? module.split("/")[0] : "");

/**
 * The imports that break a rule, as "importer -> imported (why)".
 * @param {Map<string, string[]>} graph  each module (relative to site/js) and the modules it imports
 * @returns {string[]}
 */
export function forbiddenImports(graph) {
  const broken = [];
  for (const [module, imported] of graph) {
    for (const target of imported) {
      const rule = FORBIDDEN.find(([from, to]) => folderOf(module) === from && folderOf(target) === to);
      if (rule) broken.push(`${module} -> ${target} (${rule[2]})`);
    }
  }
  return broken;
}

/** The cycles, each as the path that closes it. @param {Map<string, string[]>} graph @returns {string[][]} */
export function cycles(graph) {
  const found = [];
  const done = new Set();
  /** @param {string} module @param {string[]} trail */
  const visit = (module, trail) => {
    const at = trail.indexOf(module);
    if (at >= 0) return void found.push([...trail.slice(at), module]);
    if (done.has(module)) return;
    for (const target of graph.get(module) ?? []) visit(target, [...trail, module]);
    done.add(module);
  };
  for (const module of [...graph.keys()].sort()) visit(module, []);
  return found;
}

/** Each module of site/js and what it imports: its types too, or only its code. */
function siteGraph({ types = true } = {}) {
  /** @type {Map<string, string[]>} */
  const graph = new Map();
  for (const module of modules(SITE_JS)) {
    const text = readFileSync(path.join(SITE_JS, module), "utf8");
    const imported = specifiers(types ? text : code(text)).map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(module), spec)));
    graph.set(module, [...new Set(imported)]);
  }
  return graph;
}

test("every module site/js imports exists (but the cmi5 library, which the build copies beside the bundled scripts)", () => {
  const missing = [...siteGraph()].flatMap(([module, imported]) =>
    imported.filter((target) => !target.endsWith("/vendor/cmi5.js") && !existsSync(path.join(SITE_JS, target))).map((target) => `${module} -> ${target}`),
  );
  assert.deepEqual(missing, []);
});

test("no import runs from the core, the boundary to Python or the LMS into the views or panels", () => {
  const graph = siteGraph();
  assert.ok(["core", "python", "lms", "views", "panels"].every((folder) => [...graph.keys()].some((m) => folderOf(m) === folder)));
  assert.deepEqual(forbiddenImports(graph), []);
});

test("no two modules of site/js import each other's code, directly or through others", () => {
  assert.deepEqual(cycles(siteGraph({ types: false })), []);
});

test("the rules catch a wrong import, of code or of a type, and a cycle", () => {
  const runtime = specifiers('import { PAGE_SIZE } from "../views/records.js";');
  const typed = specifiers('/** @typedef {import("../panels/context.js").Handlers} Handlers */');
  const lazy = specifiers('const module = await import("./answer.js");');
  assert.deepEqual([...runtime, ...typed, ...lazy], ["../views/records.js", "../panels/context.js", "./answer.js"]);
  assert.deepEqual(specifiers(code('/** @type {import("./a.js").A} */\n// import("./b.js")\nimport("./c.js");')), ["./c.js"]);
  const graph = new Map([
    ["core/page-core.js", ["views/records.js", "core/state.js"]],
    ["views/records.js", ["core/tables.js"]],
    ["python/answer.js", ["core/tables.js"]],
  ]);
  assert.deepEqual(forbiddenImports(graph), ["core/page-core.js -> views/records.js (the pure core does not depend on how the page is drawn)"]);
  assert.deepEqual(cycles(new Map([["a.js", ["b.js"]], ["b.js", ["a.js"]]])), [["a.js", "b.js", "a.js"]]);
  assert.deepEqual(cycles(graph), []);
});
