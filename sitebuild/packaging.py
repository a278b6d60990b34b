"""The packaging zip: what the page's worker needs to make a site or an LMS package around
another store (sitebuild/assemble.py, Jinja2 and MarkupSafe as pure Python, the standard
library modules they need beyond the page's trimmed stdlib, and the template, sw.js and
cmi5 library), fetched by the page only when a learner asks for a package."""

from __future__ import annotations

import importlib.metadata
import json
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from . import assemble
from .files import BuildError, named_by_content, run_node
from .paths import CMI5_PACKAGE, INLINE_SCRIPT, INLINE_STYLE, PYODIDE_PACKAGE, ROOT, SERVICE_WORKER, TEMPLATES

TRACE = ROOT / "tools" / "trace-packaging.mjs"
# The same Jinja2 and MarkupSafe that render the page under CPython, so both make the
# same bytes; MarkupSafe without its C speedups (_native.py is its own pure-Python path).
LIBRARIES = {"jinja2": jinja2, "markupsafe": markupsafe}


def library_files() -> list[tuple[str, bytes]]:
    """Each library's modules and its licence, as they lie in site-packages."""
    members = []
    for name, module in LIBRARIES.items():
        folder = Path(module.__file__ or "").parent
        members += [(f"{name}/{p.name}", p.read_bytes()) for p in sorted(folder.glob("*.py"))]
        licences = [f for f in importlib.metadata.files(name) or [] if f.name.startswith("LICENSE")]
        if not licences:
            raise BuildError(f"the installed {name} has no licence file to ship with it")
        members.append((f"{name}/LICENSE.txt", Path(str(licences[0].locate())).read_bytes()))
    return members


def python_files() -> list[tuple[str, bytes]]:
    """The Python the worker imports to package: the assembly module and the libraries."""
    package = ROOT / "sitebuild"
    return [
        ("sitebuild/__init__.py", (package / "__init__.py").read_bytes()),
        ("sitebuild/assemble.py", (package / "assemble.py").read_bytes()),
        *library_files(),
    ]


def source_files(description: dict[str, Any]) -> list[tuple[str, bytes]]:
    """The data the assembly reads: the description, the template, what index.html
    inlines, sw.js and the cmi5 library a cmi5 package's site serves."""
    module = CMI5_PACKAGE / "dist" / "Cmi5.esm.js"
    if not module.exists():
        raise BuildError("node_modules/@xapi/cmi5 is missing: run `npm ci` first")
    for path in (INLINE_SCRIPT, INLINE_STYLE):
        if "</" in path.read_text(encoding="utf-8"):  # would end the <script> or <style> element early
            raise BuildError(f"{path.relative_to(ROOT)} is inlined into index.html and must not contain '</'")
    return [
        (assemble.DESCRIPTION, json.dumps(description, indent=1).encode()),
        (assemble.TEMPLATE, (TEMPLATES / "index.html.j2").read_bytes()),
        (assemble.INLINE_SCRIPT, INLINE_SCRIPT.read_bytes()),
        (assemble.INLINE_STYLE, INLINE_STYLE.read_bytes()),
        (assemble.SERVICE_WORKER, SERVICE_WORKER.read_bytes()),
        (assemble.CMI5_LIBRARY["js/vendor/cmi5.js"], module.read_bytes()),
        (assemble.CMI5_LIBRARY["licenses/xapi-cmi5.txt"], (CMI5_PACKAGE / "LICENSE.md").read_bytes()),
    ]


def write_packaging(out: Path, description: dict[str, Any], store_text: str, fragments: str) -> Path:
    """packaging/packaging-<hash>.zip in the site ``out``, whose other files are all written.

    Which standard library modules it must bring is found by running the packaging under
    Node Pyodide with the whole stdlib, every kind of package made (tools/trace-packaging.mjs):
    those it imported that Python had not imported once the engine had answered. A Python
    restored from the page's memory snapshot has those and no stdlib files; a freshly
    booted one finds the trimmed stdlib's copy of any it holds first."""
    directory = out / assemble.PACKAGING_DIR
    directory.mkdir(exist_ok=True)
    members = sorted([*python_files(), *source_files(description)])
    with tempfile.TemporaryDirectory() as scratch:
        trial = named_by_content(assemble.zip_bytes(members), assemble.PACKAGING_PREFIX, ".zip", directory)
        store = Path(scratch) / "store.json"
        store.write_text(store_text, encoding="utf-8")
        rendered = Path(scratch) / "fragments.json"
        rendered.write_text(fragments, encoding="utf-8")
        traced = json.loads(run_node(TRACE, str(PYODIDE_PACKAGE), str(out), str(store), str(rendered)))
        trial.unlink()
    extra = sorted(set(traced["used"]) - set(traced["base"]))
    with zipfile.ZipFile(PYODIDE_PACKAGE / "python_stdlib.zip") as whole:
        members += [(name, whole.read(name)) for name in extra]
    return named_by_content(assemble.zip_bytes(sorted(members)), assemble.PACKAGING_PREFIX, ".zip", directory)
