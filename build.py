"""Build the static site into dist/: the page prerendered by the engine, its
scripts and styles, the engine wheel and the Pyodide runtime files it needs.

    python build.py                 build dist/ from fixtures/store.json
    python build.py --serve         build, then serve on http://127.0.0.1:8000/
    python build.py --store FILE    build a course site around another store
    python build.py --scorm         also write dist-scorm.zip, a SCORM 1.2 package
    python build.py --scorm --no-score   the same, reporting completion but no score
    python build.py --cmi5          also write dist-cmi5.zip, a cmi5 package (cmi5.xml + the site)
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import jinja2
from markupsafe import Markup

import engine
from engine.fields import field_rows, outcome_rows, policy_schema, tables_js

ROOT = Path(__file__).resolve().parent
SITE = ROOT / "site"
PYODIDE_PACKAGE = ROOT / "node_modules" / "pyodide"
ZSTD_PACKAGE = ROOT / "node_modules" / "zstddec"
# The cmi5 launch contract, implemented by the npm package @xapi/cmi5; a --cmi5 build
# serves its browser module as js/vendor/cmi5.js (site/js/cmi5-reporter.js imports it).
CMI5_PACKAGE = ROOT / "node_modules" / "@xapi" / "cmi5"
DEFAULT_STORE = ROOT / "fixtures" / "store.json"
DEFAULT_OUT = ROOT / "dist"

# The runtime files the page loads as they are, besides the WebAssembly module (sent
# zstd-compressed, see compress_zstd) and the standard library (built as bytecode, see
# build_bytecode): no lock file (an inline one is passed), no source maps, type files
# or demo consoles.
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs")
PYODIDE_WASM = "pyodide.asm.wasm"
# Level 19 with a window as large as the file: the stdlib is a stored zip compressed
# whole, so the whole library shares one window. Higher levels gain next to nothing.
ZSTD_LEVEL = 19

# The modules loaded by name: index.html's two scripts and Python's worker (which
# engine-client.js creates from its URL). The build bundles each, with what it imports,
# under its own name; code two of them share goes into chunks of its own (js/chunk-*.js).
ENTRY_MODULES = ("engine-start.js", "main.js", "engine-worker.js")
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
LOADABLE_ENTRY = "worker-loadable.js"  # generated while bundling, see bundle_modules

# The modules no worker may import: index.html's two scripts use the DOM as they load,
# and the worker's own script is loaded by the warm-up as its script. A bundled file
# holding any of them is left out of "warmModules" below.
LOADED_WITH_DOM = set(ENTRY_MODULES)

# Generated from engine/fields.py: the page's copy of the tables (the build writes a
# fresh one into dist/js) and the policy section of the store schema, for editors.
TABLES_JS = SITE / "js" / "tables.js"
STORE_SCHEMA = ROOT / "fixtures" / "store.schema.json"


def write_tables() -> None:
    """Rewrite the files generated from the field table, after editing it."""
    TABLES_JS.write_text(tables_js(), encoding="utf-8")
    # The policy is the schema's last definition: its block is replaced as text, so the
    # hand-kept layout of the rest of the file stays as it is.
    text = STORE_SCHEMA.read_text(encoding="utf-8")
    start = text.index('\n    "policy": {')
    block = json.dumps(policy_schema(), ensure_ascii=False, indent=2).replace("\n", "\n    ")
    STORE_SCHEMA.write_text(f'{text[:start]}\n    "policy": {block}\n  }}\n}}\n', encoding="utf-8")


# Inlined into index.html: first-frames.js must run before the body is parsed (see the
# file), and the stylesheet inline spares a first visit one round trip before its first
# paint.
INLINE_SCRIPT = SITE / "js" / "first-frames.js"
INLINE_STYLE = SITE / "css" / "site.css"


def early_modules(bundle: Bundle) -> list[str]:
    """The page's modulepreload list, as paths from the page: the files whose loading
    decides when Python's downloads start. engine-start.js's imports (it creates Python's
    worker, and runs only once all of them are in; it has a <script> of its own), then the
    worker's script and its imports (it starts the downloads once it has them). A module
    loader finds imports one level at a time, one round trip each on a slow link;
    preloaded, they are asked for at once."""
    modules = bundle.static_imports("js/engine-start.js")[1:] + bundle.static_imports("js/engine-worker.js")
    return list(dict.fromkeys(modules))


def inline_source(text: str) -> str:
    """A CSP source that allows exactly this inline script or stylesheet."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(script: str, style: str, *, cmi5: bool = False) -> str:
    """Only this site's own files and the two inline blocks, by their hashes; WebAssembly
    compilation is the one exception to "no eval". A cmi5 package also talks to the LMS's
    learning record store, wherever the launch says it is (over HTTPS, or on this origin)."""
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src 'self' 'wasm-unsafe-eval' {inline_source(script)}",
            "worker-src 'self'",
            "connect-src 'self' https:" if cmi5 else "connect-src 'self'",
            f"style-src 'self' {inline_source(style)}",
            "img-src 'self' data:",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'none'",
        ]
    )


