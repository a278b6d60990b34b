"""The build: what dist/ holds, that it is reproducible, and the wheel inside it."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import re
import subprocess
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

import build
import engine.session
from harness import ROOT
from harness.fixtures import FIXTURES


def digest_tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_two_builds_are_byte_identical(tmp_path: Path, built_site: Path) -> None:
    """Building again gives the same files with the same bytes."""
    again = tmp_path / "again"
    build.build(out=again, quiet=True)
    assert digest_tree(again) == digest_tree(built_site)


def test_dist_holds_only_what_the_page_loads(built_site: Path) -> None:
    """No source maps, type files, demo consoles or package lock from the npm package."""
    names = set(digest_tree(built_site))
    assert "index.html" in names and "js/main.js" in names
    version = json.loads((build.PYODIDE_PACKAGE / "package.json").read_text())["version"]
    runtime = {n for n in names if n.startswith("pyodide/")}
    built = {
        kind: {n for n in runtime if re.fullmatch(rf"pyodide/{version}/{kind}-[0-9a-f]{{12}}\.{ext}", n)}
        for kind, ext in [
            ("stdlib", r"zip\.zst"),
            ("engine-bytecode", r"zip\.zst"),
            ("pyodide.asm", r"wasm\.zst"),
            ("zstd-decoder", "wasm"),
        ]
    }
    assert all(len(names) == 1 for names in built.values()), built
    assert runtime - set().union(*built.values()) == {f"pyodide/{version}/{f}" for f in build.RUNTIME_FILES}
    assert not [n for n in names if n.endswith((".map", ".d.ts", ".html")) and n != "index.html"]
    assert not [n for n in names if "lock" in n or "console" in n]


def test_wheel_is_pure_and_holds_only_the_engine(built_site: Path) -> None:
    """The wheel is py3-none-any, contains engine/ and its metadata only, and declares no dependency
    but those of its extras (building the site, the tests' tools, the distiller's model)."""
    (wheel,) = (built_site / "wheels").glob("*/*.whl")  # wheels/<content hash>/<name>.whl
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requirements = [
            line for line in archive.read(metadata).decode().splitlines() if line.startswith("Requires-Dist")
        ]
    assert requirements and all(
        any(f"extra == '{extra}'" in line for extra in ("site", "dev", "distill")) for line in requirements
    )  # only the extras: building the site, the tests' tools, the distiller's model
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"engine"}


def test_page_is_prerendered_with_the_default_result(built_site: Path) -> None:
    """index.html already holds the ten rows, the tray and coverage of the default configuration."""
    html = (built_site / "index.html").read_text()
    # The records table's rows (the timeline's text table has a row per record too, without outcomes).
    assert len(re.findall(r'<tr data-record-id="[^"]+" data-outcome=', html)) == 10
    assert 'data-record-id="M10" data-outcome="selected"' in html
    assert 'class="coverage" data-found="0" data-total="1"' in html
    assert '<html lang="en" data-engine="prerendered">' in html
    assert "Content-Security-Policy" in html and "'unsafe-inline'" not in html


# A static import in esbuild's output, read here independently of the build's metafile:
# `import {…} from "./x.js";` (the list may span lines) and `import "./x.js";`.
BUILT_IMPORT = re.compile(r'^import\s*(?:[^;"]*?\bfrom\s*)?"(\./[^"]+)";', re.MULTILINE)


def built_graph(site: Path, entry: str) -> list[str]:
    """entry and the files it imports statically in the built site, breadth first."""
    found = [entry]
    for file in found:
        text = (site / file).read_text(encoding="utf-8")
        for specifier in BUILT_IMPORT.findall(text):
            imported = (Path(file).parent / specifier).as_posix()
            assert (site / imported).is_file(), f"{file} imports {specifier}, which is not in the site"
            if imported not in found:
                found.append(imported)
    return found


def runtime_paths(site: Path) -> dict[str, Any]:
    html = (site / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="runtime">(.*?)</script>', html, re.S)
    assert found is not None
    paths: dict[str, Any] = json.loads(found.group(1))
    return paths


def test_the_pages_modules_are_bundled_into_a_few_files(built_site: Path) -> None:
    """The page's three entry scripts keep their names; every site module it imports is in
    exactly one bundled file, with the shared code in content-named chunks; nothing else."""
    js = built_site / "js"
    files = sorted(p.name for p in js.iterdir())
    assert {"engine-start.js", "main.js", "engine-worker.js"} <= set(files)
    chunks = [f for f in files if f not in ("engine-start.js", "main.js", "engine-worker.js")]
    assert chunks and all(re.fullmatch(r"chunk-[A-Z0-9]{8}\.js", f) for f in chunks), files
    site = {p.relative_to(build.SITE / "js").as_posix() for p in (build.SITE / "js").rglob("*.js")}
    assert len(files) <= len(site) // 2
    # esbuild heads each module's code with its path: each module in one file, and every
    # one the page reaches (first-frames.js is inlined).
    holders: dict[str, set[str]] = {}
    for f in files:
        for module in re.findall(r"^// (\S+\.js)$", (js / f).read_text(encoding="utf-8"), re.M):
            holders.setdefault(module, set()).add(f)
    assert [m for m, held_in in holders.items() if len(held_in) > 1] == []
    assert set(holders) == site - {"first-frames.js"}
    # Only what the page loads: every chunk is reached from an entry, statically or by import().
    mentioned = "".join((js / f).read_text(encoding="utf-8") for f in ("main.js", "engine-worker.js", *chunks))
    assert all(f'"./{chunk}"' in mentioned for chunk in chunks)


def test_the_scripts_are_dated_well_before_any_visit(built_site: Path) -> None:
    """The bundled scripts share one date (their Last-Modified), never a recent one:
    Chromium keeps no compiled code for a script modified under a minute before it loads,
    and tests and benchmarks serve the site moments after an edit or a clone."""
    dates = {p.stat().st_mtime for p in (built_site / "js").glob("*.js")}
    assert len(dates) == 1
    assert dates.pop() < time.time() - 3600


def test_page_preloads_what_pythons_worker_waits_for(built_site: Path) -> None:
    """The files engine-start.js and the worker import are preloaded from <head>: the worker
    is created, and starts the downloads, only once they are all in."""
    head = (built_site / "index.html").read_text(encoding="utf-8").split("</head>")[0]
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', head)
    wanted = built_graph(built_site, "js/engine-start.js")[1:] + built_graph(built_site, "js/engine-worker.js")
    assert set(preloaded) == set(wanted) and "js/engine-worker.js" in preloaded
    assert len(preloaded) == len(set(preloaded))
    # Asked for before main.js, whose larger graph would otherwise take the connections first.
    assert head.index('src="js/engine-start.js"') < head.index("modulepreload") < head.index('src="js/main.js"')


def test_the_files_pythons_worker_warms_load_without_a_dom(built_site: Path) -> None:
    """warmModules: every bundled file but those holding DOM code as they load (main.js,
    engine-start.js and what it shares with main.js), which a worker cannot import, and those
    only a package needs. Node has no DOM either: each loads there, and the page's own scripts do not."""
    warm = runtime_paths(built_site)["warmModules"]
    # The scripts only a package needs are fetched then, never warmed (sw.js keeps them on demand).
    manifest = json.loads((built_site / "sw.js").read_text().split(";\n", 1)[0].removeprefix("const BUILD = "))
    everything = sorted(
        f"js/{p.name}" for p in (built_site / "js").glob("*.js") if f"js/{p.name}" not in manifest["onDemand"]
    )
    assert warm and set(warm) < set(everything) and "js/main.js" not in warm

    def loads_in_node(file: str) -> bool:
        script = f"await import({json.dumps((built_site / file).as_uri())});"
        return subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True).returncode == 0

    assert [f for f in warm if not loads_in_node(f)] == []
    # Only the code that runs as the page or the worker loads is left out: a few KB of it.
    size = {f: (built_site / f).stat().st_size for f in everything}
    assert sum(size[f] for f in everything if f not in warm and f != "js/engine-worker.js") < 8_000
    assert not loads_in_node("js/main.js") and not loads_in_node("js/engine-start.js")
    assert [f for f in everything if f not in warm and f != "js/engine-worker.js" and loads_in_node(f)] == []


