// The engine's start as the page's worker does it on a first visit, timed under Node
// Pyodide: Pyodide loaded from the built site's runtime files (decoded by the site's own
// zstd.js), the wheel and the engine's bytecode unpacked, `import engine`, the store
// opened (open_json), the default policy's first answer, then a second answer. Each step
// is timed with performance.now(); bench/engine_start.py runs it and compares sites.
// usage: node harness/engine_start.mjs <built site dir> <store.json>   (prints one JSON line)
import { readFileSync } from "node:fs";
import { siteRuntime } from "./site-pyodide.mjs";

const { start, installEngine } = await siteRuntime(process.argv[2]);
const store = readFileSync(process.argv[3], "utf8");

/** @type {Record<string, number>} */
const ms = {};
let started = performance.now();
const lap = (/** @type {string} */ name) => {
  const now = performance.now();
  ms[name] = now - started;
  started = now;
};
const pyodide = await start();
lap("pyodide");
await installEngine(pyodide);
lap("unpack");
const engine = pyodide.pyimport("engine");
lap("import");
const opening = engine.open_json(store);
if (!opening.session) throw new Error(`the engine refused the store: ${opening.reply}`);
const session = opening.session.copy();
lap("open");
session.answer_json("{}", "");
lap("first_answer");
session.answer_json('{"budget_words": 30}', "");
lap("second_answer");
const modules = pyodide.runPython("import sys\nlen([name for name in sys.modules if name.startswith('engine')])");
console.log(JSON.stringify({ ms, engine_modules: modules }));
