"""The local static server of `build.py --serve`, the tests and the benchmarks."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path
from typing import Any


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Serves dist/ with the types browsers insist on for modules and WebAssembly,
    optionally under a sub-path as GitHub Pages does for project sites."""

    prefix = "/"

    extensions_map = {  # noqa: RUF012 - the base class reads it as a class attribute
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".whl": "application/zip",
        ".json": "application/json",
    }

    def send_head(self) -> Any:
        path = self.path.split("?", 1)[0]
        if path + "/" == self.prefix:  # the project's root without its slash
            self.send_response(301)
            self.send_header("Location", self.prefix)
            self.end_headers()
            return None
        if not path.startswith(self.prefix):
            self.send_error(404, "outside the site")
            return None
        return super().send_head()

    def translate_path(self, path: str) -> str:
        return super().translate_path("/" + path[len(self.prefix) :])

    def log_message(self, format: str, *args: Any) -> None:
        if getattr(self.server, "verbose", True):
            super().log_message(format, *args)


def make_server(
    directory: Path, port: int = 8000, host: str = "127.0.0.1", prefix: str = "/"
) -> http.server.ThreadingHTTPServer:
    """A static server for ``directory``, its index at ``prefix`` (``/`` or ``/a/b/``)."""
    handler = type("Handler", (StaticHandler,), {"prefix": prefix})
    return http.server.ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(directory)))