def test_inline_script_and_stylesheet_are_allowed_by_their_hashes_alone(built_site: Path) -> None:
    """js/first-frames.js and css/site.css are inlined into <head>; the CSP names their
    SHA-256, so any other inline script or style stays blocked; neither is served twice."""
    html = (built_site / "index.html").read_text()
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
    assert scripts == [build.INLINE_SCRIPT.read_text()]
    assert styles == [build.INLINE_STYLE.read_text()]
    assert '<link rel="stylesheet"' not in html

    def source(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    directives = dict(d.split(" ", 1) for d in csp.group(1).replace("&#39;", "'").split("; "))
    assert directives["script-src"] == f"'self' 'wasm-unsafe-eval' {source(scripts[0])}"
    assert directives["style-src"] == f"'self' {source(styles[0])}"
    assert not (built_site / "js" / "first-frames.js").exists() and not (built_site / "css").exists()


def test_invalid_store_is_refused_with_engine_messages(tmp_path: Path) -> None:
    """A malformed store stops the build with each problem's path."""
    store = json.loads((FIXTURES / "store.json").read_text())
    store["records"][3]["store"] = "semntic"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(store))
    with pytest.raises(build.BuildError, match=r'records\[3\]\.store: "semntic" is not one of'):
        build.build(out=tmp_path / "out", store_path=bad, quiet=True)


