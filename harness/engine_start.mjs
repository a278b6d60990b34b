// The engine's start as the page's worker does it on a first visit, timed under Node
// Pyodide: Pyodide loaded from the built site's runtime files (decoded by the site's own
// zstd.js), the wheel and the engine's bytecode unpacked, `import engine`, the store
// opened (open_json), the default policy's first answer, then a second answer. Each step
// is timed with performance.now(); bench/engine_start.py runs it and compares sites.
// usage: node harness/engine_start.mjs <built site dir> <store.json>   (prints one JSON line)
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadZstd } from "../site/js/python/zstd.js";

const site = path.resolve(process.argv[2]);
const store = readFileSync(process.argv[3], "utf8");
const runtime = JSON.parse(readFileSync(path.join(site, "index.html"), "utf8").match(/<script type="application\/json" id="runtime">(.*?)<\/script>/s)[1]);
const zstd = await loadZstd(readFileSync(path.join(site, runtime.zstdDecoderURL)));
const runtimeDir = mkdtempSync(path.join(os.tmpdir(), "engine-start-"));
process.on("exit", () => rmSync(runtimeDir, { recursive: true, force: true }));
for (const name of ["pyodide.mjs", "pyodide.asm.mjs"]) copyFileSync(path.join(site, runtime.indexURL, name), path.join(runtimeDir, name));
/** A site file's bytes, decoded when it is zstd-compressed. @param {string} relative */
const bytesOf = async (relative) => {
  const file = readFileSync(path.join(site, relative));
  return relative.endsWith(".zst") ? zstd.decodeAll(file) : new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
};
writeFileSync(path.join(runtimeDir, "pyodide.asm.wasm"), await bytesOf(runtime.wasmURL));
writeFileSync(path.join(runtimeDir, "stdlib.zip"), await bytesOf(runtime.stdLibURL));
const { loadPyodide } = await import(pathToFileURL(path.join(runtimeDir, "pyodide.mjs")).href);

/** @type {Record<string, number>} */
const ms = {};
let started = performance.now();
const lap = (/** @type {string} */ name) => {
  const now = performance.now();
  ms[name] = now - started;
  started = now;
};
const pyodide = await loadPyodide({
  indexURL: `${runtimeDir}/`,
  stdLibURL: path.join(runtimeDir, "stdlib.zip"),
  lockFileContents: { info: { abi_version: runtime.abiVersion }, packages: {} },
  stdout: () => {},
});
lap("pyodide");
const sitePackages = "/lib/python3.14/site-packages";
pyodide.unpackArchive(await bytesOf(runtime.wheelURL), "wheel", { extractDir: sitePackages });
pyodide.unpackArchive(await bytesOf(runtime.engineBytecodeURL), "zip", { extractDir: sitePackages });
pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${sitePackages}")\nif finder: finder.invalidate_caches()`);
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
