"""Build the static site into dist/: the page prerendered by the engine, its
scripts and styles, the engine wheel and the Pyodide runtime files it needs.

    python build.py                 build dist/ from fixtures/store.json
    python build.py --serve         build, then serve on http://127.0.0.1:8000/ (--port N)
    python build.py --serve --no-build   serve dist/ (or --out) as it was built
    python build.py --store FILE    build a course site around another store
    python build.py --scorm         also write dist-scorm.zip, a SCORM 1.2 package
    python build.py --scorm --no-score   the same, reporting completion but no score
    python build.py --cmi5          also write dist-cmi5.zip, a cmi5 package (cmi5.xml + the site)

dist/ is always the plain site; a cmi5 package holds its own copy with the cmi5 library.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import shutil
import sys
from pathlib import Path

from sitebuild.assemble import (
    Refused,
    cmi5_course_structure,
    content_security_policy,
    course_iri,
    make_site,
    package_members,
    prepare,
    problem_lines,
    zip_bytes,
)
from sitebuild.bundle import copy_assets
from sitebuild.files import BuildError, rel, site_files
from sitebuild.lms import cmi5_package_path, scorm_package_path
from sitebuild.packaging import write_packaging
from sitebuild.page import prerender, runtime_data
from sitebuild.paths import (
    DEFAULT_OUT,
    DEFAULT_STORE,
    INLINE_SCRIPT,
    INLINE_STYLE,
    PYODIDE_PACKAGE,
    ROOT,
    SCORERS_JS,
    SHAPES_JS,
    SITE,
    STORE_SCHEMA,
    TABLES_JS,
)
from sitebuild.runtime import (
    RUNTIME_FILES,
    RuntimeFiles,
    build_bytecode,
    build_wheel,
    copy_runtime,
    copy_zstd_decoder,
    pyodide_info,
    write_wasm,
)
from sitebuild.serve import StaticHandler, make_server
from sitebuild.store import load_store
from sitebuild.tables import write_tables
from sitebuild.vectors import copy_vectors

# What tests/, harness/ and bench/ use from the build, besides build() and main().
__all__ = [
    "DEFAULT_OUT",
    "DEFAULT_STORE",
    "INLINE_SCRIPT",
    "INLINE_STYLE",
    "PYODIDE_PACKAGE",
    "RUNTIME_FILES",
    "SITE",
    "BuildError",
    "StaticHandler",
    "build",
    "cmi5_course_structure",
    "cmi5_package_path",
    "content_security_policy",
    "course_iri",
    "main",
    "make_server",
    "scorm_package_path",
]


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
    ``out`` is the plain site either way: the cmi5 package's site, with the cmi5 library
    and a policy that lets the page reach the LMS's record store, is a copy made apart.
    """

    def say(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr)

    store_text = load_store(store_path)
    pyodide = pyodide_info()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    say("· engine wheel")
    wheel = build_wheel(out / "wheels")
    say(f"· Pyodide {pyodide.version} runtime files, the WebAssembly module zstd-compressed")
    runtime_dir = copy_runtime(out / "pyodide" / pyodide.version)
    wasm = write_wasm(runtime_dir)
    zstd_decoder = copy_zstd_decoder(runtime_dir, out / "licenses")
    say("· the static embedding's vectors, fetched by the page only when a scorer reads them")
    vectors = copy_vectors(out)
    say("· standard library and engine as bytecode, compiled by that Pyodide under Node")
    # Traced on the default store whatever the site's: every file but index.html and sw.js
    # is then the same for every store, so the page can package another store from them.
    sample = json.loads(DEFAULT_STORE.read_text(encoding="utf-8"))
    stdlib, engine_bytecode = build_bytecode(wheel, sample, runtime_dir, vectors.file)
    files = RuntimeFiles(runtime_dir, wasm, zstd_decoder, wheel, stdlib, engine_bytecode)

    say("· prerendering the default configuration")
    try:
        prepared = prepare(store_text)
    except Refused as refused:  # load_store let it through: a change to one but not the other
        raise BuildError("\n".join(problem_lines(refused.problems))) from None
    fragments = prerender(prepared.prerender_request())

    say("· page, scripts and styles")
    bundle = copy_assets(out)
    page_modules = sorted(rel(path, out) for path in (out / "js").rglob("*.js"))
    runtime = runtime_data(
        out,
        files,
        pyodide,
        page_modules=page_modules,
        warm_modules=bundle.warm_modules(page_modules),
        vectors=vectors,
    )
    # Everything index.html and sw.js are made from besides the store: sitebuild/assemble.py
    # reads it from the packaging zip, here and in the page's worker alike.
    description = {
        "files": [rel(path, out) for path in site_files(out)],
        "onDemand": [rel(path, out) for path in vectors.on_demand()] + bundle.on_request(),
        "runtime": runtime,
        "early": bundle.early_modules(),
        "pyodide": {"version": pyodide.version, "python": pyodide.python},
        "vectors": vectors.page_data(out),
    }
    say("· the packaging zip, with which the page makes these packages itself, traced under Node Pyodide")
    write_packaging(out, description, store_text, fragments)
    store_independent = {rel(path, out): path.read_bytes() for path in site_files(out)}

    site = make_site(prepared, fragments, store_independent, score=score, cmi5=False)
    for name in ("index.html", "sw.js"):
        (out / name).write_bytes(site.files[name])
    say(f"built {out}: build {site.build_id}, {sum(len(data) for data in site.files.values()) / 1e6:.1f} MB")

    if scorm:
        package = scorm_package_path(out)
        package.write_bytes(zip_bytes(package_members("scorm", prepared, site, score=score)))
        say(f"SCORM 1.2 package: {package} ({package.stat().st_size / 1e6:.1f} MB)")
    if cmi5:
        # Its own site, with the cmi5 library and a policy that lets the page reach the
        # LMS's record store; out stays the plain site.
        apart = make_site(prepared, fragments, store_independent, score=score, cmi5=True)
        package = cmi5_package_path(out)
        package.write_bytes(zip_bytes(package_members("cmi5", prepared, apart, score=score)))
        say(
            f"cmi5 package: {package} ({package.stat().st_size / 1e6:.1f} MB), its site with the cmi5 library; "
            f"{out} stays the plain site"
        )
    return out / "index.html"


