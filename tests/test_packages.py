"""The LMS packages as build.py writes them: dist/ stays the plain site, each zip carries
only its own library, git ignores the zips, and the serve hint serves the folder built."""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

import build
from harness import ROOT


def digest(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def boot_of(html: str) -> Any:
    found = re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, flags=re.S)
    assert found is not None
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`build.py --scorm --cmi5`, into a folder of its own."""
    out = tmp_path_factory.mktemp("packages") / "dist"
    build.build(out=out, scorm=True, cmi5=True, quiet=True)
    return out


def test_a_package_build_leaves_the_plain_site_in_out(both: Path, built_site: Path) -> None:
    """dist/ after --scorm --cmi5 is byte for byte the plain build: no cmi5 library, no LRS in its policy."""
    assert digest(both) == digest(built_site)
    assert not (both / "js" / "vendor").exists()
    assert boot_of((both / "index.html").read_text())["lms"]["cmi5"] is False


def test_each_package_carries_only_its_own_library(both: Path) -> None:
    with zipfile.ZipFile(build.scorm_package_path(both)) as scorm:
        names = set(scorm.namelist())
        assert "imsmanifest.xml" in names and "index.html" in names
        assert not {n for n in names if "cmi5" in n}, "the SCORM package holds the cmi5 library"
        assert scorm.read("index.html") == (both / "index.html").read_bytes()
    with zipfile.ZipFile(build.cmi5_package_path(both)) as cmi5:
        names = set(cmi5.namelist())
        assert {"cmi5.xml", "index.html", "js/vendor/cmi5.js", "licenses/xapi-cmi5.txt"} <= names
        assert "imsmanifest.xml" not in names
        page = cmi5.read("index.html").decode()
        assert boot_of(page)["lms"]["cmi5"] is True
        assert "connect-src 'self' https:" in page.replace("&#39;", "'")
        worker = cmi5.read("sw.js").decode()
        assert '"js/vendor/cmi5.js"' in worker
        # The build id in the page is its own site's, as its service worker computed it.
        build_id = re.search(r'"hash": "([0-9a-f]{16})"', worker)
        assert build_id is not None and build_id.group(1) in page


@pytest.mark.parametrize("name", ["dist-scorm.zip", "dist-cmi5.zip", "site-copy/course-scorm.zip", "x/y-cmi5.zip"])
def test_git_ignores_the_packages_wherever_out_points(name: str) -> None:
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "-q", name], cwd=ROOT)
    assert ignored.returncode == 0, name


def test_the_serve_hint_serves_the_folder_built(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    built: list[Path] = []
    monkeypatch.setattr(build, "build", lambda **options: built.append(options["out"]))
    out = tmp_path / "my site"
    assert build.main(["--out", str(out)]) == 0
    hint = capsys.readouterr().out
    assert f"Serve it with: python build.py --serve --no-build --out '{out}'" in hint
    assert build.main([]) == 0
    plain = capsys.readouterr().out
    assert f"Serve it with: python build.py --serve --no-build   (or any static server in {build.DEFAULT_OUT})" in plain
    # What the hint runs serves that folder without building it again.
    out.mkdir()
    (out / "index.html").write_text("<!doctype html>")
    served: list[tuple[Path, int]] = []

    class Server:
        def serve_forever(self) -> None:
            raise KeyboardInterrupt

    def make_server(directory: Path, port: int) -> Server:
        served.append((directory, port))
        return Server()

    monkeypatch.setattr(build, "make_server", make_server)
    assert build.main(["--serve", "--no-build", "--out", str(out), "--port", "8123"]) == 0
    assert served == [(out, 8123)] and built == [out, build.DEFAULT_OUT]
    assert build.main(["--serve", "--no-build", "--out", str(tmp_path / "none")]) == 2
