"""Python's runtime files for the page: the engine wheel, Pyodide's files, the zstd-compressed
WebAssembly module and its decoder, and the stdlib and engine compiled to bytecode."""

from __future__ import annotations

import base64
import functools
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .files import BuildError, content_hash, named_by_content, run_node
from .paths import BUILD_BYTECODE, PYODIDE_PACKAGE, ROOT, ZSTD_PACKAGE

# The runtime files the page loads as they are, besides the WebAssembly module (sent
# zstd-compressed, see compress_zstd) and the standard library (built as bytecode, see
# build_bytecode): no lock file (an inline one is passed), no source maps, type files
# or demo consoles.
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs")
PYODIDE_WASM = "pyodide.asm.wasm"
# Level 19 with a window as large as the file: the stdlib is a stored zip compressed
# whole, so the whole library shares one window. Higher levels gain next to nothing.
ZSTD_LEVEL = 19


@dataclass(frozen=True)
class RuntimeFiles:
    """Where the build wrote each runtime file the page asks for."""

    directory: Path  # Pyodide's own files, in a folder named by its version
    wasm: Path
    zstd_decoder: Path
    wheel: Path
    stdlib: Path
    engine_bytecode: Path


@dataclass(frozen=True)
class Pyodide:
    """The installed Pyodide release, from its package and lock files."""

    version: str
    abi_version: str
    python: str


def pyodide_info() -> Pyodide:
    package = PYODIDE_PACKAGE / "package.json"
    if not package.exists():
        raise BuildError("node_modules/pyodide is missing: run `npm ci` first")
    lock = json.loads((PYODIDE_PACKAGE / "pyodide-lock.json").read_text())
    return Pyodide(
        version=json.loads(package.read_text())["version"],
        abi_version=lock["info"]["abi_version"],
        python=lock["info"]["python"],
    )


def build_wheel(directory: Path) -> Path:
    """The engine wheel, built by the same backend pip uses; reproducible by default.

    It lands in a folder named by its content hash, so its URL changes whenever its
    bytes do and caches can keep it forever (the file name must stay a wheel name).
    """
    from hatchling.builders.wheel import WheelBuilder

    with tempfile.TemporaryDirectory() as scratch:
        (artifact,) = WheelBuilder(str(ROOT)).build(directory=scratch, versions=["standard"])
        built = Path(artifact)
        target = directory / content_hash(built.read_bytes()) / built.name
        target.parent.mkdir(parents=True)
        shutil.copyfile(built, target)
    return target


def copy_runtime(directory: Path) -> Path:
    directory.mkdir(parents=True)
    for name in RUNTIME_FILES:
        shutil.copyfile(PYODIDE_PACKAGE / name, directory / name)
    return directory


def write_wasm(directory: Path) -> Path:
    """Pyodide's WebAssembly module, zstd-compressed and named by content."""
    data = compress_zstd((PYODIDE_PACKAGE / PYODIDE_WASM).read_bytes())
    return named_by_content(data, "pyodide.asm", ".wasm.zst", directory)


@functools.lru_cache(maxsize=4)
def compress_zstd(data: bytes) -> bytes:
    """``data`` as one zstd frame (content size in the header), deterministic for a given
    zstandard release; remembered per process, as the tests build several sites."""
    import zstandard

    # With a checksum, a file damaged on its way fails to decode instead of running.
    params = zstandard.ZstdCompressionParameters.from_level(
        ZSTD_LEVEL,
        window_log=max(10, (len(data) - 1).bit_length()),
        source_size=len(data),
        write_checksum=True,
    )
    compressed: bytes = zstandard.ZstdCompressor(compression_params=params).compress(data)
    return compressed


def copy_zstd_decoder(directory: Path, licenses: Path) -> Path:
    """The zstd library's streaming decoder as WebAssembly, which site/js/python/zstd.js drives.

    The zstddec package ships it only base64-encoded inside its JavaScript, whose loader
    fetches it as a data: URL (which a strict Content-Security-Policy forbids) and whose
    base64 is a third larger; the binary is written out here and served as a file of its
    own, gzip-compressed by the host like any .wasm. Its BSD licence asks that the
    notice travel with the binary: ``licenses``/zstddec.txt."""
    module = ZSTD_PACKAGE / "dist" / "zstddec-stream.mjs"
    if not module.exists():
        raise BuildError("node_modules/zstddec is missing: run `npm ci` first")
    match = re.search(r'const wasm = "([A-Za-z0-9+/=]+)"', module.read_text(encoding="utf-8"))
    if not match:
        raise BuildError(f"{module.relative_to(ROOT)} no longer embeds its decoder as expected")
    data = base64.b64decode(match.group(1))
    if not data.startswith(b"\0asm"):
        raise BuildError(f"{module.relative_to(ROOT)} embeds something that is not WebAssembly")
    path = named_by_content(data, "zstd-decoder", ".wasm", directory)
    licenses.mkdir(exist_ok=True)
    shutil.copyfile(ZSTD_PACKAGE / "LICENSE", licenses / "zstddec.txt")
    return path


def build_bytecode(wheel: Path, store: Any, directory: Path, vectors: Path) -> tuple[Path, Path]:
    """The trimmed bytecode stdlib zip and the engine's bytecode zip (tools/build-bytecode.mjs),
    each stored, then zstd-compressed whole (hosts do not compress a .zip), and named by
    its content hash so caches never mix versions."""
    sample = {"store": store, "policy": {"store": "all", "previous_sessions": True}}
    with tempfile.TemporaryDirectory() as scratch:
        request = Path(scratch) / "request.json"
        request.write_text(json.dumps(sample))
        stdlib, engine_code = Path(scratch) / "stdlib.zip", Path(scratch) / "engine.zip"
        # The vectors too: the embedding scorers' path through the engine imports what
        # the trimmed standard library must also hold.
        paths = (PYODIDE_PACKAGE, wheel, request, stdlib, engine_code, vectors)
        run_node(BUILD_BYTECODE, *map(str, paths))
        return (
            named_by_content(compress_zstd(stdlib.read_bytes()), "stdlib", ".zip.zst", directory),
            named_by_content(compress_zstd(engine_code.read_bytes()), "engine-bytecode", ".zip.zst", directory),
        )
