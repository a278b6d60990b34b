"""The page's scripts: its modules bundled by esbuild, the import graph read from its
metafile (what the page preloads, what a worker may load), and the scripts' date."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from engine.fields import tables_js

from .files import BuildError
from .paths import ESBUILD, FIELD_TABLE, ICON, INLINE_SCRIPT, SITE_JS, TABLES_JS

# The modules loaded by name: index.html's two scripts and Python's worker (which
# engine-client.js creates from its URL). The build bundles each, with what it imports,
# under its own name; code two of them share goes into chunks of its own (js/chunk-*.js).
ENTRY_MODULES = ("engine-start.js", "main.js", "engine-worker.js")
LOADABLE_ENTRY = "worker-loadable.js"  # generated while bundling, see bundle_modules

# The modules no worker may import: index.html's two scripts use the DOM as they load,
# and the worker's own script is loaded by the warm-up as its script. A bundled file
# holding any of them is left out of Bundle.warm_modules.
LOADED_WITH_DOM = frozenset(ENTRY_MODULES)
# The modules loaded only when a learner asks for a package (the worker's packaging, the
# panel's work and the page's prerender): left out of the worker-loadable entry, so that no first visit
# preloads or warms them; each stays in a chunk of its own that import() loads.
ON_REQUEST = frozenset({"python/worker-package.js", "panels/packaging-flow.js", "views/prerender.js"})


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

    def early_modules(self) -> list[str]:
        """The page's modulepreload list, as paths from the page: the files whose loading
        decides when Python's downloads start. engine-start.js's imports (it creates Python's
        worker, and runs only once all of them are in; it has a <script> of its own), then the
        worker's script and its imports (it starts the downloads once it has them). A module
        loader finds imports one level at a time, one round trip each on a slow link;
        preloaded, they are asked for at once."""
        modules = self.static_imports("js/engine-start.js")[1:] + self.static_imports("js/engine-worker.js")
        return list(dict.fromkeys(modules))

    def on_request(self) -> list[str]:
        """The bundled files holding a module of ON_REQUEST, sorted: fetched (and kept by the
        service worker) only when a package is first asked for."""
        return sorted(path for path, held in self.holds.items() if ON_REQUEST.intersection(held))

    def warm_modules(self, page_modules: list[str]) -> list[str]:
        """Those of ``page_modules`` that load without a DOM: bundled files that neither
        hold nor import any of LOADED_WITH_DOM; and not those holding a module of ON_REQUEST."""
        return [
            path
            for path in page_modules
            if path in self.holds
            and not ON_REQUEST.intersection(self.holds[path])
            and not any(LOADED_WITH_DOM.intersection(self.holds[f]) for f in self.static_imports(path))
        ]


def copy_assets(out: Path) -> Bundle:
    """The page's scripts, bundled (see bundle_modules), and its icon."""
    shutil.copyfile(ICON, out / ICON.name)
    with tempfile.TemporaryDirectory() as scratch:
        # The site's modules as they are, but for tables.js, generated afresh from the field table.
        source = Path(scratch) / "site" / "js"
        shutil.copytree(SITE_JS, source, ignore=shutil.ignore_patterns(INLINE_SCRIPT.name))  # inlined
        (source / TABLES_JS.relative_to(SITE_JS)).write_text(tables_js(), encoding="utf-8")
        # Bundled beside the sources, then moved: chunks are named by a hash that also
        # covers their paths, which then stay the same from one build to the next.
        bundle = bundle_modules(source, Path(scratch) / "dist" / "js", worker_loadable(source))
        shutil.copytree(Path(scratch) / "dist" / "js", out / "js")
    # Dated a day before the page's code last changed (servers send the date as
    # Last-Modified): the same date from one build to the next, and never moments before a
    # visit. Chromium keeps no compiled code for a script whose Last-Modified is under a
    # minute old, so a site served right after an edit, or after a fresh clone, would
    # start without it, as no learner's visit to a deployed site does.
    changed = max(path.stat().st_mtime for path in [*SITE_JS.rglob("*.js"), FIELD_TABLE])
    dated = changed - 24 * 3600
    for path in (out / "js").rglob("*.js"):
        os.utime(path, (dated, dated))
    return bundle


def worker_loadable(source: Path) -> list[str]:
    """The site's modules a worker can load: all but those in LOADED_WITH_DOM (and ON_REQUEST)."""
    modules = (p.relative_to(source).as_posix() for p in sorted(source.rglob("*.js")))
    return [m for m in modules if m not in LOADED_WITH_DOM | ON_REQUEST]


def bundle_modules(source: Path, target: Path, loadable_modules: list[str]) -> Bundle:
    """Bundle the modules in ``source`` into ``target``: each of ENTRY_MODULES under its own
    name, with what it imports, and the code two of them share as chunks named by content.

    Each module loaded as it is would be a request of its own, found one level of imports
    at a time: on a slow link each level is a round trip, and each request takes a slow
    phone's main thread away from the page. Not minified: the code stays readable in a browser's
    developer tools as it is, each module's part headed by its file name, with no source
    map to fetch. Dynamic import() keeps its own chunk, loaded when it runs; ./vendor/
    (the cmi5 library of a --cmi5 build) is left to be loaded as it is.

    The ``loadable_modules`` are kept out of the entries' own files, so that Python's
    worker can load every chunk, and with it nearly all of the page's code, for the code
    cache (see Bundle.warm_modules): each is imported by one more entry, generated for
    the purpose, whose file is then dropped.
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
