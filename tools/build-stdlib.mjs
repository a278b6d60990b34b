// Build-time: a standard-library zip of bytecode, compiled by the pinned Pyodide itself.
//
// Stock python_stdlib.zip holds .py sources, so every page load recompiles ~125
// modules. This boots the same Pyodide under Node, installs the engine wheel the way
// the page's worker does, runs the engine once, records which standard-library files
// were imported from the zip, compiles exactly those to unchecked-hash .pyc (same
// CPython, so the bytecode magic always matches) and writes a deterministic zip:
// sorted names, fixed timestamps. A second Pyodide then boots from the new zip and
// runs the engine again, so a missing module fails the build, not a learner's page.
//
// usage: node tools/build-stdlib.mjs <pyodide dir> <engine wheel> <request.json> <out.zip>
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelPath, requestPath, outPath] = process.argv.slice(2).map((p) => path.resolve(p));
for (const event of ["uncaughtException", "unhandledRejection"]) {
  // Pyodide's own stack traces print a megabyte of minified code; the message is enough.
  process.on(event, (error) => {
    console.error(`build-stdlib: ${error?.message ?? error}`);
    process.exit(1);
  });
}

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const STDLIB_ZIP = "/lib/python314.zip";
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const abiVersion = JSON.parse(readFileSync(path.join(pyodideDir, "pyodide-lock.json"), "utf8")).info.abi_version;
const wheelFile = readFileSync(wheelPath);
const wheel = new Uint8Array(wheelFile.buffer, wheelFile.byteOffset, wheelFile.byteLength);
const request = readFileSync(requestPath, "utf8");

/** Boot Pyodide from a stdlib zip and install + exercise the engine as the worker does. */
async function bootWithEngine(stdLibURL) {
  const pyodide = await loadPyodide({
    indexURL: `${pyodideDir}/`,
    stdLibURL,
    lockFileContents: { info: { abi_version: abiVersion }, packages: {} },
    stdout: () => {},
    stderr: (text) => console.error(`[python] ${text}`),
  });
  pyodide.unpackArchive(wheel, "wheel", { extractDir: SITE_PACKAGES });
  pyodide.runPython(`import sys\nfinder = sys.path_importer_cache.get("${SITE_PACKAGES}")\nif finder: finder.invalidate_caches()`);
  const answer = JSON.parse(pyodide.pyimport("engine").run_json(request));
  if (answer.error) throw new Error(`the engine refused the sample request: ${answer.error.message}`);
  return pyodide;
}

const tracer = await bootWithEngine(path.join(pyodideDir, "python_stdlib.zip"));
const globals = tracer.toPy({ ZIP: STDLIB_ZIP });
tracer.runPython(
  String.raw`
import importlib.util, io, sys, zipfile
import importlib._bootstrap_external as bootstrap

prefix = ZIP + "/"
used = set()
for module in list(sys.modules.values()):
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    if isinstance(origin, str) and origin.startswith(prefix):
        used.add(origin[len(prefix):])
source_zip = zipfile.ZipFile(ZIP)
names = set(source_zip.namelist())
for name in list(used):  # every enclosing package's __init__ too
    parts = name.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        init = "/".join(parts[:depth]) + "/__init__.py"
        if init in names:
            used.add(init)

out = io.BytesIO()
with zipfile.ZipFile(out, "w") as target:
    for name in sorted(used):
        source = source_zip.read(name)
        code = compile(source, prefix + name, "exec", dont_inherit=True)
        # Unchecked hash-based .pyc: no timestamp inside, and never revalidated.
        data = bytes(bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))
        info = zipfile.ZipInfo(name[:-3] + ".pyc", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 3
        info.external_attr = 0o100644 << 16
        target.writestr(info, data, compresslevel=9)
ZIP_BYTES = out.getvalue()
COUNT = len(used)
`,
  { globals },
);
const zipBytes = globals.get("ZIP_BYTES").toJs();
const count = globals.get("COUNT");
writeFileSync(outPath, zipBytes);

await bootWithEngine(outPath); // verification: the trimmed zip must be enough
console.log(JSON.stringify({ modules: count, bytes: zipBytes.length }));
