"""What index.html is made from that only the build computes: the prerender of the default
configuration (the page's renderer under Node) and the runtime block (where Python's
runtime files are). sitebuild/assemble.py renders the page from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .files import content_hash, rel, run_node
from .paths import PRERENDER
from .runtime import Pyodide, RuntimeFiles
from .vectors import Vectors


def prerender(request: str) -> str:
    """HTML fragments of a store and its result, and the stage texts, from the page's own
    renderer run under Node (site/js/views/prerender.js, as the page runs it for its own
    downloads): its answer to ``request`` (assemble.Prepared.prerender_request), JSON text."""
    return run_node(PRERENDER, stdin=request)


def runtime_data(
    out: Path,
    files: RuntimeFiles,
    pyodide: Pyodide,
    *,
    page_modules: list[str],
    warm_modules: list[str],
    vectors: Vectors,
) -> dict[str, Any]:
    """The runtime block: where Python's runtime files are, as paths from the page."""
    snapshot_of = (files.wasm, files.wheel, files.stdlib, files.engine_bytecode)
    return {
        "pyodideModule": f"{rel(files.directory, out)}/pyodide.mjs",
        "indexURL": f"{rel(files.directory, out)}/",
        "wasmURL": rel(files.wasm, out),
        "stdLibURL": rel(files.stdlib, out),
        "zstdDecoderURL": rel(files.zstd_decoder, out),
        "wheelURL": rel(files.wheel, out),
        "engineBytecodeURL": rel(files.engine_bytecode, out),
        "abiVersion": pyodide.abi_version,
        # The page's modules that load without a DOM: engine-start.js preloads them all at
        # once, and the worker imports them once more when the first visit is idle
        # (engine-worker.js, warmCodeCache): their first load out of the service worker's cache.
        "warmModules": warm_modules,
        # All of them, which the page then loads once more itself (page-code-cache.js), so
        # that a repeat visit finds their compiled code cached.
        "pageModules": page_modules,
        # Where the worker keeps a memory snapshot of this exact Python + engine in
        # the browser's Cache Storage (never a file on the server): named by what it
        # contains, so a new runtime, stdlib or engine never restores an old one.
        "snapshotURL": f"python-snapshot-{content_hash('|'.join(rel(f, out) for f in snapshot_of).encode())}.bin",
        # The static embedding's vectors, which the worker fetches only when a policy's
        # scorer reads them; their size, for the progress bar whatever the response says.
        "vectorsURL": rel(vectors.file, out),
        "vectorsBytes": vectors.size,
    }