def serve_command(out: Path, port: int = 8000) -> str:
    """The command that serves ``out`` as it was built: the hint printed after a build."""
    folder = "" if out == DEFAULT_OUT else f" --out {shlex.quote(str(out))}"
    return f"python build.py --serve --no-build{folder}" + ("" if port == 8000 else f" --port {port}")


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
        "--no-build", action="store_true", help="with --serve: serve --out as it was built, without building it"
    )
    parser.add_argument(
        "--write-tables",
        action="store_true",
        help="only rewrite the files generated from engine/fields.py, engine/scorers.py and engine/shapes.py "
        "(site/js/core/tables.js, scorers.js and shapes.js, the store schema's policy section, the README's "
        "scorer table), after editing the field table, the scorer table or the shapes",
    )
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default: 8000)")
    args = parser.parse_args(argv)
    if args.write_tables:
        write_tables()
        print(
            f"wrote {TABLES_JS.relative_to(ROOT)}, {SCORERS_JS.relative_to(ROOT)}, {SHAPES_JS.relative_to(ROOT)}, "
            f"{STORE_SCHEMA.relative_to(ROOT)} and README.md's scorer table"
        )
        return 0
    if args.no_build and not args.serve:
        parser.error("--no-build goes with --serve")
    if args.no_build and not (args.out / "index.html").exists():
        print(f"build.py: error: {args.out} holds no built site: build it first", file=sys.stderr)
        return 2
    try:
        if not args.no_build:
            build(out=args.out, store_path=args.store, scorm=args.scorm, cmi5=args.cmi5, score=not args.no_score)
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 2
    if not args.serve:
        print(f"Serve it with: {serve_command(args.out, args.port)}   (or any static server in {args.out})")
        return 0
    server = make_server(args.out, args.port)
    print(f"Serving {args.out} at http://127.0.0.1:{args.port}/  (Ctrl+C to stop)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