def test_engine_bytecode_covers_every_engine_module(built_site: Path) -> None:
    """The engine's bytecode zip holds a checked-hash .pyc for each module of the wheel, at
    the path Python looks for it, compiled by the pinned Pyodide's CPython (3.14)."""
    (wheel,) = (built_site / "wheels").glob("*/*.whl")
    with zipfile.ZipFile(wheel) as archive:
        modules = {n for n in archive.namelist() if n.endswith(".py")}
    (bytecode,) = built_site.glob("pyodide/*/engine-bytecode-*.zip.zst")
    (decoded,) = decode_with_the_site(built_site, bytecode)
    with zipfile.ZipFile(io.BytesIO(decoded)) as archive:
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}  # zstd compresses it whole
        pycs = {n: archive.read(n) for n in archive.namelist()}
    expected = {f"{m.rsplit('/', 1)[0]}/__pycache__/{m.rsplit('/', 1)[1][:-3]}.cpython-314.pyc" for m in modules}
    assert modules and set(pycs) == expected
    for name, data in pycs.items():
        flags = int.from_bytes(data[4:8], "little")
        assert flags == 0b11, f"{name}: not a checked hash-based .pyc (flags {flags:#b})"
    # Without docstrings (nothing in the page reads one), with the messages the engine says.
    session = pycs["engine/__pycache__/session.cpython-314.pyc"]
    assert engine.session.Session.__doc__ and engine.session.Session.__doc__[:40].encode() not in session
    assert engine.session.__doc__ and engine.session.__doc__[:40].encode() not in session
    assert b"the engine failed unexpectedly" in pycs["engine/__pycache__/errors.cpython-314.pyc"]
    # The runtime names it, so the worker fetches it.
    html = (built_site / "index.html").read_text()
    assert f'"engineBytecodeURL":"{bytecode.relative_to(built_site).as_posix()}"' in html


def decode_with_the_site(built_site: Path, *files: Path) -> list[bytes]:
    """Decode zstd files with the page's own zstd.js and the built decoder, under Node."""
    (decoder,) = built_site.glob("pyodide/*/zstd-decoder-*.wasm")
    script = (
        f"import {{ readFileSync }} from 'node:fs'; import {{ loadZstd }} from {json.dumps((ROOT / 'site/js/python/zstd.js').as_uri())};"
        f"const zstd = await loadZstd(readFileSync({json.dumps(str(decoder))}));"
        "const out = [];"
        f"for (const f of {json.dumps([str(f) for f in files])}) {{"
        "  try { out.push({ok: Buffer.from(await zstd.decodeAll(readFileSync(f))).toString('base64')}); }"
        "  catch (e) { out.push({error: `${e.name}: ${e.message}`}); } }"
        "process.stdout.write(JSON.stringify(out));"
    )
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return [base64.b64decode(r["ok"]) if "ok" in r else r["error"] for r in json.loads(done.stdout)]


