"""index.html: the default configuration prerendered, the page's two JSON blocks (boot
and runtime data), the template rendered, and the Content-Security-Policy."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

import engine
from engine.fields import field_rows

from .files import BuildError, content_hash, rel, run_node
from .paths import INLINE_SCRIPT, INLINE_STYLE, PRERENDER, ROOT, TEMPLATES
from .runtime import Pyodide, RuntimeFiles
from .vectors import Vectors

# Replaced by the build id once every other file is written (see service_worker.py).
BUILD_ID_PLACEHOLDER = "@@build-id@@"


def prerender(store: Any, result: Any) -> dict[str, Any]:
    """HTML fragments of the store and result, and the stage texts, from the page's own renderer."""
    labels = {t["id"]: t["label"] for t in store["tenants"]}
    chosen = (result["selected"] or result["ranked"] or [result["records"][0]["id"]])[0]
    payload = json.dumps({"store": store, "result": result, "tenantLabels": labels, "chosenId": chosen})
    output: dict[str, Any] = json.loads(run_node(PRERENDER, stdin=payload))
    return output


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


def script_json(value: Any) -> Markup:
    """JSON for a <script type="application/json"> element: "<" escaped, so no text in
    the store can close the element."""
    return Markup(json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c"))


def render_page(
    *,
    store: Any,
    result: Any,
    fragments: dict[str, Any],
    runtime: dict[str, Any],
    pyodide: Pyodide,
    early: list[str],
    score: bool,
    cmi5: bool,
    vectors: dict[str, Any],
) -> str:
    """index.html, with the build id still a placeholder."""
    # What the page's script reads at start; the field and outcome tables reach it as
    # js/core/tables.js, so they are not repeated here.
    boot = {
        "store": store,
        "result": result,
        "buildId": BUILD_ID_PLACEHOLDER,
        # What an LMS package reports (site/js/panels/lms.js).
        "lms": {"score": score, "cmi5": cmi5},
    }
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
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
        csp=content_security_policy(script, style, cmi5=cmi5),
        inline_script=Markup(script),
        inline_style=Markup(style),
        store=store,
        policy=result["policy"],
        fields=field_rows(),
        stop_words=sorted(engine.STOP_WORDS),
        prerendered={
            **{k: Markup(v) for k, v in fragments["html"].items()},
            "options": {k: Markup(v) for k, v in fragments["options"].items()},
            "question": result["question"]["text"],
        },
        stages=fragments["stages"],
        page_size=fragments["pageSize"],
        timeline_span=fragments["timelineSpan"],
        boot_json=script_json(boot),
        runtime_json=script_json(runtime),
        early_modules=early,
        engine_version=engine.__version__,
        pyodide_version=pyodide.version,
        pyodide_python=pyodide.python,
        vectors=vectors,
    )
