"""An editor for the tests: the ACP SDK's own client side, driving `bastion acp` in a process of its
own against the scripted model, recording every update and answering each question as told."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

from acp import Client, RequestError, spawn_agent_process, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
)

from tests.waits import PATIENCE

from .test_scenarios import _env

T = TypeVar("T")

# What an editor answers a question with: an option's id, "cancelled" (the editor's cancelled
# outcome), or "never" (it never answers).
NEVER, CANCELLED = "never", "cancelled"
# What an editor's file system does instead of serving a request: refuses it.
ERROR = "error"


class Editor:
    """The client: updates (as the JSON the wire carries), questions, and the answers to give.
    With `buffers` (the unsaved text of open files, by absolute path) it offers its file system
    (fs/read_text_file, fs/write_text_file): a read gives the buffer, else the disk; a write sets
    the buffer (and, with `save`, the disk); `fs` is ERROR (each request refused) or NEVER."""

    def __init__(
        self,
        answers: Sequence[str] = (),
        *,
        buffers: dict[str, str] | None = None,
        save: bool = False,
        fs: str = "",
    ) -> None:
        self.answers = list(answers)
        self.updates: list[dict[str, Any]] = []
        self.questions: list[dict[str, Any]] = []
        self.asked = asyncio.Event()
        self.updated = asyncio.Event()
        self.buffers = buffers
        self.save = save
        self.fs = fs
        self.fs_calls: list[tuple[str, str]] = []  # (read or write, the path asked for)

    def capabilities(self) -> ClientCapabilities | None:
        if self.buffers is None:
            return None
        return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True))

    async def _fs(self, kind: str, path: str) -> None:
        self.fs_calls.append((kind, path))
        if self.fs == NEVER:
            await asyncio.Event().wait()
        if self.fs == ERROR:
            raise RequestError(-32603, f"the editor cannot {kind} {path}: it is not open")

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> ReadTextFileResponse:
        await self._fs("read", path)
        assert self.buffers is not None
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> None:
        await self._fs("write", path)
        assert self.buffers is not None
        self.buffers[path] = content
        if self.save:
            Path(path).write_text(content)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.questions.append(
            {
                "toolCall": tool_call.model_dump(by_alias=True, exclude_none=True),
                "options": [o.model_dump(by_alias=True, exclude_none=True) for o in options],
            }
        )
        self.asked.set()
        answer = self.answers.pop(0) if self.answers else "reject"
        if answer == NEVER:
            await asyncio.Event().wait()
        if answer == CANCELLED:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update.model_dump(by_alias=True, exclude_none=True))
        self.updated.set()

    def on_connect(self, conn: Any) -> None:
        pass

    # What the updates say.

    def text(self) -> str:
        return "".join(
            u["content"]["text"] for u in self.updates if u["sessionUpdate"] == "agent_message_chunk"
        )

    def calls(self) -> dict[str, list[dict[str, Any]]]:
        """Each tool call's updates, by its id, in order."""
        found: dict[str, list[dict[str, Any]]] = {}
        for u in self.updates:
            if u["sessionUpdate"] in ("tool_call", "tool_call_update"):
                found.setdefault(u["toolCallId"], []).append(u)
        return found


async def bounded(awaitable: Awaitable[T], what: str) -> T:
    """`awaitable`, or an AssertionError naming `what` if it never comes (PATIENCE)."""
    try:
        return await asyncio.wait_for(awaitable, PATIENCE)
    except TimeoutError:
        raise AssertionError(f"waited {PATIENCE:g} s for {what}") from None


def acp_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The scenarios' environment: every provider's key set (to the same secret), a fresh HOME."""
    env = {k: v for k, v in _env(tmp).items() if k != "SCRIPTED_KEY"}  # no key's variable: it would stay
    return {**env, **extra}


@contextlib.asynccontextmanager
async def editor_session(
    tmp: Path,
    url: str,
    editor: Editor,
    *flags: str,
    env: Mapping[str, str] | None = None,
    argv: Sequence[str] | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, str, Any]]:
    """`bastion acp` started as an editor starts it (its standard error in tmp/acp.err), initialized,
    with a session in tmp/work; the connection, the session's id and the process."""
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    command = argv or [
        sys.executable,
        "-m",
        "bastion",
        "acp",
        "--provider",
        "openai",
        "--base-url",
        url + "/v1",
    ]
    with open(tmp / "acp.err", "w") as err:
        client = cast("Client", editor)  # the methods an editor needs here; the router finds them
        async with spawn_agent_process(
            client,
            command[0],
            *command[1:],
            *flags,
            env=dict(env if env is not None else acp_env(tmp)),
            cwd=str(work),
            transport_kwargs={"stderr": err.fileno()},
        ) as (conn, process):
            await bounded(
                conn.initialize(protocol_version=1, client_capabilities=editor.capabilities()), "initialize"
            )
            session = await bounded(conn.new_session(cwd=str(work)), "session/new")
            yield conn, session.session_id, process


async def prompt(conn: ClientSideConnection, session_id: str, words: str) -> str:
    """The prompt's stop reason."""
    answer = await bounded(conn.prompt(session_id=session_id, prompt=[text_block(words)]), "the prompt's end")
    return str(answer.stop_reason)


def run(body: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(body())


def stderr_of(tmp: Path) -> str:
    path = tmp / "acp.err"
    return path.read_text() if path.exists() else ""


def session_events(tmp: Path) -> list[dict[str, Any]]:
    (path,) = (tmp / "home" / ".bastion" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def no_key_in_environ(pid: int, secret: str) -> bool:
    with open(f"/proc/{pid}/environ", "rb") as handle:
        return secret.encode() not in handle.read()
