// The Python the page's worker runs, under Node: the built site's WebAssembly module and
// trimmed bytecode stdlib (decoded by the site's own zstd.js), then the engine wheel and its
// bytecode unpacked into site-packages, as site/js/python/worker-boot.js does. Shared by the
// runners (pyodide_runner.mjs, package_runner.mjs) and bench/engine_start.py's script.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadZstd } from "../site/js/python/zstd.js";

const SITE_PACKAGES = "/lib/python3.14/site-packages";

/**
 * A built site's runtime files laid out for Node's Pyodide (which reads pyodide.asm.wasm
 * beside pyodide.asm.mjs), in a scratch folder removed on exit.
 * @param {string} siteDir
 */
export async function siteRuntime(siteDir) {
  const site = path.resolve(siteDir);
  const index = readFileSync(path.join(site, "index.html"), "utf8");
  /** A JSON block of the built page. @param {string} id @returns {any} */
  const block = (id) => JSON.parse(/** @type {RegExpMatchArray} */ (index.match(new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`, "s")))[1]);
  const runtime = block("runtime");
  const zstd = await loadZstd(readFileSync(path.join(site, runtime.zstdDecoderURL)));
  /** A site file's bytes, decoded when it is zstd-compressed. @param {string} relative @returns {Promise<Uint8Array>} */
  const bytesOf = async (relative) => {
    const file = readFileSync(path.join(site, relative));
    return relative.endsWith(".zst") ? zstd.decodeAll(file) : new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
  };
  const runtimeDir = mkdtempSync(path.join(os.tmpdir(), "site-pyodide-"));
  process.on("exit", () => rmSync(runtimeDir, { recursive: true, force: true }));
  for (const name of ["pyodide.mjs", "pyodide.asm.mjs"]) copyFileSync(path.join(site, runtime.indexURL, name), path.join(runtimeDir, name));
  writeFileSync(path.join(runtimeDir, "pyodide.asm.wasm"), await bytesOf(runtime.wasmURL));
  writeFileSync(path.join(runtimeDir, "stdlib.zip"), await bytesOf(runtime.stdLibURL));
  const { loadPyodide } = await import(pathToFileURL(path.join(runtimeDir, "pyodide.mjs")).href);
  /** Start Python as the worker does (no lock file: the engine needs no package). */
  const start = () =>
    loadPyodide({
      indexURL: `${runtimeDir}/`,
      stdLibURL: path.join(runtimeDir, "stdlib.zip"),
      lockFileContents: { info: { abi_version: runtime.abiVersion }, packages: {} },
      stdout: () => {},
    });
  /** Unpack the engine wheel and its bytecode, as the worker does. @param {any} pyodide */
  const installEngine = async (pyodide) => {
    pyodide.unpackArchive(await bytesOf(runtime.wheelURL), "wheel", { extractDir: SITE_PACKAGES });
    pyodide.unpackArchive(await bytesOf(runtime.engineBytecodeURL), "zip", { extractDir: SITE_PACKAGES });
    pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${SITE_PACKAGES}")\nif finder: finder.invalidate_caches()`);
  };
  return { site, runtime, block, bytesOf, start, installEngine };
}
