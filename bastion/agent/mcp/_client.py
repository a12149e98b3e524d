"""The connections to the user's MCP servers, on one event loop of their own.

The SDK is asynchronous and the turn loop runs each call on a thread, so the servers live on an
asyncio loop in a daemon thread and a call crosses over with `run_coroutine_threadsafe`. Each server
is one task that holds its transport and session open until the hub closes: a server that does not
connect, initialize and list its tools within `startup_timeout` is stopped and marked failed; one
whose connection closes (it crashed, or exited) is marked stopped, with the last line it wrote to
standard error; a call that gets no answer within `call_timeout` fails and the server stays up. In
every case the call's result says so and the session goes on. A stdio server starts with the
environment commands get (yours, less credentials) plus its own `env` and `pass_env`; with an
executor it starts there, its pipes relayed over the executor's link (`_relay`), and a lost
executor fails the call and ends the run (WorkspaceLost).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TextIO, cast

from ...policy import child_env
from ..runtime import ConfigError
from ._config import ServerConfig
from ._headers import header_values
from ._results import result_text

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp_types import Tool

    from ...workspace import ExecutorWorkspace

__all__ = ["Hub", "ServerReport"]

STARTING, READY, FAILED, STOPPED = "starting", "ready", "failed", "stopped"
# How long close() waits for the servers to be stopped (the SDK's own shutdown is bounded too).
_CLOSE_WAIT = 8.0


class ServerReport(NamedTuple):
    """One server as /mcp and doctor show it: `tools` are the names the model sees, `refused` why
    a tool is not offered."""

    name: str
    transport: str
    state: str
    detail: str
    tools: tuple[str, ...]
    refused: tuple[str, ...]


class _Server:
    def __init__(self, name: str, config: ServerConfig) -> None:
        self.name = name
        self.config = config
        self.state = STARTING
        self.detail = ""
        self.said = ""
        self.tools: list[Tool] = []
        self.session: ClientSession | None = None
        self.stop: asyncio.Event | None = None
        self.started = threading.Event()
        self.task: asyncio.Task[None] | None = None
        self.errlog: IO[str] | None = None

    def last_words(self) -> str:
        """The last line the server wrote to standard error (a stdio server's), printable
        characters only: for the person (/mcp, doctor), never for the model, since a server may
        print what its environment holds."""
        if self.errlog is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self.errlog.seek(0)
            lines = [line.strip() for line in self.errlog.read()[-4096:].splitlines() if line.strip()]
            return "".join(c for c in lines[-1][:300] if c.isprintable()) if lines else ""
        return ""

    def ended(self, state: str, detail: str) -> None:
        if self.state in (FAILED, STOPPED):
            return
        self.state, self.detail, self.said = state, detail, self.last_words()
        self.session = None
        if self.stop is not None:
            self.stop.set()


class Hub:
    """Starts the servers, keeps them, calls their tools. `on_tools` is called (on the loop's
    thread) with a server's name when its tool list changed."""

    def __init__(
        self,
        servers: Mapping[str, ServerConfig],
        environ: Mapping[str, str],
        cwd: str,
        scrub: Sequence[str] = (),
        executor: ExecutorWorkspace | None = None,
    ) -> None:
        """`executor`: where the stdio servers start (None: on this machine, in `cwd`)."""
        self._servers = {name: _Server(name, config) for name, config in servers.items()}
        self._executor = executor
        self._environ = dict(environ)
        self._cwd = cwd
        self._scrub = tuple(scrub)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="bastion-mcp", daemon=True)
        self._closed = False
        self.on_tools: Callable[[str], None] = lambda name: None

    # -- on the caller's thread

    def start(self) -> None:
        """Start every server and wait until each is ready or has failed (within its timeout)."""
        self._thread.start()
        for server in self._servers.values():
            self._loop.call_soon_threadsafe(self._launch, server)
        for server in self._servers.values():
            server.started.wait(server.config.startup_timeout + 5.0)

    def names(self) -> list[str]:
        return list(self._servers)

    def tools(self, name: str) -> list[Tool]:
        return list(self._servers[name].tools)

    def report(self, name: str) -> tuple[str, str, str]:
        """(transport, state, detail) of one server, the detail with its last words if it said any."""
        server = self._servers[name]
        detail = f"{server.detail}; it said: {server.said}" if server.said else server.detail
        return server.config.transport, server.state, detail

    def ping(self, timeout: float = 3.0) -> None:
        """Ask every ready server whether it is still there, so a report shows one that stopped
        while no call was running as stopped."""
        if self._closed or not self._thread.is_alive():
            return
        future = asyncio.run_coroutine_threadsafe(self._ping_all(timeout), self._loop)
        with contextlib.suppress(Exception):
            future.result(timeout=timeout + 1.0)

    def lost(self) -> str:
        """Why the executor the stdio servers run on is lost ("": it is not, or there is none)."""
        return self._executor.lost if self._executor is not None else ""

    def call(
        self, name: str, tool: str, args: Mapping[str, object], cancel: threading.Event
    ) -> tuple[str, bool]:
        """Call a tool; the text for the model and whether it failed. Never raises."""
        server = self._servers[name]
        if server.state != READY or server.session is None:
            return f"error: the MCP server {name} is not running ({server.state}: {server.detail})", True
        future = asyncio.run_coroutine_threadsafe(self._call(server, tool, dict(args)), self._loop)
        deadline = time.monotonic() + server.config.call_timeout + 5.0
        while True:
            try:
                return future.result(timeout=0.05)
            except TimeoutError:
                if cancel.is_set() or time.monotonic() > deadline:
                    future.cancel()
                    why = "the run was aborted" if cancel.is_set() else "no answer in time"
                    return f"error: the call of {tool} on the MCP server {name} was stopped: {why}", True
            except Exception as err:  # a failure of ours, not the server's: still only this call fails
                return f"error: the call of {tool} on the MCP server {name} failed: {err}", True

    def close(self) -> None:
        """Stop every server (a stdio server's process is ended) and the loop."""
        if self._closed or not self._thread.is_alive():
            self._closed = True
            return
        self._closed = True
        done = asyncio.run_coroutine_threadsafe(self._close_all(), self._loop)
        with contextlib.suppress(Exception):
            done.result(timeout=_CLOSE_WAIT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=2.0)

    # -- on the loop's thread

    def _launch(self, server: _Server) -> None:
        server.stop = asyncio.Event()
        server.task = self._loop.create_task(self._run(server))
        self._loop.call_later(server.config.startup_timeout, self._too_slow, server)

    def _too_slow(self, server: _Server) -> None:
        if server.state == STARTING and server.task is not None:
            server.ended(FAILED, f"did not start within {server.config.startup_timeout:g} s")
            server.task.cancel()
            server.started.set()

    async def _run(self, server: _Server) -> None:
        # A stdio server's standard error goes to a file of its own: not onto the person's terminal,
        # and its last line says why it stopped.
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            server.errlog = errlog
            try:
                await self._serve(server)
            except asyncio.CancelledError:
                pass
            except ConfigError as err:
                server.ended(FAILED, str(err))
            except BaseException as err:  # noqa: BLE001 - any failure of one server ends only that server
                server.ended(FAILED if server.state == STARTING else STOPPED, _describe(err))
            finally:
                if server.state in (STARTING, READY):
                    server.ended(STOPPED, "its connection closed")
                server.started.set()
                server.errlog = None

    async def _serve(self, server: _Server) -> None:
        async with AsyncExitStack() as stack:
            session = await self._connect(server, stack)
            await session.initialize()
            await self._list(server, session)
            if server.state == STARTING:
                server.session, server.state = session, READY
            server.started.set()
            assert server.stop is not None
            await server.stop.wait()

    async def _connect(self, server: _Server, stack: AsyncExitStack) -> ClientSession:
        from mcp import ClientSession

        config = server.config
        # The key's and the headers' variables stay out even when the server's pass_env names them.
        scrubbed = {name.upper() for name in self._scrub}
        errlog = cast(TextIO, server.errlog) if server.errlog is not None else sys.stderr
        if config.command is not None and self._executor is not None:
            from ._relay import executor_stdio

            passed = [n for n in config.pass_env if n.upper() not in scrubbed]
            argv = [config.command, *config.args]
            relay = executor_stdio(self._executor, argv, config.cwd, dict(config.env), passed, errlog)
            read, write = await stack.enter_async_context(relay)
        elif config.command is not None:
            from ._stdio import local_stdio

            kept = [n for n in config.pass_env if n in self._environ and n.upper() not in scrubbed]
            env = {**child_env(self._environ, kept, also_scrub=self._scrub), **config.env}
            cwd = os.path.join(self._cwd, os.path.expanduser(config.cwd)) if config.cwd else self._cwd
            if not os.path.isdir(cwd):
                raise ConfigError(f"its cwd {cwd} is not a directory")
            argv = [config.command, *config.args]
            read, write = await stack.enter_async_context(local_stdio(argv, cwd, env, errlog))
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            assert config.url is not None
            headers = header_values(config, self._environ, self._scrub)
            timeout = httpx2.Timeout(min(30.0, config.startup_timeout), read=max(300.0, config.call_timeout))
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=timeout))
            read, write = await stack.enter_async_context(
                streamable_http_client(config.url, http_client=http)
            )

        from mcp_types import ToolListChangedNotification

        async def on_message(message: object) -> None:
            if isinstance(message, ToolListChangedNotification):
                self._loop.create_task(self._relist(server))

        # Starting (initialize, the tool list) is bounded by startup_timeout, each call by call_timeout
        # (given with the call): a server slow to import its SDK is not failed by a short call bound.
        session = ClientSession(
            read, write, read_timeout_seconds=config.startup_timeout, message_handler=on_message
        )
        return await stack.enter_async_context(session)

    async def _list(self, server: _Server, session: ClientSession) -> None:
        tools: list[Tool] = []
        cursor: str | None = None
        while True:
            from mcp_types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools += page.tools
            cursor = page.next_cursor
            if not cursor or len(tools) > 1000:
                break
        server.tools = tools
        self.on_tools(server.name)

    async def _relist(self, server: _Server) -> None:
        session = server.session
        if session is None:
            return
        with contextlib.suppress(Exception):
            await self._list(server, session)

    async def _call(self, server: _Server, tool: str, args: dict[str, Any]) -> tuple[str, bool]:
        session = server.session
        if session is None:
            return (
                f"error: the MCP server {server.name} is not running ({server.state}: {server.detail})",
                True,
            )
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        try:
            result = await session.call_tool(tool, args, read_timeout_seconds=server.config.call_timeout)
        except MCPError as err:
            if err.code == REQUEST_TIMEOUT:
                wait = f"{server.config.call_timeout:g} s"
                return (
                    f"error: the MCP server {server.name} did not answer the call of {tool} within {wait}",
                    True,
                )
            if err.code == CONNECTION_CLOSED:
                server.ended(STOPPED, "its connection closed")
                why = f"the server stopped during the call ({server.detail})"
                return f"error: the call of {tool} on the MCP server {server.name} failed: {why}", True
            return f"error: the MCP server {server.name} answered the call of {tool}: {err.message}", True
        except Exception as err:
            return f"error: the call of {tool} on the MCP server {server.name} failed: {_describe(err)}", True
        return result_text(result)

    async def _ping_all(self, timeout: float) -> None:
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        async def one(server: _Server) -> None:
            session = server.session
            if session is None:
                return
            try:
                await asyncio.wait_for(session.send_ping(), timeout)
            except MCPError as err:
                if err.code == CONNECTION_CLOSED:
                    server.ended(STOPPED, "its connection closed")
            except Exception:  # a server slow to answer a ping is not taken for stopped
                return

        await asyncio.gather(*(one(s) for s in self._servers.values()))

    async def _close_all(self) -> None:
        tasks = []
        for server in self._servers.values():
            if server.stop is not None:
                server.stop.set()
            if server.task is not None:
                tasks.append(server.task)
        if tasks:
            await asyncio.wait(tasks, timeout=_CLOSE_WAIT - 1.0)


def _describe(err: BaseException) -> str:
    """One line for an error, unwrapping the task groups the SDK raises through."""
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(err, MCPError) and err.code == CONNECTION_CLOSED:
        return "its connection closed"
    if isinstance(err, FileNotFoundError):
        return f"its program was not found ({err.filename or err})"
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__