# Replaced by the build id once every other file is written (see write_service_worker).
BUILD_ID_PLACEHOLDER = "@@build-id@@"


class BuildError(Exception):
    """A problem the person building must fix; the message says how."""


def build(
    *,
    out: Path = DEFAULT_OUT,
    store_path: Path = DEFAULT_STORE,
    scorm: bool = False,
    cmi5: bool = False,
    score: bool = True,
    quiet: bool = False,
) -> Path:
    """Write the whole site to ``out`` (replacing it) and return the index path.

    With ``scorm``, also write ``<out>-scorm.zip``: the site as a SCORM 1.2 package; with
    ``cmi5``, ``<out>-cmi5.zip``: cmi5.xml and the site, one assignable unit. Without
    ``score`` the page reports completion to an LMS but no score (nor passed or failed).
    """
    say = (lambda _msg: None) if quiet else (lambda msg: print(msg, file=sys.stderr))
    store = load_store(store_path)
    pyodide = pyodide_info()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    say("· engine wheel")
    wheel = build_wheel(out / "wheels")
    say(f"· Pyodide {pyodide['version']} runtime files, the WebAssembly module zstd-compressed")
    runtime_dir = copy_runtime(out / "pyodide" / pyodide["version"])
    wasm = _named_by_content(
        compress_zstd((PYODIDE_PACKAGE / PYODIDE_WASM).read_bytes()), "pyodide.asm", ".wasm.zst", runtime_dir
    )
    zstd_decoder = copy_zstd_decoder(runtime_dir, out / "licenses")
    say("· standard library and engine as bytecode, compiled by that Pyodide under Node")
    stdlib, engine_bytecode = build_bytecode(wheel, store, runtime_dir)
    say("· prerendering the default configuration")
    result = engine.run({"store": store, "policy": {}})
    labels = {t["id"]: t["label"] for t in store["tenants"]}
    chosen = (result["selected"] or result["ranked"] or [result["records"][0]["id"]])[0]
    fragments = prerender(store, result, labels, chosen)
    say("· page, scripts and styles")
    bundle = copy_assets(out)
    if cmi5:
        copy_cmi5_library(out / "js" / "vendor", out / "licenses")
    page_modules = sorted(rel(path, out) for path in (out / "js").rglob("*.js"))
    runtime: dict[str, Any] = {
        "pyodideModule": f"{rel(runtime_dir, out)}/pyodide.mjs",
        "indexURL": f"{rel(runtime_dir, out)}/",
        "wasmURL": rel(wasm, out),
        "stdLibURL": rel(stdlib, out),
        "zstdDecoderURL": rel(zstd_decoder, out),
        "wheelURL": rel(wheel, out),
        "engineBytecodeURL": rel(engine_bytecode, out),
        "abiVersion": pyodide["abi_version"],
        # The page's modules that load without a DOM: engine-start.js preloads them all at
        # once, and the worker imports them once more when the first visit is idle
        # (engine-worker.js, warmCodeCache): their first load out of the service worker's cache.
        "warmModules": [
            path
            for path in page_modules
            if path in bundle.holds
            and not any(LOADED_WITH_DOM.intersection(bundle.holds[f]) for f in bundle.static_imports(path))
        ],
        # All of them, which the page then loads once more itself (page-code-cache.js), so
        # that a repeat visit finds their compiled code cached.
        "pageModules": page_modules,
        # Where the worker keeps a memory snapshot of this exact Python + engine in
        # the browser's Cache Storage (never a file on the server): named by what it
        # contains, so a new runtime, stdlib or engine never restores an old one.
        "snapshotURL": f"python-snapshot-{content_hash('|'.join((rel(wasm, out), rel(wheel, out), rel(stdlib, out), rel(engine_bytecode, out))).encode())}.bin",
    }
    index = out / "index.html"
    lms = {"score": score, "cmi5": cmi5}
    index.write_text(
        render_page(store, result, fragments, runtime, pyodide, early_modules(bundle), lms), encoding="utf-8"
    )
    say("· service worker for offline use")
    build_id = write_service_worker(out)
    say(f"built {out}: build {build_id}, {sum(f.stat().st_size for f in out.rglob('*') if f.is_file()) / 1e6:.1f} MB")
    if scorm:
        package = write_scorm_package(out, store["title"], build_id)
        say(f"SCORM 1.2 package: {package} ({package.stat().st_size / 1e6:.1f} MB)")
    if cmi5:
        package = write_cmi5_package(out, store, score=score)
        say(f"cmi5 package: {package} ({package.stat().st_size / 1e6:.1f} MB)")
    return index