def test_compressed_runtime_decodes_to_pyodides_own_webassembly(built_site: Path) -> None:
    """The page's decoder turns the shipped .wasm.zst back into the npm package's
    pyodide.asm.wasm, byte for byte, and the file is far smaller than gzip would make it."""
    (wasm,) = built_site.glob("pyodide/*/pyodide.asm-*.wasm.zst")
    original = (build.PYODIDE_PACKAGE / "pyodide.asm.wasm").read_bytes()
    (decoded,) = decode_with_the_site(built_site, wasm)
    assert decoded == original
    assert wasm.stat().st_size < 0.85 * len(gzip.compress(original, 6))


def test_damaged_compressed_files_are_refused_by_the_decoder(built_site: Path, tmp_path: Path) -> None:
    """Cut short, one byte flipped (caught by the checksum), or not zstd at all: the
    decoder raises a ZstdError instead of returning bytes."""
    data = next(built_site.glob("pyodide/*/stdlib-*.zip.zst")).read_bytes()
    damaged = {
        "short": data[: len(data) // 3],
        "flipped": data[:-100] + bytes([data[-100] ^ 0x01]) + data[-99:],
        "gzip": gzip.compress(b"not zstd"),
        "empty": b"",
    }
    for name, bad in damaged.items():
        (tmp_path / name).write_bytes(bad)
    results = decode_with_the_site(built_site, *(tmp_path / name for name in damaged))
    assert all(isinstance(r, str) and r.startswith("ZstdError: ") for r in results), results


def test_stdlib_is_trimmed_bytecode(built_site: Path) -> None:
    """The standard library ships as .pyc only, stored in a zip that travels zstd-compressed,
    far smaller than the stock source zip."""
    (stdlib,) = built_site.glob("pyodide/*/stdlib-*.zip.zst")
    (plain,) = decode_with_the_site(built_site, stdlib)
    with zipfile.ZipFile(io.BytesIO(plain)) as archive:
        names = archive.namelist()
        stored = {i.compress_type for i in archive.infolist()}
    assert names and all(n.endswith(".pyc") for n in names)
    assert "json/__init__.pyc" in names and "dataclasses.pyc" in names
    assert stored == {zipfile.ZIP_STORED}  # the zstd window spans the whole library
    stock = (build.PYODIDE_PACKAGE / "python_stdlib.zip").stat().st_size
    assert stdlib.stat().st_size < 0.4 * stock


def test_a_plain_build_reports_a_score_and_carries_no_cmi5_library(built_site: Path) -> None:
    """Without --no-score the page reports a score to an LMS; without --cmi5 it neither ships nor may reach an LRS."""
    html = (built_site / "index.html").read_text()
    boot = json.loads(re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, flags=re.S).group(1))  # type: ignore[union-attr]
    assert boot["lms"] == {"score": True, "cmi5": False}
    assert not (built_site / "js" / "vendor").exists()
    assert "connect-src 'self';" in html.replace("&#39;", "'")


def test_cmi5_package_may_reach_an_lrs_over_https_only() -> None:
    """A cmi5 build's CSP lets the page reach the LRS the launch names, over HTTPS or on its own origin."""
    directives = dict(d.split(" ", 1) for d in build.content_security_policy("", "", cmi5=True).split("; "))
    assert directives["connect-src"] == "'self' https:"
    assert directives["script-src"].startswith("'self' 'wasm-unsafe-eval'")


