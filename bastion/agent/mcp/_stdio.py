"""A stdio MCP server on this machine, as the SDK's `stdio_client` would run it, but read by bastion,
so what a server prints is bounded: a message (one line of JSON-RPC) longer than MAX_MESSAGE bytes is
never held whole. Its bytes are dropped as they come, and the request it answered (its id, read from
the line's head) gets an error saying so; the model's result is capped far below that
(`_results.MAX_RESULT_CHARS`), so only a server that prints megabytes loses its answer. The SDK held
such a line several times over while it split and parsed it (a 50 MB result peaked near 600 MB;
benchmarks/memory.py). `_relay`, the same transport over an executor's link, reads with `Lines` too.

The end is the SDK's: the server's input is closed, it is given a moment to exit, then its process
group is ended (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.message import SessionMessage

from ._results import MAX_MESSAGE, MAX_RESULT_CHARS

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

__all__ = ["EXIT_WAIT", "Lines", "local_stdio", "parse"]

# How much of a dropped message's start is kept to find the id of the request it answers.
_HEAD = 4096
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
# How long a server whose input was closed may take to exit, then to end once told to (the SDK's).
EXIT_WAIT = 2.0
_POLL = 0.05


def parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as err:  # the session surfaces it, as the SDK's stdio transport does
        return err


def _dropped(head: bytes, size: int) -> SessionMessage | None:
    """The error answer to the request a dropped message of `size` bytes and more answered (none for
    a message that is not an answer: a request or notification of the server's names a method)."""
    found = _ID.search(head)
    if found is None or b'"method"' in head:
        return None
    try:
        ident = json.loads(found[1])
    except ValueError:
        return None
    said = (
        f"its answer was more than {MAX_MESSAGE / 1e6:g} MB ({size} bytes read), which bastion does not "
        f"read (a result is cut to {MAX_RESULT_CHARS} characters for the model): ask for less"
    )
    error = types.ErrorData(code=types.INTERNAL_ERROR, message=said)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=ident, error=error))


class Lines:
    """A server's output split into messages as it comes (`feed` a chunk: the messages it ended),
    none held past MAX_MESSAGE bytes: past it, only the message's first bytes (_HEAD) are kept."""

    def __init__(self) -> None:
        self._line = bytearray()
        self._dropping = False
        self._size = 0  # the bytes of the message being dropped

    def _take(self, piece: bytes) -> None:
        if self._dropping:
            self._line += piece[: max(0, _HEAD - len(self._line))]
            self._size += len(piece)
            return
        self._line += piece
        if len(self._line) > MAX_MESSAGE:
            self._dropping, self._size = True, len(self._line)
            del self._line[_HEAD:]

    def feed(self, data: bytes) -> list[SessionMessage | Exception]:
        out: list[SessionMessage | Exception] = []
        *ended, rest = data.split(b"\n")
        for piece in ended:
            self._take(piece)
            if self._dropping:
                answer = _dropped(bytes(self._line), self._size)
                out.extend([answer] if answer is not None else [])
            elif self._line.strip():
                out.append(parse(bytes(self._line)))
            self._line.clear()
            self._dropping = False
        self._take(rest)
        return out


@contextlib.asynccontextmanager
async def local_stdio(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], errlog: TextIO
) -> AsyncIterator[TransportStreams]:
    """The server `argv` started here, in `cwd` with `env` only, as the SDK's read and write streams."""
    process = await anyio.open_process(
        list(argv), stdin=-1, stdout=-1, stderr=errlog, cwd=cwd, env=dict(env), start_new_session=True
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        lines = Lines()
        with contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ):
            async with read_writer:
                while True:
                    for message in lines.feed(await process.stdout.receive(65536)):
                        await read_writer.send(message)

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the session sees the connection end, not a call hanging

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                await _stop(process)
            tg.cancel_scope.cancel()


async def _stop(process: anyio.abc.Process) -> None:
    """Close the server's input, give it EXIT_WAIT to exit, then end its group: SIGTERM, SIGKILL."""
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdin is not None:
            await process.stdin.aclose()
    for ending in (None, signal.SIGTERM, signal.SIGKILL):
        if ending is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, ending)
        with anyio.move_on_after(EXIT_WAIT):
            while process.returncode is None:  # not wait(): it also waits for the pipes' end
                await anyio.sleep(_POLL)
        if process.returncode is not None:
            break
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdout is not None:
            await process.stdout.aclose()