def load_store(path: Path) -> Any:
    """Read and validate a store, refusing it with the engine's own messages."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(f"store file {path} does not exist") from None
    except json.JSONDecodeError as error:
        raise BuildError(f"{path} is not valid JSON ({error})") from None
    try:
        engine.parse_store(data)
    except engine.InputError as error:
        lines = "\n".join(f"  {p}: {m}" for p, m in error.problems)
        raise BuildError(f"{path} is not a valid store:\n{lines}") from None
    return data


def pyodide_info() -> dict[str, str]:
    package = PYODIDE_PACKAGE / "package.json"
    if not package.exists():
        raise BuildError("node_modules/pyodide is missing: run `npm ci` first")
    lock = json.loads((PYODIDE_PACKAGE / "pyodide-lock.json").read_text())
    return {
        "version": json.loads(package.read_text())["version"],
        "abi_version": lock["info"]["abi_version"],
        "python": lock["info"]["python"],
    }


def build_wheel(directory: Path) -> Path:
    """The engine wheel, built by the same backend pip uses; reproducible by default.

    It lands in a folder named by its content hash, so its URL changes whenever its
    bytes do and caches can keep it forever (the file name must stay a wheel name).
    """
    from hatchling.builders.wheel import WheelBuilder

    with tempfile.TemporaryDirectory() as scratch:
        (artifact,) = WheelBuilder(str(ROOT)).build(directory=scratch, versions=["standard"])
        built = Path(artifact)
        target = directory / content_hash(built.read_bytes()) / built.name
        target.parent.mkdir(parents=True)
        shutil.copyfile(built, target)
    return target


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def copy_runtime(directory: Path) -> Path:
    directory.mkdir(parents=True)
    for name in RUNTIME_FILES:
        shutil.copyfile(PYODIDE_PACKAGE / name, directory / name)
    return directory


@functools.lru_cache(maxsize=4)
def compress_zstd(data: bytes) -> bytes:
    """``data`` as one zstd frame (content size in the header), deterministic for a given
    zstandard release; remembered per process, as the tests build several sites."""
    import zstandard

    # With a checksum, a file damaged on its way fails to decode instead of running.
    params = zstandard.ZstdCompressionParameters.from_level(
        ZSTD_LEVEL,
        window_log=max(10, (len(data) - 1).bit_length()),
        source_size=len(data),
        write_checksum=True,
    )
    return zstandard.ZstdCompressor(compression_params=params).compress(data)


def copy_zstd_decoder(directory: Path, licenses: Path) -> Path:
    """The zstd library's streaming decoder as WebAssembly, which site/js/zstd.js drives.

    The zstddec package ships it only base64-encoded inside its JavaScript, whose loader
    fetches it as a data: URL (which a strict Content-Security-Policy forbids) and whose
    base64 is a third larger; the binary is written out here and served as a file of its
    own, gzip-compressed by the host like any .wasm. Its BSD licence asks that the
    notice travel with the binary: ``licenses``/zstddec.txt."""
    module = ZSTD_PACKAGE / "dist" / "zstddec-stream.mjs"
    if not module.exists():
        raise BuildError("node_modules/zstddec is missing: run `npm ci` first")
    match = re.search(r'const wasm = "([A-Za-z0-9+/=]+)"', module.read_text(encoding="utf-8"))
    if not match:
        raise BuildError(f"{module.relative_to(ROOT)} no longer embeds its decoder as expected")
    data = base64.b64decode(match.group(1))
    if not data.startswith(b"\0asm"):
        raise BuildError(f"{module.relative_to(ROOT)} embeds something that is not WebAssembly")
    path = _named_by_content(data, "zstd-decoder", ".wasm", directory)
    licenses.mkdir(exist_ok=True)
    shutil.copyfile(ZSTD_PACKAGE / "LICENSE", licenses / "zstddec.txt")
    return path


def build_bytecode(wheel: Path, store: Any, directory: Path) -> tuple[Path, Path]:
    """The trimmed bytecode stdlib zip (stored, then zstd-compressed whole) and the engine's
    bytecode zip (tools/build-bytecode.mjs), each named by its content hash so caches never
    mix versions."""
    sample = {"store": store, "policy": {"store": "all", "previous_sessions": True}}
    with tempfile.TemporaryDirectory() as scratch:
        request = Path(scratch) / "request.json"
        request.write_text(json.dumps(sample))
        stdlib, engine_code = Path(scratch) / "stdlib.zip", Path(scratch) / "engine.zip"
        run_node(
            ROOT / "tools" / "build-bytecode.mjs",
            str(PYODIDE_PACKAGE),
            str(wheel),
            str(request),
            str(stdlib),
            str(engine_code),
        )
        return (
            _named_by_content(compress_zstd(stdlib.read_bytes()), "stdlib", ".zip.zst", directory),
            _named_by_content(engine_code.read_bytes(), "engine-bytecode", ".zip", directory),
        )


def _named_by_content(data: bytes, prefix: str, suffix: str, directory: Path) -> Path:
    """Write ``data`` into ``directory`` as <prefix>-<content hash><suffix>."""
    path = directory / f"{prefix}-{content_hash(data)}{suffix}"
    path.write_bytes(data)
    return path


def run_node(script: Path, *args: str, stdin: str | None = None) -> str:
    try:
        done = subprocess.run(["node", str(script), *args], input=stdin, capture_output=True, text=True, check=True)
    except FileNotFoundError:
        raise BuildError("Node.js is needed to build the site: install node (20 or newer)") from None
    except subprocess.CalledProcessError as error:
        raise BuildError(f"{script.name} failed:\n{error.stderr.strip()}") from None
    return done.stdout


def prerender(store: Any, result: Any, labels: dict[str, str], chosen: str) -> dict[str, Any]:
    """HTML fragments of the store and result, and the stage texts, from the page's own renderer."""
    payload = json.dumps({"store": store, "result": result, "tenantLabels": labels, "chosenId": chosen})
    output: dict[str, Any] = json.loads(run_node(ROOT / "tools" / "prerender.mjs", stdin=payload))
    return output


