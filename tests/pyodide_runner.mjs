// Test helper: runs engine.run_json under Node Pyodide exactly as the page's worker
// does (the built site's WebAssembly module and trimmed bytecode stdlib, both decoded
// by the site's own zstd.js and decoder, the built wheel unpacked, no lock).
// usage: node tests/pyodide_runner.mjs <built site dir>  < requests.json  > responses.json
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadZstd } from "../site/js/zstd.js";

const site = path.resolve(process.argv[2]);
const runtime = JSON.parse(readFileSync(path.join(site, "index.html"), "utf8").match(/<script type="application\/json" id="runtime">(.*?)<\/script>/s)[1]);
const zstd = await loadZstd(readFileSync(path.join(site, runtime.zstdDecoderURL)));
// Node's Pyodide reads pyodide.asm.wasm beside pyodide.asm.mjs: lay the decoded files out
// in a scratch folder, with the site's JavaScript beside them.
const runtimeDir = mkdtempSync(path.join(os.tmpdir(), "pyodide-runner-"));
process.on("exit", () => rmSync(runtimeDir, { recursive: true, force: true }));
for (const name of ["pyodide.mjs", "pyodide.asm.mjs"]) copyFileSync(path.join(site, runtime.indexURL, name), path.join(runtimeDir, name));
const decode = async (relative) => zstd.decodeAll(readFileSync(path.join(site, relative)));
writeFileSync(path.join(runtimeDir, "pyodide.asm.wasm"), await decode(runtime.wasmURL));
writeFileSync(path.join(runtimeDir, "stdlib.zip"), await decode(runtime.stdLibURL));
const { loadPyodide } = await import(pathToFileURL(path.join(runtimeDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: `${runtimeDir}/`,
  stdLibURL: path.join(runtimeDir, "stdlib.zip"),
  lockFileContents: { info: { abi_version: runtime.abiVersion }, packages: {} },
  stdout: () => {},
});
const sitePackages = "/lib/python3.14/site-packages";
/** Unpack a built archive (path relative to the site) into site-packages, as the worker does. */
function unpack(relative, format) {
  const file = readFileSync(path.join(site, relative));
  pyodide.unpackArchive(new Uint8Array(file.buffer, file.byteOffset, file.byteLength), format, { extractDir: sitePackages });
}
unpack(runtime.wheelURL, "wheel");
unpack(runtime.engineBytecodeURL, "zip");
pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${sitePackages}")\nif finder: finder.invalidate_caches()`);
const runJson = pyodide.pyimport("engine").run_json;

let input = "";
for await (const chunk of process.stdin) input += chunk;
const requests = JSON.parse(input);
const info = pyodide.runPython("import sys, json; json.dumps({'python': sys.version.split()[0], 'stdlib': sys.modules['json'].__file__})");
process.stdout.write(JSON.stringify({ info: JSON.parse(info), responses: requests.map((r) => runJson(r)) }));
