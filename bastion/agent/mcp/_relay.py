"""A stdio MCP server started on the executor: the transport the SDK's `stdio_client` would be,
with the server's pipes relayed over the executor's link (`ExecutorWorkspace.spawn`) instead of a
local process, and read as `_stdio` reads a local one (no message held past MAX_MESSAGE). It starts
where the session's commands run, with that machine's environment for
commands, the variables its `pass_env` names from the executor's own environment (never the key's
or a header's, which the caller leaves out) and its `env`; its standard error goes to `errlog`.

The end is the SDK's: the server's input is closed, it is given a moment to exit, then its
process group is ended there. A lost executor ends the server's stream as a closed connection
does (the hub marks it stopped and its calls fail).
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

import anyio
import anyio.to_thread
from mcp.shared.message import SessionMessage

from ..runtime import ConfigError
from ._stdio import EXIT_WAIT, Lines

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

    from ...workspace import ExecutorWorkspace

__all__ = ["executor_stdio"]


@contextlib.asynccontextmanager
async def executor_stdio(
    ws: ExecutorWorkspace,
    argv: Sequence[str],
    cwd: str | None,
    env: Mapping[str, str],
    pass_env: Sequence[str],
    errlog: TextIO,
) -> AsyncIterator[TransportStreams]:
    """The server `argv` started on `ws`'s executor, as the SDK's read and write streams."""
    from ...workspace import ExecutorLost

    try:
        process = await anyio.to_thread.run_sync(lambda: ws.spawn(argv, cwd=cwd, env=env, pass_env=pass_env))
    except FileNotFoundError as err:
        raise FileNotFoundError(err.errno or errno.ENOENT, err.strerror, argv[0]) from None
    except ExecutorLost:
        raise
    except OSError as err:
        raise ConfigError(err.strerror or str(err)) from None
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    ended = anyio.Event()

    async def reader() -> None:
        lines = Lines()
        try:
            async with read_writer:
                while True:
                    kind, data = await anyio.to_thread.run_sync(process.next, abandon_on_cancel=True)
                    if kind == "exit":
                        return
                    if kind == "stderr":
                        errlog.write(data.decode("utf-8", "replace"))
                        errlog.flush()
                        continue
                    for message in lines.feed(data):
                        await read_writer.send(message)
        except (ExecutorLost, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return
        finally:
            ended.set()

    async def writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    data = (text + "\n").encode("utf-8")
                    await anyio.to_thread.run_sync(process.write, data)
        except (ExecutorLost, anyio.ClosedResourceError, anyio.BrokenResourceError):
            await read_writer.aclose()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                for stop in (process.close_input, process.kill):
                    with contextlib.suppress(OSError):
                        await anyio.to_thread.run_sync(stop)
                    with anyio.move_on_after(EXIT_WAIT):
                        await ended.wait()
                    if ended.is_set():
                        break
            tg.cancel_scope.cancel()
