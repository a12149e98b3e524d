"""The agent side of the protocol: initialize, session/new, session/load, session/prompt,
session/cancel and authenticate, over the SDK's connection. Everything else (an unknown method,
an unstable one) is the SDK's "method not found"; params that do not fit the schema are its
"invalid params"; a session method before `initialize` is an invalid request."""

from __future__ import annotations

import argparse
import asyncio
import copy
import os
from collections.abc import Mapping
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    EmbeddedResourceContentBlock,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from ..._errors import BastionError
from ..._safe import safe_line
from ..front import Build
from ._outbox import Outbox
from ._sessions import EditorSession, TurnFailed, open_session, run_turn

__all__ = ["Server", "prompt_text"]

# JSON-RPC's code for a request that cannot be taken now (before initialize, a session busy).
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
# The code of a failure of bastion's own (a config it cannot use, a run the model failed).
FAILED = -32603


def _refuse(code: int, words: str, **data: Any) -> RequestError:
    return RequestError(code, safe_line(words), data or None)


def prompt_text(blocks: list[Any]) -> str:
    """The prompt as the model is sent it: the text, a linked resource by its name and URI, an
    embedded one's text after its URI. An image, audio or binary resource (not offered in
    initialize's prompt capabilities) is refused."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"[{block.name}]({block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock) and isinstance(
            block.resource, TextResourceContents
        ):
            parts.append(f"\n{block.resource.uri}:\n```\n{block.resource.text}\n```\n")
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise _refuse(INVALID_PARAMS, f"bastion takes text prompts only: a {kind} block is refused")
    return "".join(parts)


class Server:
    """bastion as an ACP agent: one process, any number of sessions, one run at a time in each."""

    def __init__(self, args: argparse.Namespace, environ: Mapping[str, str], build: Build) -> None:
        self.args = args
        self.environ = environ
        self.build = build
        self.client: Any = None
        self.capabilities: ClientCapabilities | None = None  # the editor's, said in initialize
        self.outbox: Outbox | None = None
        self.initialized = False
        self.sessions: dict[str, EditorSession] = {}

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    def _outbox(self) -> Outbox:
        if self.outbox is None:
            self.outbox = Outbox(asyncio.get_running_loop())
            self.outbox.start()
        return self.outbox

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None, **kwargs: Any
    ) -> InitializeResponse:
        from ... import __version__

        self.initialized = True
        self.capabilities = client_capabilities
        self._outbox()
        # The version asked for where bastion speaks it, else the one it speaks (the client decides).
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                mcp_capabilities=McpCapabilities(),
            ),
            agent_info=Implementation(name="bastion", title="bastion", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        raise _refuse(
            INVALID_PARAMS,
            f"bastion has no authentication method {method_id!r}: the key comes from the environment "
            "or api_key_command (docs/integrations.md)",
        )

    def _ready(self) -> None:
        if not self.initialized:
            raise _refuse(INVALID_REQUEST, "Invalid request: call initialize first")

    def _workspace(self, cwd: str) -> str:
        """The editor's directory, as `cd` into it would make it the working directory."""
        if not os.path.isabs(cwd):
            raise _refuse(INVALID_PARAMS, f"cwd must be an absolute path, not {cwd!r}", field="cwd")
        real = os.path.realpath(cwd)
        if not os.path.isdir(real):
            raise _refuse(INVALID_PARAMS, f"cwd {cwd!r} is not a directory", field="cwd")
        return real

    async def _open(self, cwd: str, resume: str | None) -> tuple[EditorSession, list[Any]]:
        self._ready()
        where = self._workspace(cwd)
        args = copy.copy(self.args)
        args.resume, args.here = resume, False
        try:
            return await asyncio.to_thread(
                open_session,
                self.build,
                args,
                self.environ,
                where,
                self._outbox(),
                self.client,
                self.capabilities,
            )
        except BastionError as err:  # a config, a record, a key that cannot be used: said, never raised
            raise _refuse(FAILED, f"bastion: {err}") from None

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        session, _ = await self._open(cwd, None)
        self.sessions[session.id] = session
        return NewSessionResponse(session_id=session.id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        if session_id in self.sessions:
            raise _refuse(INVALID_PARAMS, f"session {session_id} is open already", field="sessionId")
        session, shown = await self._open(cwd, session_id)
        self.sessions[session.id] = session
        for update in shown:
            session.reporter.send(update)
        await self._outbox().drained()
        return LoadSessionResponse()

    def _session(self, session_id: str) -> EditorSession:
        self._ready()
        session = self.sessions.get(session_id)
        if session is None:
            raise _refuse(
                INVALID_PARAMS, f"no session {session_id!r} (session/new makes one)", field="sessionId"
            )
        return session

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.busy:
            raise _refuse(
                INVALID_REQUEST, f"session {session_id} is still running a prompt (session/cancel stops it)"
            )
        text = prompt_text(prompt)
        session.busy = True
        try:
            reason = await run_turn(session, text, self._outbox())
        except TurnFailed as err:
            await self._outbox().drained()
            raise _refuse(FAILED, f"bastion: {err}", kind=err.kind) from None
        finally:
            session.busy = False
        return PromptResponse(stop_reason=reason)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.control.cancel()

    def stop_runs(self) -> None:
        """The editor closed its end: every run in flight stops as a cancel stops it."""
        for session in self.sessions.values():
            session.control.cancel()

    async def shutdown(self, lost: str | None = None) -> None:
        """The editor went away (`lost`: why bastion ended the connection): every run stops and
        every session's record is closed, saying why when it was bastion that ended it."""
        for session in list(self.sessions.values()):
            await asyncio.to_thread(session.close, lost)
        self.sessions.clear()
        if self.outbox is not None:
            await self.outbox.stop()