def copy_assets(out: Path) -> Bundle:
    """The page's scripts, bundled (see bundle_modules), and its icon."""
    shutil.copyfile(SITE / "favicon.svg", out / "favicon.svg")
    with tempfile.TemporaryDirectory() as scratch:
        # The site's modules as they are, but for tables.js, generated afresh from the field table.
        source = Path(scratch) / "site" / "js"
        shutil.copytree(SITE / "js", source, ignore=shutil.ignore_patterns(INLINE_SCRIPT.name))  # inlined
        (source / TABLES_JS.name).write_text(tables_js(), encoding="utf-8")
        # Bundled beside the sources, then moved: chunks are named by a hash that also
        # covers their paths, which then stay the same from one build to the next.
        bundle = bundle_modules(source, Path(scratch) / "dist" / "js", worker_loadable(source))
        shutil.copytree(Path(scratch) / "dist" / "js", out / "js")
    # Dated a day before the page's code last changed (servers send the date as
    # Last-Modified): the same date from one build to the next, and never moments before a
    # visit. Chromium keeps no compiled code for a script whose Last-Modified is under a
    # minute old, so a site served right after an edit, or after a fresh clone, would
    # start without it, as no learner's visit to a deployed site does.
    changed = max(
        path.stat().st_mtime for path in [*(SITE / "js").rglob("*.js"), Path(engine.__file__).parent / "fields.py"]
    )
    dated = changed - 24 * 3600
    for path in (out / "js").rglob("*.js"):
        os.utime(path, (dated, dated))
    return bundle


@dataclass(frozen=True)
class Bundle:
    """What esbuild wrote, from its metafile: for each file (a path from the page), the
    files it imports statically, and the site modules it holds."""

    imports: dict[str, list[str]]
    holds: dict[str, list[str]]

    def static_imports(self, entry: str) -> list[str]:
        """entry and the files it imports statically, directly or not, breadth first."""
        found = [entry]
        for file in found:  # grows while read
            found.extend(imported for imported in self.imports[file] if imported not in found)
        return found