def test_cmi5_course_structure_names_one_au_with_a_stable_course_id() -> None:
    """cmi5.xml: one course, one AU at index.html, moveOn Completed; the ids depend on the store's title alone and titles are escaped."""
    from xml.etree import ElementTree

    store = json.loads((FIXTURES / "store.json").read_text())
    ns = {"c": "https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd"}
    root = ElementTree.fromstring(build.cmi5_course_structure(store, score=True))
    course = root.find("c:course", ns)
    (au,) = root.iterfind("c:au", ns)
    assert course is not None and course.attrib["id"] == build.course_iri(store)
    assert au.attrib == {
        "id": f"{build.course_iri(store)}/experiment",
        "moveOn": "Completed",
        "launchMethod": "AnyWindow",
    }
    assert au.find("c:url", ns).text == "index.html"  # type: ignore[union-attr]
    assert build.course_iri(store) == build.course_iri(json.loads(json.dumps(store)))
    other = {**store, "title": 'Week 3 <b>"memory"</b> & recall'}
    assert build.course_iri(other) != build.course_iri(store)
    title = ElementTree.fromstring(build.cmi5_course_structure(other, score=False)).find(
        "c:course/c:title/c:langstring", ns
    )
    assert title is not None and title.text == other["title"]
    described = ElementTree.fromstring(build.cmi5_course_structure(other, score=False)).find(
        "c:au/c:description/c:langstring", ns
    )
    assert described is not None and "No score is reported." in (described.text or "")


def test_command_line_passes_the_lms_options(monkeypatch: pytest.MonkeyPatch) -> None:
    """--scorm, --cmi5 and --no-score reach build() as scorm, cmi5 and score=False."""
    calls: list[dict[str, object]] = []
    monkeypatch.setattr(build, "build", lambda **options: calls.append(options))
    assert build.main(["--scorm", "--no-score"]) == 0
    assert build.main(["--cmi5"]) == 0
    assert [(c["scorm"], c["cmi5"], c["score"]) for c in calls] == [(True, False, False), (False, True, True)]


def test_readme_lms_section_matches_the_build_and_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The instructors' section: its build commands parse, its step count, score example,
    passing share and suspend_data limit are the ones the code uses."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Grade it in an LMS") :]
    prose = " ".join(section.split())
    commands = re.findall(r"^python build\.py ([^#\n]*)", section, flags=re.M)
    assert len(commands) >= 4
    monkeypatch.setattr(build, "build", lambda **options: None)
    for command in commands:
        assert build.main(command.split()) == 0, command
    steps = sum(len(g["steps"]) for g in json.loads((FIXTURES / "store.json").read_text())["guides"])
    first = len(json.loads((FIXTURES / "store.json").read_text())["guides"][0]["steps"])
    assert f"{steps} in the default store" in prose
    assert f"scores {first} of {steps}, {round(100 * first / steps)}" in prose
    reporter = (ROOT / "site" / "js" / "lms" / "cmi5-reporter.js").read_text()
    assert re.search(r"PASSING_SHARE = 0\.5;", reporter) and "at least 0.5 passes" in prose
    core = (ROOT / "site" / "js" / "lms" / "lms-core.js").read_text()
    assert "SUSPEND_DATA_LIMIT = 4096;" in core and "4,096 characters" in prose


