"""The build: what dist/ holds, that it is reproducible, and the wheel inside it."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import zipfile
from pathlib import Path

import pytest

import build
from tests.conftest import FIXTURES


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
    stdlib = {n for n in runtime if re.fullmatch(rf"pyodide/{version}/stdlib-[0-9a-f]{{12}}\.zip", n)}
    engine_code = {n for n in runtime if re.fullmatch(rf"pyodide/{version}/engine-bytecode-[0-9a-f]{{12}}\.zip", n)}
    assert len(stdlib) == 1 and len(engine_code) == 1
    assert runtime - stdlib - engine_code == {f"pyodide/{version}/{f}" for f in build.RUNTIME_FILES}
    assert not [n for n in names if n.endswith((".map", ".d.ts", ".html")) and n != "index.html"]
    assert not [n for n in names if "lock" in n or "console" in n]


def test_wheel_is_pure_and_holds_only_the_engine(built_site: Path) -> None:
    """The wheel is py3-none-any, contains engine/ and its metadata only, and declares no dependency."""
    (wheel,) = (built_site / "wheels").glob("*/*.whl")  # wheels/<content hash>/<name>.whl
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requirements = [
            line for line in archive.read(metadata).decode().splitlines() if line.startswith("Requires-Dist")
        ]
    assert requirements and all("extra == 'dev'" in line for line in requirements)  # only the dev extra
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"engine"}


def test_page_is_prerendered_with_the_default_result(built_site: Path) -> None:
    """index.html already holds the ten rows, the tray and coverage of the default configuration."""
    html = (built_site / "index.html").read_text()
    assert html.count('<tr data-record-id="') == 10
    assert 'data-record-id="M10" data-outcome="selected"' in html
    assert 'class="coverage" data-found="0" data-total="1"' in html
    assert '<html lang="en" data-engine="prerendered">' in html
    assert "Content-Security-Policy" in html and "'unsafe-inline'" not in html


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
    (bytecode,) = built_site.glob("pyodide/*/engine-bytecode-*.zip")
    with zipfile.ZipFile(bytecode) as archive:
        pycs = {n: archive.read(n) for n in archive.namelist()}
    expected = {f"{m.rsplit('/', 1)[0]}/__pycache__/{m.rsplit('/', 1)[1][:-3]}.cpython-314.pyc" for m in modules}
    assert modules and set(pycs) == expected
    for name, data in pycs.items():
        flags = int.from_bytes(data[4:8], "little")
        assert flags == 0b11, f"{name}: not a checked hash-based .pyc (flags {flags:#b})"
    # The runtime names it, so the worker fetches it.
    html = (built_site / "index.html").read_text()
    assert f'"engineBytecodeURL":"{bytecode.relative_to(built_site).as_posix()}"' in html


def test_stdlib_is_trimmed_bytecode(built_site: Path) -> None:
    """The standard library ships as .pyc only, far smaller than the stock source zip."""
    (stdlib,) = built_site.glob("pyodide/*/stdlib-*.zip")
    with zipfile.ZipFile(stdlib) as archive:
        names = archive.namelist()
    assert names and all(n.endswith(".pyc") for n in names)
    assert "json/__init__.pyc" in names and "dataclasses.pyc" in names
    stock = (build.PYODIDE_PACKAGE / "python_stdlib.zip").stat().st_size
    assert stdlib.stat().st_size < 0.6 * stock
