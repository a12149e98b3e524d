"""The protocol's stream: JSON-RPC messages, one a line, on descriptors of their own.

Standard output belongs to the protocol alone. At start the editor's two pipes are moved to new
descriptors, and descriptor 1 becomes standard error (descriptor 0, /dev/null): whatever else
prints, bastion or a library or a program a tool starts, reaches the editor's log, never the
protocol. A line that is not JSON is answered with the parse error (-32700), one that is not a
JSON-RPC 2.0 request, notification or response with an invalid request (-32600), and the stream
goes on; what the SDK would have done (skip a bad line, or end the connection on a batch) is not
left to it. Every string sent is made safe first (`bastion/_safe.py`: held keys redacted,
controls made visible), at this one place."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import select
import stat
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..._safe import safe_line, safe_text
from ...policy import load_json

__all__ = ["LineTransport", "OneLine", "Pipes", "take_pipes"]

# The longest line read (a prompt with the editor's embedded context can be long); a longer one is
# an invalid request, read to its end and dropped.
LINE_LIMIT = 32 << 20
# How long a message waits for the editor to read what bastion wrote before the editor counts as
# gone (`--write-timeout`): an editor whose pipe stays full ends the connection, never the process.
WRITE_TIMEOUT = 60.0
_RPC = "2.0"


class _Stalled(OSError):
    """The editor read nothing of bastion's output within the write bound: the connection ends."""


class Pipes:
    """The editor's two pipes, moved off descriptors 0 and 1."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd


def take_pipes() -> Pipes:
    """Move the protocol's pipes to descriptors of their own (not inherited: `os.dup`), then point 0
    at /dev/null and 1 at standard error, so nothing else can read or write the protocol."""
    pipes = Pipes(os.dup(0), os.dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    return pipes


class OneLine(logging.Formatter):
    """What a library logs (the SDK logs its errors with their tracebacks) as one line on standard
    error: the message and the error's kind and words, never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"bastion acp: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            err = record.exc_info[1]
            text += f": {type(err).__name__}: {err}"
        return safe_line(text)