def test_vectors_are_served_on_demand_under_their_content_hash(built_site: Path) -> None:
    """The embedding's vectors are in dist under a content-hashed name, with the model's licence
    and the derivation notice; the runtime data names them and their size; the service worker
    precaches every other file but not these three (it keeps each when first fetched)."""
    source = ROOT / "embedding" / "minilm-static.rwse"
    (vectors,) = (built_site / "embedding").glob("*.rwse")
    data = vectors.read_bytes()
    assert vectors.name == f"minilm-static-{hashlib.sha256(data).hexdigest()[:12]}.rwse"
    assert data == source.read_bytes()
    assert (built_site / "licenses" / "all-MiniLM-L6-v2-LICENSE.txt").read_bytes() == (
        ROOT / "embedding" / "LICENSE"
    ).read_bytes()
    assert "all-MiniLM-L6-v2" in (built_site / "licenses" / "minilm-static-NOTICE.txt").read_text(encoding="utf-8")
    html = (built_site / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="runtime">(.*?)</script>', html, re.S)
    assert found is not None
    runtime = json.loads(found[1])
    assert runtime["vectorsURL"] == f"embedding/{vectors.name}"
    assert runtime["vectorsBytes"] == len(data)
    manifest = json.loads(
        (built_site / "sw.js").read_text(encoding="utf-8").split(";\n", 1)[0].removeprefix("const BUILD = ")
    )
    papers = ["licenses/all-MiniLM-L6-v2-LICENSE.txt", "licenses/minilm-static-NOTICE.txt"]
    assert manifest["onDemand"][:3] == [f"embedding/{vectors.name}", *papers]
    assert manifest["onDemand"][-1] == runtime["packagingURL"]
    assert not set(manifest["onDemand"]) & set(manifest["files"])
    assert "licenses/zstddec.txt" in manifest["files"]
    # All but those on demand (the two scripts only a package needs among them) and sw.js itself.
    assert (
        len(manifest["files"])
        == len(digest_tree(built_site)) - len(manifest["onDemand"]) - 1
        == len(digest_tree(built_site)) - 7
    )
    # "What this model is not" links the licence and the notice.
    assert 'href="licenses/all-MiniLM-L6-v2-LICENSE.txt"' in html
    assert 'href="licenses/minilm-static-NOTICE.txt"' in html


def test_missing_vectors_stop_the_build_with_one_clear_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without the vector file the build says which file is missing and how to rebuild it."""
    import sitebuild.vectors

    monkeypatch.setattr(sitebuild.vectors, "VECTORS", ROOT / "embedding" / "absent.rwse")
    with pytest.raises(build.BuildError, match=r"embedding/absent\.rwse missing.*tools/distill_embedding\.py"):
        sitebuild.vectors.copy_vectors(tmp_path)


@pytest.fixture(scope="module")
def lms_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default store built with both packages, as `build.py --scorm --cmi5` writes them."""
    out = tmp_path_factory.mktemp("lms-build") / "dist"
    build.build(out=out, scorm=True, cmi5=True, quiet=True)
    return out


def test_build_py_for_another_store_writes_what_the_one_path_makes_from_the_default_sites_files(
    lms_build: Path, tmp_path: Path
) -> None:
    """`build.py --store support-store.json --scorm --cmi5` writes, file for file and byte for byte, what
    sitebuild/assemble.py makes of that store from the default site's files: every file but index.html and
    sw.js is the same whatever the store, so the page can package any store from the files it holds."""
    from harness.fixtures import SUPPORT_STORE
    from harness.packaging import cpython_package, members, store_independent, tree

    out = tmp_path / "dist"
    build.build(out=out, store_path=SUPPORT_STORE, scorm=True, cmi5=True, quiet=True)
    assert store_independent(out) == store_independent(lms_build)
    text = SUPPORT_STORE.read_text(encoding="utf-8")
    assert build.scorm_package_path(out).read_bytes() == cpython_package("scorm", text, lms_build)
    assert build.cmi5_package_path(out).read_bytes() == cpython_package("cmi5", text, lms_build)
    assert members(cpython_package("site", text, lms_build)) == tree(out)


def test_the_pages_worker_makes_under_pyodide_the_zips_build_py_writes(lms_build: Path, tmp_path: Path) -> None:
    """The worker's own packaging module (site/js/python/worker-package.js) under Node Pyodide, with the
    page's trimmed stdlib, the packaging zip and the page's prerender, makes byte for byte the zips build.py
    makes: for the default store (taken from the page's boot block, as the page does), the support store and a
    generated one, every kind, with and without a score; and refuses a broken store with build.py's lines."""
    from harness.fixtures import SUPPORT_STORE
    from harness.generate import synthetic_store
    from harness.packaging import cpython_package, members, pyodide_packages, tree

    html = (lms_build / "index.html").read_text(encoding="utf-8")
    boot = re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, re.S)
    assert boot is not None
    generated = synthetic_store(24, seed=57) | {"title": "Generated <store> & co"}
    generated["records"][0]["age_hours"] = 3.0  # a float JavaScript's JSON would write as 3
    stores = {
        "default": (boot[1], True, (FIXTURES / "store.json").read_text(encoding="utf-8")),
        "support": (SUPPORT_STORE.read_text(encoding="utf-8"), False, SUPPORT_STORE.read_text(encoding="utf-8")),
        "generated": (json.dumps(generated, indent=2), False, json.dumps(generated, indent=2)),
    }
    plan = [
        ("default", "scorm", True),
        ("default", "cmi5", True),
        ("default", "site", True),
        ("support", "scorm", False),
        ("support", "cmi5", True),
        ("support", "site", True),
        ("generated", "scorm", True),
        ("generated", "cmi5", False),
        ("generated", "site", False),
    ]
    jobs = [
        {"store": stores[s][0], "fromBoot": stores[s][1], "kind": k, "score": score, "out": str(tmp_path / f"{i}.zip")}
        for i, (s, k, score) in enumerate(plan)
    ]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema": 2, "title": "", "tenants": []}), encoding="utf-8")
    jobs.append({"store": broken.read_text(), "fromBoot": False, "kind": "scorm", "score": True, "out": ""})
    answer = pyodide_packages(lms_build, jobs)
    for i, (name, kind, score) in enumerate(plan):
        made = (tmp_path / f"{i}.zip").read_bytes()
        assert made == cpython_package(kind, stores[name][2], lms_build, score=score), (name, kind, score)
    assert (tmp_path / "0.zip").read_bytes() == build.scorm_package_path(lms_build).read_bytes()
    assert (tmp_path / "1.zip").read_bytes() == build.cmi5_package_path(lms_build).read_bytes()
    assert members((tmp_path / "2.zip").read_bytes()) == tree(lms_build)
    with pytest.raises(build.BuildError) as refused:
        build.build(out=tmp_path / "never", store_path=broken, quiet=True)
    assert answer["jobs"][-1]["problems"] == [line.strip() for line in str(refused.value).splitlines()[1:]]
    assert not (tmp_path / "never").exists()


