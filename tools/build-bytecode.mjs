// Build-time: the Python bytecode the page runs, compiled by the pinned Pyodide itself
// (same CPython, so the bytecode magic always matches). Two zips:
//
// * The standard library. Stock python_stdlib.zip holds .py sources, so every page load
//   recompiles every module it imports. This boots Pyodide under Node, installs the
//   engine wheel the way the page's worker does, runs the engine once the way the page
//   does (open_json, then answer_json) and once as run_json, records which
//   standard-library files were imported from the zip and compiles exactly those to
//   unchecked-hash .pyc, optimised as by python -OO (no docstrings, no asserts): nothing
//   on the page reads a standard-library docstring, the bytecode is smaller, so Python
//   starts sooner on a first visit, and zipimport loads a .pyc whatever its optimisation
//   level. The zip is stored, not deflated: build.py compresses it whole with zstd.
// * Both are compiled without column ranges (PYTHONNODEBUGRANGES, as python -X
//   no_debug_ranges): tracebacks keep their line numbers but lose the ^^^ markers under
//   the failing expression. The ranges compress poorly, and the page downloads every
//   byte of this bytecode and keeps it in memory.
// * The engine. The wheel holds sources only (it is the same wheel pip installs on any
//   CPython), so a first visit compiled them before its first answer. This zip holds
//   engine/__pycache__/*.cpython-314.pyc, checked-hash: Python compares each with the
//   hash of the source the wheel installed and uses it only when they match, so a
//   stale archive can never run old code, it only costs the compile it was meant to save.
//   Compiled without docstrings (nothing in the page reads one) but with its asserts, and
//   stored, not deflated: build.py compresses the whole zip with zstd, as the stdlib's.
//
// Both zips are deterministic (sorted names, fixed timestamps). A second Pyodide then
// boots from the new stdlib zip with the engine wheel and its bytecode, checks that no
// engine module was compiled from source and runs the engine again, so a missing
// module or unusable bytecode fails the build, not a learner's page.
//
// usage: node tools/build-bytecode.mjs <pyodide dir> <engine wheel> <request.json> <stdlib out.zip> <engine out.zip> [<vectors.rwse>]
// request.json is a run_json request, {"store": …, "policy": …}; the page's path gets
// its two halves, each as JSON text. With a vector file, the engine also loads it as the
// page's worker does (written into Pyodide's file system, then engine.load_embedding) and
// answers the same policy under the scorers that read the vectors, so whatever those
// import is in the trimmed standard library too.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { VECTOR_SCORERS } from "../site/js/core/scorers.js";

