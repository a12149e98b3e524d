"""A model server on 127.0.0.1 that misbehaves below HTTP's level, where the scripted server
(scripted_server.py) cannot: it speaks raw sockets, so it can hold a connection it never answers,
trickle bytes for ever, break a reply off with a reset, or stream a reply far larger than memory
should hold. Every request to the model takes the next scenario; a lookup (a GET: the model's
limits) takes the `lookup` scenario, a 404 unless given:

  {"hang": true}                     the request is read, and nothing is ever sent (not a status
                                     line); the time the client gave up (closed) is kept as the
                                     request's "gave_up"
  {"close": true}                    the request is read, then the connection closes unanswered
  {"trickle": seconds}               a 200 event stream whose body is one SSE comment every
                                     `seconds`, for ever: bytes come, an answer never does
  {"cut": bytes}                     a 200 event stream of a reply in the request's wire format,
                                     reset after its first `bytes` bytes
  {"huge": bytes, "piece": bytes}    a whole reply whose text is `bytes` bytes long, streamed in
                                     text deltas of `piece` bytes (64 KiB if not given), made as it
                                     is sent (the server holds one delta, never the reply)
  {"text": "..."}                    a whole reply of that text, as the scripted server sends it
  {"status": N}                      an error answer of that status (JSON), the connection kept
and "repeat": true keeps a scenario for every later request. `requests` keeps each request's
method, path and the monotonic time it arrived.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from .scripted_server import sse_frames

# Text a huge reply is made of, and the marker its template is cut at.
_FILL = b"abcdefghij" * 6553 + b"abcdef"  # 64 KiB
_MARK = "@@HUGE-REPLY-MARK@@"


def huge_frames(path: str, size: int, piece: int = len(_FILL)) -> Iterator[bytes]:
    """The SSE frames of a reply in `path`'s wire format whose text is `size` bytes, made one delta
    at a time: a one-delta reply's frames, its delta repeated with `piece` bytes of text."""
    frames = sse_frames(path, {"text": _MARK, "pieces": len(_MARK)})
    at = next(i for i, f in enumerate(frames) if _MARK.encode() in f)
    head, _, tail = frames[at].partition(_MARK.encode())
    yield from frames[:at]
    fill = (_FILL * (piece // len(_FILL) + 1))[:piece]
    sent = 0
    while sent < size:
        part = fill[: size - sent]
        yield head + part + tail
        sent += len(part)
    yield from frames[at + 1 :]


class FaultServer:
    """Serve `scenarios` in order, one per request: `with FaultServer([...]) as server:`."""

    def __init__(self, scenarios: Sequence[dict[str, Any]], lookup: dict[str, Any] | None = None) -> None:
        self.scenarios = [dict(s) for s in scenarios]
        self.lookup = lookup
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._connections: list[socket.socket] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self._connections.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _read_request(self, conn: socket.socket) -> tuple[str, str] | None:
        """The method and path of the request read from `conn` (its body read and dropped), None at
        the connection's end."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        fields = (line.partition(":") for line in lines[1:])
        length = next((int(v) for k, _, v in fields if k.strip().lower() == "content-length"), 0)
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            body += chunk
        method, path = lines[0].split(" ")[:2]
        return method, path

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                while (read := self._read_request(conn)) is not None:
                    method, path = read
                    request: dict[str, Any] = {"method": method, "path": path, "at": time.monotonic()}
                    with self._lock:
                        self.requests.append(request)
                        scenario = self.scenarios[0] if self.scenarios else {"close": True}
                        if method == "GET":
                            scenario = self.lookup or {"status": 404}
                        elif self.scenarios and not scenario.get("repeat"):
                            self.scenarios.pop(0)
                    if not self._answer(conn, request, scenario):
                        return
            except OSError:  # the client went away: nothing more to send
                return

    def _answer(self, conn: socket.socket, request: dict[str, Any], scenario: dict[str, Any]) -> bool:
        """Answer one request as `scenario` says; False when the connection is done with."""
        path = request["path"]
        if scenario.get("hang"):
            while conn.recv(65536):  # until the client gives up (or the server stops): then kept
                pass
            with self._lock:
                request["gave_up"] = time.monotonic()
            return False
        if scenario.get("close"):
            return False
        if "status" in scenario:
            body = b'{"error": {"message": "no such thing"}}'
            head = f"HTTP/1.1 {scenario['status']} Scripted\r\ncontent-type: application/json\r\n"
            conn.sendall(head.encode() + b"content-length: %d\r\n\r\n" % len(body) + body)
            return True
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
        if "trickle" in scenario:
            while not self._stopping.wait(float(scenario["trickle"])):
                conn.sendall(b": ping\n\n")
            return False
        if "cut" in scenario:
            conn.sendall(
                b"".join(sse_frames(path, {"text": "a reply that breaks off " * 20}))[: scenario["cut"]]
            )
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset
            return False
        if "huge" in scenario:
            for frame in huge_frames(path, int(scenario["huge"]), int(scenario.get("piece", len(_FILL)))):
                conn.sendall(frame)
            return False
        conn.sendall(b"".join(sse_frames(path, {"text": str(scenario.get("text", ""))})))
        return False

    def __enter__(self) -> FaultServer:
        self._accepting.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        for sock in (self._listener, *self._connections):  # shutdown wakes a thread blocked on it
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._listener.close()
