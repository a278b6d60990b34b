"""The local servers of the browser tests and the page benchmarks: build.py's own static
server in a thread, optionally under a sub-path, and a server that answers the way GitHub
Pages does (gzip, cache validators), logging every byte it sends.

What PagesServer copies from GitHub Pages' response headers:

* ``Cache-Control: max-age=600`` on every file;
* ``ETag`` and ``Last-Modified``, answering ``If-None-Match`` / ``If-Modified-Since``
  with ``304 Not Modified`` and no body;
* gzip (``Content-Encoding: gzip``, ``Vary: Accept-Encoding``) for compressible types
  when the browser accepts it: text (HTML, CSS, JavaScript), JSON, SVG, and also
  ``application/wasm``, which GitHub Pages compresses as well (observed in
  maxence-charriere/go-app#866, 2023). Zip archives (the standard library zip, the
  wheel) go out as they are, as ``application/zip`` does there: already deflated.

What it does not copy: HTTP/2 (this is HTTP/1.1 with keep-alive), brotli, the CDN's
own latency. Files are read and compressed once, when the server starts. Every response
is logged (path, status, body and header bytes written) so a benchmark can count exactly
what crossed the wire, worker requests included; anything the browser took from its
cache never reaches the server and counts 0; wait_idle() tells when a page has stopped
asking for anything.

    with PagesServer(directory) as server:   # port 0: a free port
        ...
        for entry in server.take_log(): ...
"""

from __future__ import annotations

import email.utils
import gzip
import http.server
import mimetypes
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import build


class StaticServer:
    """build.py's own server in a thread, on a free port, optionally under a sub-path."""

    def __init__(self, directory: Path, prefix: str = "/", host: str = "127.0.0.1") -> None:
        self.server = build.make_server(directory, port=0, host=host, prefix=prefix)
        self.server.verbose = False  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://{host}:{self.server.server_address[1]}{prefix}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> StaticServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


MAX_AGE_SECONDS = 600
GZIP_LEVEL = 6  # what most CDNs use for on-the-fly compression
COMPRESSIBLE_TYPES = frozenset(
    {
        "text/html",
        "text/css",
        "text/javascript",
        "text/plain",
        "application/javascript",
        "application/json",
        "image/svg+xml",
        "application/wasm",
    }
)


@dataclass(frozen=True)
class Served:
    """One response as it went out."""

    path: str
    status: int
    body_bytes: int
    header_bytes: int
    encoding: str  # "gzip" or "identity"


@dataclass(frozen=True)
class _Representation:
    body: bytes
    content_type: str
    encoding: str
    etag: str
    last_modified: str
    mtime: int


