// Makes packages under Node Pyodide the way the page's worker makes them: Python booted with
// what the worker has (the built site's WebAssembly module and trimmed bytecode stdlib,
// decoded by the site's own zstd.js, the engine wheel and its bytecode), then the worker's
// own packaging module (site/js/python/worker-package.js) answering the page's two requests,
// its fetches served from the built site's folder, and the page's own prerender
// (site/js/views/prerender.js) in between, as panels/packaging-flow.js runs it.
// tests/test_package.py compares the zips with build.py's.
// usage: node harness/package_runner.mjs <built site dir>  < input.json  > output.json
//   input:  {"jobs": [{"store": text, "fromBoot": bool, "kind": "site" | "scorm" | "cmi5", "score": bool, "out": path}]}
//   output: {"jobs": [{"problems": [line…] | null, "bytes": number, "ms": number}], "packagingMs": number}
//            (the zip written to each job's out; ms from the check to the zip, packagingMs the first load)
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MSG } from "../site/js/python/protocol.js";
import { packageRequest } from "../site/js/python/worker-package.js";
import { prerender } from "../site/js/views/prerender.js";
import { siteRuntime } from "./site-pyodide.mjs";

const { site, runtime, block, start, installEngine } = await siteRuntime(process.argv[2]);
const python = await start();
await installEngine(python);
const engine = python.pyimport("engine");
// The engine has answered, as in the page before any package is asked for.
const opening = engine.open_json(JSON.stringify(block("boot").store));
opening.session.answer_json("{}");
// The vectors, loaded as the page loads them before packaging a store whose guides use the
// embedding (panels/packaging-flow.js): their claims are checked as build.py checks them.
python.FS.writeFile("/tmp/vectors.rwse", readFileSync(path.join(site, runtime.vectorsURL)));
engine.load_embedding("/tmp/vectors.rwse");

const siteURL = "http://site.invalid/";
/** The worker's fetch, answered from the built site's folder. @param {string | URL} url */
const plainFetch = async (url) => {
  const relative = String(url).slice(siteURL.length);
  try {
    return new Response(readFileSync(path.join(site, relative)));
  } catch {
    return new Response(null, { status: 404, statusText: "Not Found" });
  }
};
/** @type {Map<number, (message: any) => void>} */
const waiting = new Map();
globalThis.postMessage = (/** @type {any} */ message) => {
  if (message.type === MSG.PACKAGE_REPLY) waiting.get(message.id)?.(message);
};
const state = /** @type {any} */ ({ engineReady: Promise.resolve({ python }), plainFetch, saveSnapshotWhenIdle: null, idleTimer: undefined, assembler: null });
let nextId = 1;
/** One request answered by the worker's module. @param {object} message @returns {Promise<any>} */
const ask = (message) =>
  new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    packageRequest(state, { ...message, id });
  });

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { jobs } = JSON.parse(input);
const packagingURL = siteURL + runtime.packagingURL;
let packagingMs = null;
const done = [];
for (const job of jobs) {
  const started = performance.now();
  const checked = await ask({ type: MSG.PACKAGE_CHECK, store: job.store, fromBoot: job.fromBoot, packagingURL });
  packagingMs ??= performance.now() - started;
  if (checked.error) throw new Error(checked.error.message);
  if (checked.problems) {
    done.push({ problems: checked.problems, bytes: 0, ms: performance.now() - started });
    continue;
  }
  const fragments = prerender(checked.request);
  const made = await ask({ type: MSG.PACKAGE, store: job.store, fromBoot: job.fromBoot, fragments, kind: job.kind, score: job.score, packagingURL, siteURL });
  if (made.error) throw new Error(made.error.message);
  writeFileSync(job.out, made.zip);
  done.push({ problems: null, bytes: made.zip.length, ms: performance.now() - started });
}
process.stdout.write(JSON.stringify({ jobs: done, packagingMs }));
