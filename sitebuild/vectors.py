"""The static embedding's vectors in the site: one content-named file the page fetches only
on demand, and the model's licence and the derivation notice beside the other licences."""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import embedding

from .files import BuildError, named_by_content, rel
from .paths import ROOT, VECTORS, VECTORS_LICENSE, VECTORS_NOTICE

# Served as text, so that a browser shows them rather than downloading them.
LICENSE_NAME = "all-MiniLM-L6-v2-LICENSE.txt"
NOTICE_NAME = "minilm-static-NOTICE.txt"


@dataclass(frozen=True)
class Vectors:
    """Where the vectors and their papers are in the built site, the vectors' size, and
    their vocabulary size and dimensions (from the file's header)."""

    file: Path
    size: int
    tokens: int
    dims: int
    license: Path
    notice: Path

    def on_demand(self) -> list[Path]:
        """The files the service worker keeps only once fetched: the vectors, which most visits
        never use, and the papers beside them, which a first visit need not download."""
        return [self.file, self.license, self.notice]

    def page_data(self, out: Path) -> dict[str, str | int]:
        """What the template says about them: their size and shape, where the licence and notice are."""
        return {
            "bytes": self.size,
            "tokens": self.tokens,
            "dims": self.dims,
            "license": rel(self.license, out),
            "notice": rel(self.notice, out),
        }


def read_header(data: bytes) -> dict[str, Any]:
    """The JSON header of a vector file, read by the engine's reader."""
    try:
        header, _ = embedding.read_header(io.BytesIO(data), len(data))
    except embedding.VectorFileError as error:
        raise BuildError(f"{VECTORS.relative_to(ROOT)}: {error}") from None
    if not isinstance(header, dict) or not all(isinstance(header.get(k), int) for k in ("tokens", "dims")):
        raise BuildError(f"{VECTORS.relative_to(ROOT)}'s header does not give its tokens and dims")
    return header


def copy_vectors(out: Path) -> Vectors:
    """embedding/minilm-static.rwse as ``embedding/minilm-static-<hash>.rwse`` (a new file
    never meets an old copy in a cache), and its licence and notice in ``licenses/``."""
    missing = [
        path.relative_to(ROOT).as_posix() for path in (VECTORS, VECTORS_LICENSE, VECTORS_NOTICE) if not path.exists()
    ]
    if missing:
        raise BuildError(
            f"{', '.join(missing)} missing: the embedding scorers need the vectors and their licence "
            "(rebuild them with python tools/distill_embedding.py)"
        )
    data = VECTORS.read_bytes()
    header = read_header(data)
    directory = out / "embedding"
    directory.mkdir(parents=True, exist_ok=True)
    file = named_by_content(data, VECTORS.stem, VECTORS.suffix, directory)
    licenses = out / "licenses"
    licenses.mkdir(exist_ok=True)
    shutil.copyfile(VECTORS_LICENSE, licenses / LICENSE_NAME)
    shutil.copyfile(VECTORS_NOTICE, licenses / NOTICE_NAME)
    return Vectors(file, len(data), header["tokens"], header["dims"], licenses / LICENSE_NAME, licenses / NOTICE_NAME)
