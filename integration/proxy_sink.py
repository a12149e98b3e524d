"""A proxy on 127.0.0.1 that forwards nothing: every CLI run names it as its HTTP(S) proxy, so whatever a
CLI tries to reach beyond the scripted model is refused here and written down (`attempts`)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from ._local import LocalServer

__all__ = ["ProxySink"]


class ProxySink(LocalServer):
    """`with ProxySink() as sink:`; `sink.url` is the proxy, `sink.attempts` what was asked of it."""

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                pass

            def _refuse(self) -> None:
                with sink._lock:
                    sink.attempts.append(f"{self.command} {self.path}")
                self.send_response(403, "the integration reaches nothing")
                self.send_header("content-length", "0")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True

            do_CONNECT = do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _refuse  # noqa: N815

        super().__init__(Handler)