class PagesHandler(http.server.BaseHTTPRequestHandler):
    server: PagesServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        with self.server.busy():
            self._respond(send_body=True)

    def do_HEAD(self) -> None:
        with self.server.busy():
            self._respond(send_body=False)

    def _respond(self, *, send_body: bool) -> None:
        self._header_bytes = 0
        accepts_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        rep = self.server.representation(self._file_path(), accepts_gzip)
        if rep is None:
            self._send_not_found(send_body)
            return
        if self._not_modified(rep):
            self.send_response(304)
            self._send_validators(rep)
            self.send_header("Content-Length", "0")
            self.end_headers()
            self._log_served(304, 0, rep.encoding)
            return
        self.send_response(200)
        self.send_header("Content-Type", rep.content_type)
        self.send_header("Content-Length", str(len(rep.body)))
        if rep.encoding == "gzip":
            self.send_header("Content-Encoding", "gzip")
        self._send_validators(rep)
        self.end_headers()
        if send_body:
            self.wfile.write(rep.body)
        self._log_served(200, len(rep.body) if send_body else 0, rep.encoding)

    def _file_path(self) -> Path:
        path = (self.server.directory / unquote(urlsplit(self.path).path).lstrip("/")).resolve()
        return path / "index.html" if path.is_dir() else path

    def _not_modified(self, rep: _Representation) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:  # takes precedence over If-Modified-Since (RFC 9110)
            tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
            return "*" in tags or rep.etag.removeprefix("W/") in tags
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since is None:
            return False
        try:
            since = email.utils.parsedate_to_datetime(if_modified_since).timestamp()
        except (TypeError, ValueError):
            return False
        return rep.mtime <= since

    def _send_validators(self, rep: _Representation) -> None:
        self.send_header("Cache-Control", f"max-age={MAX_AGE_SECONDS}")
        self.send_header("ETag", rep.etag)
        self.send_header("Last-Modified", rep.last_modified)
        self.send_header("Vary", "Accept-Encoding")

    def _send_not_found(self, send_body: bool) -> None:
        body = b"404 Not Found\n"
        self.send_response(404)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)
        self._log_served(404, len(body) if send_body else 0, "identity")

    def flush_headers(self) -> None:
        self._header_bytes = sum(len(chunk) for chunk in getattr(self, "_headers_buffer", []))
        super().flush_headers()

    def _log_served(self, status: int, body_bytes: int, encoding: str) -> None:
        self.server.record(Served(urlsplit(self.path).path, status, body_bytes, self._header_bytes, encoding))

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the benchmarks read take_log() instead."""


class PagesServer(http.server.ThreadingHTTPServer):
    """Serves ``directory`` like GitHub Pages (see the module docstring), in a thread of its
    own while used as a context manager."""

    daemon_threads = True

    def __init__(self, directory: Path, port: int = 0, host: str = "127.0.0.1") -> None:
        super().__init__((host, port), PagesHandler)
        self.directory = directory.resolve()
        self._lock = threading.Lock()
        self._log: list[Served] = []
        self._in_flight = 0
        self._last_activity = time.monotonic()
        # Read and compressed once, up front, as a CDN edge holds them: compressing the
        # large runtime files on the first request would otherwise be timed.
        self._files = {
            (path, accepts_gzip): _representation(path, accepts_gzip)
            for path in self.directory.rglob("*")
            if path.is_file()
            for accepts_gzip in (False, True)
        }

    def __enter__(self) -> PagesServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()
        self.server_close()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"

    def representation(self, path: Path, accepts_gzip: bool) -> _Representation | None:
        """What to send for ``path``; None when it was not in the directory at start."""
        return self._files.get((path, accepts_gzip))

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Wraps the handling of one request, for wait_idle()."""
        with self._lock:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                self._last_activity = time.monotonic()

    def wait_idle(self, quiet_s: float = 1.5, timeout_s: float = 60.0) -> None:
        """Return once no request has been in flight for ``quiet_s``, counted from the
        call at the earliest: late requests (a favicon, a service worker precaching
        after Python is ready) then belong to the visit that caused them."""
        called = time.monotonic()
        deadline = called + timeout_s
        while True:
            with self._lock:
                busy = self._in_flight > 0
                quiet_since = max(self._last_activity, called)
            now = time.monotonic()
            if not busy and now - quiet_since >= quiet_s:
                return
            if now > deadline:
                raise TimeoutError(f"the server was still busy after {timeout_s} s")
            time.sleep(0.05)

    def record(self, served: Served) -> None:
        with self._lock:
            self._log.append(served)

    def take_log(self) -> list[Served]:
        """Every response since the last call, in the order they were sent."""
        with self._lock:
            log, self._log = self._log, []
        return log


def _representation(path: Path, accepts_gzip: bool) -> _Representation:
    stat = path.stat()
    content_type = (
        build.StaticHandler.extensions_map.get(path.suffix)
        or mimetypes.guess_type(path.name)[0]
        or "application/octet-stream"
    )
    data = path.read_bytes()
    tag = f'"{int(stat.st_mtime):x}-{stat.st_size:x}"'  # GitHub Pages' ETag shape
    compress = accepts_gzip and content_type in COMPRESSIBLE_TYPES
    return _Representation(
        body=gzip.compress(data, GZIP_LEVEL, mtime=0) if compress else data,
        content_type=content_type,
        encoding="gzip" if compress else "identity",
        etag=f"W/{tag}" if compress else tag,  # a CDN weakens the tag of what it compresses
        last_modified=email.utils.formatdate(stat.st_mtime, usegmt=True),
        mtime=int(stat.st_mtime),
    )
