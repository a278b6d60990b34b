"""What every step of the build shares: its error, files named by content, and Node."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path


class BuildError(Exception):
    """A problem the person building must fix; the message says how."""


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def named_by_content(data: bytes, prefix: str, suffix: str, directory: Path) -> Path:
    """Write ``data`` into ``directory`` as <prefix>-<content hash><suffix>."""
    path = directory / f"{prefix}-{content_hash(data)}{suffix}"
    path.write_bytes(data)
    return path


def rel(path: Path, out: Path) -> str:
    """``path`` as the page addresses it: relative to the site's folder ``out``."""
    return path.relative_to(out).as_posix()


def site_files(out: Path) -> list[Path]:
    """Every file of the site in ``out``, in a fixed order."""
    return sorted(p for p in out.rglob("*") if p.is_file())


def run_node(script: Path, *args: str, stdin: str | None = None) -> str:
    """Run a build-time Node script; its standard output."""
    try:
        done = subprocess.run(["node", str(script), *args], input=stdin, capture_output=True, text=True, check=True)
    except FileNotFoundError:
        raise BuildError("Node.js is needed to build the site: install node (20 or newer)") from None
    except subprocess.CalledProcessError as error:
        raise BuildError(f"{script.name} failed:\n{error.stderr.strip()}") from None
    return done.stdout
