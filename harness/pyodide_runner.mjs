// Runs the engine under Node Pyodide with what the page's worker has (the built site's
// WebAssembly module and trimmed bytecode stdlib, both decoded by the site's own zstd.js
// and decoder, the built wheel and its bytecode unpacked, no lock): engine.run_json on
// each request, and the page's own path, engine.open_json then Session.answer_json, on
// each store with its policies. With a vector file, it is written where the engine looks
// by default (for run_json) and loaded as the page's worker loads it, written into the
// file system then engine.load_embedding (for the sessions). tests/test_engine_pyodide.py
// checks its answers against CPython's; bench/worker_answers.py reads its timings.
// usage: node harness/pyodide_runner.mjs <built site dir> [<vectors.rwse>]  < input.json  > output.json
//   input:  {"requests": [request text…], "sessions": [{"store": text, "policies": [text…], "haveTerms"?: bool}…],
//            "evaluations"?: [{"store": text, "policies": [text…], "sweep": bool}…], "checks"?: [store text…]}
//            haveTerms: each policy is asked with the terms_key of the answer before it, as
//            the page's engine client asks (it holds those per-term parts already)
//   output: {"info": {python, stdlib}, "responses": [text…],
//            "sessions": [{"reply": text, "answers": [[answer text, parts text or null]…], "open_ms": number, "answer_ms": [number…]}…],
//            "vectors": load_embedding's reply or null, "vectors_ms": its time or null,
//            "checks": [{"reply": check_store_json's text, "ms": number}…]}
//            (no answers for a refused store); times in ms, by performance.now() around each call
import { readFileSync } from "node:fs";
import path from "node:path";
import { siteRuntime } from "./site-pyodide.mjs";

const { start, installEngine } = await siteRuntime(process.argv[2]);
const vectorsFile = process.argv[3] ? path.resolve(process.argv[3]) : null;
const pyodide = await start();
await installEngine(pyodide);
const engine = pyodide.pyimport("engine");
let vectors = null;
let vectorsMs = null;
if (vectorsFile) {
  const bytes = readFileSync(vectorsFile);
  const defaultPath = pyodide.runPython("import engine.embedding\nstr(engine.embedding.default_vector_path())");
  pyodide.FS.mkdirTree(path.posix.dirname(defaultPath));
  pyodide.FS.writeFile(defaultPath, bytes);
  pyodide.FS.writeFile("/tmp/vectors.rwse", bytes);
  const started = performance.now();
  vectors = engine.load_embedding("/tmp/vectors.rwse");
  vectorsMs = performance.now() - started;
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { requests, sessions, evaluations = [], checks = [] } = JSON.parse(input);
const responses = requests.map((/** @type {string} */ r) => engine.run_json(r));
const opened = sessions.map((/** @type {{store: string, policies: string[], haveTerms?: boolean}} */ { store, policies, haveTerms }) => {
  const started = performance.now();
  const opening = engine.open_json(store);
  const openMs = performance.now() - started;
  // undefined when refused; copied, since an attribute's proxy goes with its owner's
  const session = opening.session?.copy();
  const reply = opening.reply;
  opening.destroy();
  /** @type {string[]} */
  const answers = [];
  /** @type {number[]} */
  const answerMs = [];
  if (session) {
    // Looked up once, as the worker does (worker-loop.js), not once per answer.
    const answerJson = session.answer_json;
    let held = "";
    for (const policy of policies) {
      const before = performance.now();
      // The answer and its parts, converted as the worker converts them (worker-loop.js).
      const pair = answerJson(policy, held);
      const [answer, parts] = pair.toJs();
      pair.destroy();
      answerMs.push(performance.now() - before);
      answers.push([answer, parts ?? null]);
      if (haveTerms) held = JSON.parse(answer).terms_key ?? "";
    }
    answerJson.destroy();
    session.destroy();
  }
  return { reply, answers, open_ms: openMs, answer_ms: answerMs };
});
// Evaluations as the worker makes them (worker-loop.js): one session per store, then
// engine.evaluate.evaluate_json for each policy, an evaluation or (sweep) the recency sweep.
const evaluated = evaluations.map((/** @type {{store: string, policies: string[], sweep: boolean}} */ { store, policies, sweep }) => {
  const opening = engine.open_json(store);
  const session = opening.session?.copy();
  opening.destroy();
  const evaluateJson = pyodide.pyimport("engine.evaluate").evaluate_json;
  /** @type {number[]} */
  const ms = [];
  const replies = policies.map((policy) => {
    const before = performance.now();
    const reply = evaluateJson.callKwargs(session, policy, { sweep });
    ms.push(performance.now() - before);
    return reply;
  });
  evaluateJson.destroy();
  session?.destroy();
  return { replies, ms };
});
// Drafts checked as the worker checks them (worker-loop.js): engine.check_store_json on the text.
const checked = checks.map((/** @type {string} */ store) => {
  const checkJson = engine.check_store_json;
  const before = performance.now();
  const reply = checkJson(store);
  const ms = performance.now() - before;
  checkJson.destroy();
  return { reply, ms };
});
const info = pyodide.runPython("import sys, json; json.dumps({'python': sys.version.split()[0], 'stdlib': sys.modules['json'].__file__})");
process.stdout.write(JSON.stringify({ info: JSON.parse(info), responses, sessions: opened, evaluations: evaluated, checks: checked, vectors, vectors_ms: vectorsMs }));