def _shown(value: Any) -> Any:
    """A message with every string in it made safe to leave bastion."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_shown(v) for v in value]
    return value


def _error(request_id: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": _RPC, "id": request_id, "error": {"code": code, "message": message}}


def _valid_id(value: object) -> bool:
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def invalid(message: object) -> str | None:
    """Why `message` is not a JSON-RPC 2.0 request, notification or response (None: it is one)."""
    if isinstance(message, list):
        return "a batch (a JSON array) is not taken: send one message a line"
    if not isinstance(message, dict):
        return "a message is a JSON object"
    if message.get("jsonrpc") != _RPC:
        return 'the member "jsonrpc" must be "2.0"'
    if "id" in message and not _valid_id(message["id"]):
        return 'the member "id" must be a string, a whole number or null'
    if "method" in message:
        if not isinstance(message["method"], str):
            return 'the member "method" must be a string'
        if "params" in message and not isinstance(message["params"], dict | list):
            return 'the member "params" must be an object'
        return None
    if "id" not in message or ("result" in message) == ("error" in message):
        return 'a message without "method" is a response: an "id" and either "result" or "error"'
    return None


class LineTransport:
    """The SDK's message transport (acp's Transport: send, receive, close) over the two descriptors,
    read by a thread and written from the executor, so that a pipe, a terminal or a regular file
    all serve (`bastion acp < requests.jsonl > answers.jsonl`)."""

    def __init__(
        self, reader: asyncio.StreamReader, write_fd: int, write_timeout: float = WRITE_TIMEOUT
    ) -> None:
        self._reader = reader
        self._fd = write_fd
        self._write_timeout = write_timeout
        self._lock = asyncio.Lock()
        # Requests taken and not answered yet: the end of the input waits for their answers.
        self._open = 0
        self._answered = asyncio.Event()
        self.on_end: Callable[[], None] = lambda: None
        # Why the connection was lost on bastion's side (the editor stopped reading), if it was.
        self.lost: str | None = None

    @classmethod
    def open(cls, pipes: Pipes, write_timeout: float = WRITE_TIMEOUT) -> LineTransport:
        loop = asyncio.get_running_loop()
        transport = cls(asyncio.StreamReader(limit=LINE_LIMIT), pipes.write_fd, write_timeout)
        # A pipe or socket is written without blocking, so that a write that cannot proceed is seen
        # (`_write`); a file never stalls, and a terminal's mode is not bastion's to change.
        mode = os.fstat(pipes.write_fd).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            os.set_blocking(pipes.write_fd, False)

        def feed() -> None:
            try:
                while data := os.read(pipes.read_fd, 1 << 16):
                    loop.call_soon_threadsafe(transport._fed, data)
            except OSError as err:
                logging.getLogger(__name__).warning("the editor's stream cannot be read: %s", err)
            finally:
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    loop.call_soon_threadsafe(transport._fed, b"")

        threading.Thread(target=feed, name="bastion-acp-read", daemon=True).start()
        return transport

    def _fed(self, data: bytes) -> None:
        """What the reading thread read (b"": the end); nothing once the connection is lost."""
        if self._reader.at_eof() or self.lost is not None:
            return
        if data:
            self._reader.feed_data(data)
        else:
            self._reader.feed_eof()

    def _write(self, data: bytes) -> None:
        """Write all of `data`; _Stalled when the editor takes none of it for the write bound."""
        view = memoryview(data)
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
                continue
            except BlockingIOError:
                pass
            if not poller.poll(int(self._write_timeout * 1000)):
                raise _Stalled(
                    f"the editor read nothing of bastion's output for {self._write_timeout:g} s "
                    "(--write-timeout)"
                )

    def _lose(self, why: str) -> None:
        """The editor stopped reading: the connection ends as if it had closed its end."""
        if self.lost is None:
            self.lost = why
            logging.getLogger(__name__).warning("the connection ends: %s", why)
            if not self._reader.at_eof():
                self._reader.feed_eof()

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self._send(message)
        finally:
            if "method" not in message and "id" in message:  # an answer to a request taken
                self._open -= 1
                self._answered.set()

    async def _send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(_shown(message), separators=(",", ":")) + "\n").encode("utf-8")
        async with self._lock:
            if self.lost is not None:
                raise ConnectionError(f"the connection is closed ({self.lost})")
            try:
                await asyncio.to_thread(self._write, data)
            except (_Stalled, BrokenPipeError) as err:
                why = str(err) if isinstance(err, _Stalled) else "the editor closed bastion's output"
                self._lose(why)
                raise ConnectionError(f"the connection is closed ({why})") from None

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._line()
            if line is None:
                await self._ended()
                return None
            if not line.strip():
                continue
            try:
                message = load_json(line.decode("utf-8"))
            except UnicodeDecodeError as err:
                await self._refuse(None, -32700, f"Parse error: the line is not UTF-8 ({err.reason})")
                continue
            except ValueError as err:
                await self._refuse(None, -32700, f"Parse error: {err}")
                continue
            problem = invalid(message)
            if problem is not None:
                request_id = message.get("id") if isinstance(message, dict) else None
                await self._refuse(request_id if _valid_id(request_id) else None, -32600, problem)
                continue
            assert isinstance(message, dict)
            if "method" in message and "id" in message:
                self._open += 1
            return message

    async def _ended(self) -> None:
        """The editor closed its end: the runs in flight stop (`on_end`), and every request taken
        is answered before the connection closes (the editor may still be reading)."""
        self.on_end()
        while self._open > 0:
            self._answered.clear()
            await self._answered.wait()

    async def _refuse(self, request_id: object, code: int, words: str) -> None:
        text = words if words.startswith("Parse error") else f"Invalid request: {words}"
        logging.getLogger(__name__).warning("refused a line: %s", text)
        with contextlib.suppress(OSError):  # the editor went away or stopped reading: nothing more to say
            await self._send(_error(request_id, code, text))

    async def _line(self) -> bytes | None:
        """The next line (None: the editor closed the stream); one over the limit is read to its end
        and answered as an invalid request."""
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as err:
            return err.partial or None
        except asyncio.LimitOverrunError:
            while True:
                try:
                    await self._reader.readuntil(b"\n")
                    break
                except asyncio.LimitOverrunError as err:
                    await self._reader.readexactly(err.consumed)
                except asyncio.IncompleteReadError:
                    return None
            await self._refuse(None, -32600, f"a line over {LINE_LIMIT} bytes")
            return b""

    async def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
