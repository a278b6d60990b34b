"""Packages made three ways for the tests and the benchmark: by sitebuild/assemble.py under
CPython (build.py's own path), under Node Pyodide by the page's worker module
(harness/package_runner.mjs), and read back from a zip for comparison."""

from __future__ import annotations

import io
import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

from harness import ROOT
from sitebuild import assemble
from sitebuild.page import prerender

RUNNER = ROOT / "harness" / "package_runner.mjs"


def store_independent(site: Path) -> dict[str, bytes]:
    """A built site's files but index.html and sw.js: what the page packages any store from."""
    return {
        p.relative_to(site).as_posix(): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file() and p.relative_to(site).as_posix() not in ("index.html", "sw.js")
    }


def cpython_package(kind: str, store_text: str, site: Path, *, score: bool = True) -> bytes:
    """The zip build.py writes for this store (the site zipped for ``site``), made from a built
    site's store-independent files: what `build.py --store` makes of them."""
    request = assemble.prepare(store_text).prerender_request()
    return assemble.package(kind, store_text, prerender(request), store_independent(site), score=score)


def pyodide_packages(site: Path, jobs: list[dict[str, Any]]) -> dict[str, Any]:
    """harness/package_runner.mjs's answer for these jobs (see its header)."""
    done = subprocess.run(
        ["node", str(RUNNER), str(site)], input=json.dumps({"jobs": jobs}), capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def members(data: bytes) -> dict[str, bytes]:
    """A zip's members and their bytes."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def tree(site: Path) -> dict[str, bytes]:
    """Every file of a built site folder, by its path."""
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