def worker_loadable(source: Path) -> list[str]:
    """The site's modules a worker can load: all but those in LOADED_WITH_DOM."""
    modules = (p.relative_to(source).as_posix() for p in sorted(source.rglob("*.js")))
    return [m for m in modules if m not in LOADED_WITH_DOM]


def bundle_modules(source: Path, target: Path, loadable_modules: list[str]) -> Bundle:
    """Bundle the modules in ``source`` into ``target``: each of ENTRY_MODULES under its own
    name, with what it imports, and the code two of them share as chunks named by content.

    A page of three dozen modules is three dozen requests, found one level of imports at a
    time: on a slow link each level is a round trip, and each request holds a slow phone's
    main thread for milliseconds. Not minified: the code stays readable in a browser's
    developer tools as it is, each module's part headed by its file name, with no source
    map to fetch (minifying would save some 8 KB of gzip). Dynamic import() keeps its own
    chunk, loaded when it runs; ./vendor/ (the cmi5 library of a --cmi5 build) is left to
    be loaded as it is.

    The ``loadable_modules`` are kept out of the entries' own files, so that Python's
    worker can load every chunk, and with it nearly all of the page's code, for the code
    cache (see "warmModules" in build()): each is imported by one more entry, generated
    for the purpose, whose file is then dropped.
    """
    if not ESBUILD.exists():
        raise BuildError("node_modules/esbuild is missing: run `npm ci` first")
    loadable = source / LOADABLE_ENTRY
    loadable.write_text("".join(f'import "./{module}";\n' for module in loadable_modules), encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        metafile = Path(scratch) / "meta.json"
        command = [
            str(ESBUILD),
            *ENTRY_MODULES,
            LOADABLE_ENTRY,
            "--bundle",
            "--splitting",
            "--format=esm",
            f"--outdir={target}",
            "--chunk-names=chunk-[hash]",
            "--external:./vendor/*",
            "--charset=utf8",
            "--log-level=error",
            f"--metafile={metafile}",
        ]
        try:
            subprocess.run(command, cwd=source, capture_output=True, text=True, check=True)
        except subprocess.CalledProcessError as error:
            raise BuildError(f"bundling the page's modules failed:\n{error.stderr.strip()}") from None
        outputs = json.loads(metafile.read_text(encoding="utf-8"))["outputs"]
    loadable.unlink()
    (target / LOADABLE_ENTRY).unlink()  # imported by nothing

    def from_page(path: str) -> str:
        return (source / path).resolve().relative_to(target.parent.resolve()).as_posix()

    imports: dict[str, list[str]] = {}
    holds: dict[str, list[str]] = {}
    for path, output in outputs.items():
        if output.get("entryPoint") == LOADABLE_ENTRY:
            continue
        name = from_page(path)
        imports[name] = [from_page(i["path"]) for i in output["imports"] if i["kind"] == "import-statement"]
        holds[name] = list(output["inputs"])
    return Bundle(imports, holds)


def script_json(value: Any) -> Markup:
    """JSON for a <script type="application/json"> element: "<" escaped, so no text in
    the store can close the element."""
    return Markup(json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c"))


def render_page(
    store: Any,
    result: Any,
    fragments: dict[str, str],
    runtime: dict[str, Any],
    pyodide: dict[str, str],
    early: list[str],
    lms: dict[str, bool] | None = None,
) -> str:
    fields = field_rows()
    lms = lms or {"score": True, "cmi5": False}
    boot = {
        "store": store,
        "fields": fields,
        "outcomes": outcome_rows(),
        "result": result,
        "buildId": BUILD_ID_PLACEHOLDER,
        # What an LMS package reports (site/js/panels/lms.js).
        "lms": lms,
    }
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(SITE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    template = env.get_template("index.html.j2")
    script = INLINE_SCRIPT.read_text(encoding="utf-8")
    style = INLINE_STYLE.read_text(encoding="utf-8")
    for path, text in ((INLINE_SCRIPT, script), (INLINE_STYLE, style)):
        if "</" in text:  # would end the <script> or <style> element early
            raise BuildError(f"{path.relative_to(ROOT)} is inlined into index.html and must not contain '</'")
    return template.render(
        csp=content_security_policy(script, style, cmi5=lms["cmi5"]),
        inline_script=Markup(script),
        inline_style=Markup(style),
        store=store,
        policy=result["policy"],
        fields=fields,
        stop_words=sorted(engine.STOP_WORDS),
        prerendered={
            **{k: Markup(v) for k, v in fragments["html"].items()},
            "options": {k: Markup(v) for k, v in fragments["options"].items()},
            "question": result["question"]["text"],
        },
        stages=fragments["stages"],
        page_size=fragments["pageSize"],
        boot_json=script_json(boot),
        runtime_json=script_json(runtime),
        early_modules=early,
        engine_version=engine.__version__,
        pyodide_version=pyodide["version"],
        pyodide_python=pyodide["python"],
    )


def write_service_worker(out: Path) -> str:
    """sw.js with the exact list of files to precache and a build id from their bytes.

    The id goes into index.html too (replacing a placeholder), so the page can tell
    a learner when a new version is running.
    """
    files = sorted(p for p in out.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    for path in files:
        digest.update(rel(path, out).encode() + b"\0" + path.read_bytes() + b"\0")
    build_id = digest.hexdigest()[:16]
    index = out / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace(BUILD_ID_PLACEHOLDER, build_id), encoding="utf-8")
    manifest = {
        "hash": build_id,
        # index.html is cached as "./", the URL every link to the page shares.
        "files": ["./" if path == index else rel(path, out) for path in files],
        "immutable": ["pyodide/", "wheels/"],
    }
    script = (SITE / "sw.js").read_text(encoding="utf-8")
    (out / "sw.js").write_text(f"const BUILD = {json.dumps(manifest, indent=1)};\n{script}", encoding="utf-8")
    return build_id


def scorm_package_path(out: Path) -> Path:
    return out.parent / f"{out.name}-scorm.zip"


def write_scorm_package(out: Path, title: str, build_id: str) -> Path:
    """Zip the site with an imsmanifest.xml that lists every file, for an LMS to import.

    The page finds the LMS's SCORM 1.2 API itself (site/js/scorm.js); this only
    describes the package: one SCO launched at index.html.
    """
    files = sorted(rel(p, out) for p in out.rglob("*") if p.is_file())
    name = escape(title)
    manifest = "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<manifest identifier="retrieval-workbench-{build_id}" version="1.0"',
            '  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"',
            '  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">',
            "  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>",
            '  <organizations default="workbench">',
            '    <organization identifier="workbench">',
            f"      <title>{name}</title>",
            f'      <item identifier="experiment" identifierref="site"><title>Retrieval Workbench: {name}</title></item>',
            "    </organization>",
            "  </organizations>",
            "  <resources>",
            '    <resource identifier="site" type="webcontent" adlcp:scormtype="sco" href="index.html">',
            *[f'      <file href="{escape(f)}"/>' for f in files],
            "    </resource>",
            "  </resources>",
            "</manifest>",
            "",
        ]
    )
    package = scorm_package_path(out)
    write_zip(package, [("imsmanifest.xml", manifest.encode()), *[(f, (out / f).read_bytes()) for f in files]])
    return package


def copy_cmi5_library(vendor: Path, licenses: Path) -> Path:
    """@xapi/cmi5's browser module (one file, its dependencies bundled) and its licence."""
    module = CMI5_PACKAGE / "dist" / "Cmi5.esm.js"
    if not module.exists():
        raise BuildError("node_modules/@xapi/cmi5 is missing: run `npm ci` first")
    vendor.mkdir(parents=True, exist_ok=True)
    target = vendor / "cmi5.js"
    shutil.copyfile(module, target)
    licenses.mkdir(exist_ok=True)
    shutil.copyfile(CMI5_PACKAGE / "LICENSE.md", licenses / "xapi-cmi5.txt")
    return target


def cmi5_package_path(out: Path) -> Path:
    return out.parent / f"{out.name}-cmi5.zip"


def course_iri(store: Any) -> str:
    """The course's IRI, the same for every build of the same store title, so an LMS
    keeps matching a re-uploaded package to the learners' records."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"retrieval-workbench:{store['title']}").urn


def cmi5_course_structure(store: Any, *, score: bool) -> str:
    """cmi5.xml: one course with one assignable unit, the page, launched in any window.

    The AU is satisfied once completed (a whole guided experiment finished); with a
    score it also reports passed or failed, against the LMS's mastery score if one is set.
    """
    course = course_iri(store)
    title = escape(store["title"])
    described = escape(
        "Watch an AI agent's memory retrieval step by step; finish a guided experiment, predicting each tray."
        + ("" if score else " No score is reported.")
    )
    return "\n".join(
        [
            '<?xml version="1.0" encoding="utf-8"?>',
            '<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">',
            f'  <course id="{course}">',
            f'    <title><langstring lang="en">{title}</langstring></title>',
            f'    <description><langstring lang="en">{described}</langstring></description>',
            "  </course>",
            f'  <au id="{course}/experiment" moveOn="Completed" launchMethod="AnyWindow">',
            f'    <title><langstring lang="en">Retrieval Workbench: {title}</langstring></title>',
            f'    <description><langstring lang="en">{described}</langstring></description>',
            "    <url>index.html</url>",
            "  </au>",
            "</courseStructure>",
            "",
        ]
    )


def write_cmi5_package(out: Path, store: Any, *, score: bool) -> Path:
    """Zip cmi5.xml at the root beside the site, for an LMS to import."""
    files = sorted(rel(p, out) for p in out.rglob("*") if p.is_file())
    package = cmi5_package_path(out)
    members = [
        ("cmi5.xml", cmi5_course_structure(store, score=score).encode()),
        *[(f, (out / f).read_bytes()) for f in files],
    ]
    write_zip(package, members)
    return package


def write_zip(package: Path, members: list[tuple[str, bytes]]) -> None:
    """A reproducible zip: fixed dates and modes."""
    with zipfile.ZipFile(package, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members:
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)


def rel(path: Path, out: Path) -> str:
    return path.relative_to(out).as_posix()


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Serves dist/ with the types browsers insist on for modules and WebAssembly,
    optionally under a sub-path as GitHub Pages does for project sites."""

    prefix = "/"

    extensions_map = {  # noqa: RUF012 - the base class reads it as a class attribute
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".whl": "application/zip",
        ".json": "application/json",
    }

    def send_head(self) -> Any:
        path = self.path.split("?", 1)[0]
        if path + "/" == self.prefix:  # the project's root without its slash
            self.send_response(301)
            self.send_header("Location", self.prefix)
            self.end_headers()
            return None
        if not path.startswith(self.prefix):
            self.send_error(404, "outside the site")
            return None
        return super().send_head()

    def translate_path(self, path: str) -> str:
        return super().translate_path("/" + path[len(self.prefix) :])

    def log_message(self, format: str, *args: Any) -> None:
        if getattr(self.server, "verbose", True):
            super().log_message(format, *args)


def make_server(
    directory: Path, port: int = 8000, host: str = "127.0.0.1", prefix: str = "/"
) -> http.server.ThreadingHTTPServer:
    """A static server for ``directory``, its index at ``prefix`` (``/`` or ``/a/b/``)."""
    handler = type("Handler", (StaticHandler,), {"prefix": prefix})
    return http.server.ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(directory)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: dist/)")
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE, help="store JSON to build the site around")
    parser.add_argument(
        "--scorm", action="store_true", help="also write <out>-scorm.zip, a SCORM 1.2 package for an LMS"
    )
    parser.add_argument(
        "--cmi5", action="store_true", help="also write <out>-cmi5.zip, a cmi5 package (cmi5.xml and the site)"
    )
    parser.add_argument(
        "--no-score",
        action="store_true",
        help="with --scorm or --cmi5: report completion only, no score (and in cmi5 no passed or failed)",
    )
    parser.add_argument("--serve", action="store_true", help="serve the built site after building")
    parser.add_argument(
        "--write-tables",
        action="store_true",
        help="only rewrite the files generated from engine/fields.py (site/js/tables.js, the store "
        "schema's policy section), after editing the field table",
    )
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default: 8000)")
    args = parser.parse_args(argv)
    if args.write_tables:
        write_tables()
        print(f"wrote {TABLES_JS.relative_to(ROOT)} and {STORE_SCHEMA.relative_to(ROOT)}")
        return 0
    try:
        build(out=args.out, store_path=args.store, scorm=args.scorm, cmi5=args.cmi5, score=not args.no_score)
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 2
    if not args.serve:
        print(f"Serve it with: python build.py --serve   (or any static server in {args.out})")
        return 0
    server = make_server(args.out, args.port)
    print(f"Serving {args.out} at http://127.0.0.1:{args.port}/  (Ctrl+C to stop)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