def test_packages_hold_the_packaging_zip_on_demand_with_its_licences(lms_build: Path) -> None:
    """The packaging zip is fetched only when a learner asks for a package (on demand in sw.js, named in the
    runtime block), and carries Jinja2's and MarkupSafe's licences with their code, MarkupSafe without C."""
    from harness.packaging import members

    html = (lms_build / "index.html").read_text(encoding="utf-8")
    runtime = json.loads(re.search(r'<script type="application/json" id="runtime">(.*?)</script>', html, re.S)[1])  # type: ignore[index]
    manifest = json.loads(
        (lms_build / "sw.js").read_text(encoding="utf-8").split(";\n", 1)[0].removeprefix("const BUILD = ")
    )
    assert runtime["packagingURL"] in manifest["onDemand"] and runtime["packagingURL"] not in manifest["files"]
    inside = members((lms_build / runtime["packagingURL"]).read_bytes())
    import importlib.metadata

    for name in ("jinja2", "markupsafe"):
        (licence,) = [f for f in importlib.metadata.files(name) or [] if f.name.startswith("LICENSE")]
        assert inside[f"{name}/LICENSE.txt"] == Path(str(licence.locate())).read_bytes()
        assert b"Redistribution and use in source and binary forms" in inside[f"{name}/LICENSE.txt"]
    assert "markupsafe/_native.py" in inside and not [n for n in inside if n.endswith((".so", ".c", ".pyd"))]
    assert "sitebuild/assemble.py" in inside and not [
        n for n in inside if n.startswith("sitebuild/") and "assemble" not in n and "__init__" not in n
    ]
    # The scripts only a package needs are neither preloaded nor warmed on a first visit.
    headers = ("// python/worker-package.js", "// panels/packaging-flow.js", "// views/prerender.js")
    on_request = [f"js/{p.name}" for p in (lms_build / "js").glob("*.js") if any(h in p.read_text() for h in headers)]
    assert on_request and not set(on_request) & set(runtime["warmModules"] + runtime["pageModules"])
    assert set(on_request) < set(manifest["onDemand"])
    assert not [m for m in on_request if f'href="{m}"' in html]
