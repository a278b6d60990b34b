"""sw.js, the service worker: the exact list of files to keep offline, and the build id."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .files import rel, site_files
from .page import BUILD_ID_PLACEHOLDER
from .paths import SERVICE_WORKER


def write_service_worker(out: Path, *, on_demand: list[Path]) -> str:
    """sw.js with the exact list of files to precache and a build id from their bytes.

    The id goes into index.html too (replacing a placeholder), so the page can tell
    a learner when a new version is running. The ``on_demand`` files (the embedding's
    vectors and their licence and notice) are left out of the precache, since most visits
    never fetch them: sw.js keeps each the first time it is fetched.
    """
    files = site_files(out)
    digest = hashlib.sha256()
    for path in files:
        digest.update(rel(path, out).encode() + b"\0" + path.read_bytes() + b"\0")
    build_id = digest.hexdigest()[:16]
    index = out / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace(BUILD_ID_PLACEHOLDER, build_id), encoding="utf-8")
    manifest = {
        "hash": build_id,
        # index.html is cached as "./", the URL every link to the page shares.
        "files": ["./" if path == index else rel(path, out) for path in files if path not in on_demand],
        "immutable": ["pyodide/", "wheels/"],
        "onDemand": [rel(path, out) for path in on_demand],
    }
    script = SERVICE_WORKER.read_text(encoding="utf-8")
    (out / SERVICE_WORKER.name).write_text(
        f"const BUILD = {json.dumps(manifest, indent=1)};\n{script}", encoding="utf-8"
    )
    return build_id