const [pyodideDir, wheelPath, requestPath, stdlibOutPath, engineOutPath, vectorsPath] = process.argv.slice(2).map((p) => path.resolve(p));
for (const event of ["uncaughtException", "unhandledRejection"]) {
  // Pyodide's own stack traces print a megabyte of minified code; the message is enough.
  process.on(event, (error) => {
    console.error(`build-bytecode: ${error?.message ?? error}`);
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
const { store, policy } = JSON.parse(request);
const storeText = JSON.stringify(store);
const policyText = JSON.stringify(policy ?? {});

const VECTORS_IN_PYTHON = "/tmp/vectors.rwse";

/** The engine as the page's worker runs it, then as run_json; a refusal fails the build. */
function exercise(pyodide, engine) {
  const opening = engine.open_json(storeText);
  // Copied: an attribute's proxy is destroyed with the proxy it was read from.
  const session = opening.session?.copy();
  const reply = JSON.parse(opening.reply);
  opening.destroy();
  if (!session) throw new Error(`the engine refused the sample store: ${reply.error.message}`);
  const policies = [policyText];
  if (vectorsPath) {
    pyodide.FS.writeFile(VECTORS_IN_PYTHON, readFileSync(vectorsPath));
    const loaded = JSON.parse(engine.load_embedding(VECTORS_IN_PYTHON));
    pyodide.FS.unlink(VECTORS_IN_PYTHON);
    if (loaded.error) throw new Error(`the engine refused the vectors: ${loaded.error.message}`);
    for (const scorer of VECTOR_SCORERS) policies.push(JSON.stringify({ ...JSON.parse(policyText), scorer }));
  }
  for (const text of policies) {
    // The answer and its parts, as the worker converts them (worker-loop.js).
    const pair = session.answer_json(text);
    const [answer] = pair.toJs();
    pair.destroy();
    const slim = JSON.parse(answer);
    if (slim.error) throw new Error(`the engine refused the sample policy ${text}: ${slim.error.message}`);
  }
  session.destroy();
  const answer = JSON.parse(engine.run_json(request));
  if (answer.error) throw new Error(`the engine refused the sample request: ${answer.error.message}`);
}

/**
 * Boot Pyodide from a stdlib zip and install + exercise the engine as the worker does
 * (with its bytecode zip when given). Returns Pyodide and the engine modules Python
 * had to compile from source.
 */
async function bootWithEngine(stdLibURL, engineBytecode = null) {
  const pyodide = await loadPyodide({
    indexURL: `${pyodideDir}/`,
    stdLibURL,
    env: { PYTHONNODEBUGRANGES: "1" }, // what this Python compiles has no column ranges
    lockFileContents: { info: { abi_version: abiVersion }, packages: {} },
    stdout: () => {},
    stderr: (text) => console.error(`[python] ${text}`),
  });
  pyodide.unpackArchive(wheel, "wheel", { extractDir: SITE_PACKAGES });
  if (engineBytecode) pyodide.unpackArchive(engineBytecode, "zip", { extractDir: SITE_PACKAGES });
  pyodide.runPython(String.raw`
import sys
import importlib._bootstrap_external as bootstrap
finder = sys.path_importer_cache.get("${SITE_PACKAGES}")
if finder: finder.invalidate_caches()
# SourceLoader compiles only when no usable .pyc exists: note which files it compiles.
COMPILED = []
_compile = bootstrap.SourceLoader.source_to_code
def _noting(self, data, path, *args, **kwargs):
    COMPILED.append(path)
    return _compile(self, data, path, *args, **kwargs)
bootstrap.SourceLoader.source_to_code = _noting
`);
  const engine = pyodide.pyimport("engine");
  exercise(pyodide, engine);
  engine.destroy();
  const compiled = pyodide.runPython(`bootstrap.SourceLoader.source_to_code = _compile\n[p for p in COMPILED if p.startswith("${SITE_PACKAGES}/")]`).toJs();
  return { pyodide, compiled };
}

const { pyodide: tracer, compiled: engineSources } = await bootWithEngine(path.join(pyodideDir, "python_stdlib.zip"));
const globals = tracer.toPy({ ZIP: STDLIB_ZIP, SITE_PACKAGES });
tracer.runPython(
  String.raw`
import ast, importlib.util, io, os, sys, zipfile
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

DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)

def without_docstrings(source, filename):
    """The module's syntax tree less its docstrings. Every other statement keeps its line
    number, so tracebacks still point at the source the wheel installed."""
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        first = node.body[0] if isinstance(node, DOCUMENTED) and node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            node.body = node.body[1:] or [ast.copy_location(ast.Pass(), first)]
    return tree

def pyc_zip(sources, checked, optimize, compression, docstrings=True):
    """A deterministic zip of hash-based .pyc: (archive name, source bytes, file name) each."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name, source, filename in sources:
            tree = source if docstrings else without_docstrings(source, filename)
            code = compile(tree, filename, "exec", dont_inherit=True, optimize=optimize)
            data = bytes(bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(source), checked=checked))
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = compression
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            target.writestr(info, data, compresslevel=9)
    return out.getvalue()

# Unchecked: no timestamp inside, and never revalidated (the stdlib zip is never edited).
# Optimised as by -OO (see the top of this file). Stored, not deflated: build.py
# compresses the whole zip with zstd, one window across all modules, which compresses
# better than deflating each alone, and zipimport then reads each module without
# inflating it.
ZIP_BYTES = pyc_zip(
    ((name[:-3] + ".pyc", source_zip.read(name), prefix + name) for name in sorted(used)),
    checked=False,
    optimize=2,
    compression=zipfile.ZIP_STORED,
)
COUNT = len(used)

# The engine: every module the wheel installed, checked-hash .pyc at the path the import
# system looks for (engine/__pycache__/<name>.cpython-314.pyc).
installed = []
for folder, _dirs, files in os.walk(SITE_PACKAGES + "/engine"):
    installed += [folder + "/" + name for name in files if name.endswith(".py")]

def read(path):
    with open(path, "rb") as file:
        return file.read()

ENGINE_BYTES = pyc_zip(
    ((importlib.util.cache_from_source(path)[len(SITE_PACKAGES) + 1:], read(path), path) for path in sorted(installed)),
    checked=True,
    optimize=0,  # the engine keeps its asserts, as on any CPython
    compression=zipfile.ZIP_STORED,
    docstrings=False,
)
ENGINE_MODULES = len(installed)
`,
  { globals },
);
const stdlibBytes = globals.get("ZIP_BYTES").toJs();
const engineBytes = globals.get("ENGINE_BYTES").toJs();
writeFileSync(stdlibOutPath, stdlibBytes);
writeFileSync(engineOutPath, engineBytes);

// Verification: the trimmed zip must be enough, and the engine must run from its bytecode.
const { pyodide: checker, compiled } = await bootWithEngine(stdlibOutPath, engineBytes);
if (engineSources.length === 0) throw new Error("the sample run did not import the engine from the wheel");
if (compiled.length) throw new Error(`Python recompiled engine modules despite their bytecode: ${compiled.join(", ")}`);
const ranged = checker
  .runPython(
    `import json.decoder, engine
[m.__name__ for m in (json.decoder, engine) if any(p[2] is not None for f in vars(m).values() if callable(f) and hasattr(f, "__code__") for p in f.__code__.co_positions())]`,
  )
  .toJs();
if (ranged.length) throw new Error(`bytecode compiled with column ranges: ${ranged.join(", ")}`);
console.log(JSON.stringify({ modules: globals.get("COUNT"), bytes: stdlibBytes.length, engine_modules: globals.get("ENGINE_MODULES"), engine_bytes: engineBytes.length }));
