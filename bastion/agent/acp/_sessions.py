"""One editor session: the agent a `bastion` session builds (the same Agent, gate, policy, tools,
harness and record as the REPL's), its updates to the editor, its questions, and its runs."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import os
import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acp import update_agent_message_text
from acp.schema import ClientCapabilities, PermissionOption, ToolCallUpdate

from ..._errors import BastionError
from ...workspace import LocalWorkspace
from ..front import DIFF_LIMIT, Build, Built, CallKey, Fanout, Printer, RunControl
from ..runtime import AgentError, Cancelled, Failure, ModelError
from ._files import EditorFiles, offered
from ._outbox import Outbox
from ._questions import EditorAsker
from ._updates import Reporter, Update, replay

if TYPE_CHECKING:
    from acp.interfaces import Client

__all__ = ["EditorSession", "TurnFailed", "open_session", "run_turn"]

# How a run that ended short is told to the editor (its stop reason); any other failure is an error.
STOPS = {
    Failure.MAX_TURNS: "max_turn_requests",
    Failure.OUTPUT_LIMIT_EXCEEDED: "max_tokens",
    Failure.POLICY_REJECTION: "refusal",
}


class TurnFailed(BastionError):
    """A run failed: what to tell the editor, and the advice that goes with it."""

    def __init__(self, err: AgentError, advice: str | None) -> None:
        super().__init__(f"{err}; {advice}" if advice else str(err))
        self.kind = str(err.kind)


class EditorSession:
    def __init__(self, built: Built, reporter: Reporter, control: RunControl, session_id: str) -> None:
        self.built = built
        self.reporter = reporter
        self.control = control
        self.id = session_id
        self.thread: threading.Thread | None = None  # the last run's
        self.busy = False  # a prompt is running (set and read on the event loop)

    def turn(self, text: str) -> str:
        """Run one prompt (on this thread) to its stop reason; a failure is TurnFailed."""
        agent = self.built.agent
        self.control.begin(agent.cancel)
        try:
            try:
                agent.run(text)
                return "end_turn"
            except (Cancelled, KeyboardInterrupt):
                agent.withdraw_unanswered()
                return "cancelled"
            except AgentError as err:
                agent.withdraw_unanswered()
                reason = STOPS.get(err.kind) if isinstance(err, ModelError) else None
                if reason is None:
                    raise TurnFailed(err, self.built.advice(err)) from None
                self.reporter.send(update_agent_message_text(f"\n\nbastion: {err}"))
                return reason
            finally:
                self.control.end()
        except KeyboardInterrupt:  # an interrupt that landed as the run ended
            return "cancelled"

    def close(self, lost: str | None = None) -> None:
        """Stop a run still going (its calls stopped and answered "interrupted"), wait for it, and
        end the session's record (`lost`: why the connection ended, recorded) and its MCP servers."""
        self.control.cancel()
        if self.thread is not None:
            self.thread.join()
        if lost is not None:
            self.built.session.record("editor_lost", reason=lost)
        self.built.close()


def open_session(
    build: Build,
    args: argparse.Namespace,
    environ: Mapping[str, str],
    cwd: str,
    outbox: Outbox,
    client: Client,
    capabilities: ClientCapabilities | None,
) -> tuple[EditorSession, list[Update]]:
    """Build a session in `cwd` (`args.resume`: the recorded one to continue; `capabilities`: the
    editor's, whose file system the file tools use where it offers one); the updates that show a
    resumed conversation. Runs on a thread of its own (building may start MCP servers)."""
    named: list[str] = [""]

    def send(update: Update) -> None:
        outbox.post(lambda: client.session_update(session_id=named[0], update=update))

    def ask(tool_call: ToolCallUpdate, options: list[PermissionOption]) -> concurrent.futures.Future[Any]:
        return outbox.request(
            lambda: client.request_permission(session_id=named[0], tool_call=tool_call, options=options)
        )

    control = RunControl()
    reporter = Reporter(send, cwd, control)
    recorded: list[Built] = []

    def on_rule(key: CallKey) -> None:
        if recorded:
            recorded[0].session.record("session_rule", tool=key.tool, arguments=key.arguments)

    asker = EditorAsker(ask, reporter, control, cwd, args.question_timeout, on_rule)
    # Nothing of a session is written on standard output (the protocol's); what bastion says while it
    # builds and runs (a sandbox notice, a slow key command) goes to standard error, the editor's log.
    printer = Printer(sys.stderr, sys.stderr, stream_text=False)
    built = build(args, environ, cwd, printer, asker)
    recorded.append(built)
    shown = built.agent.events
    targets = shown.targets if isinstance(shown, Fanout) else (shown,)
    built.agent.events = Fanout(*(t for t in targets if t is not printer), reporter)
    named[0] = built.session.id or f"unrecorded-{os.getpid()}-{id(built):x}"
    _hold_files(built, outbox, client, named, control, capabilities, args.file_timeout, (reporter, asker))
    return EditorSession(built, reporter, control, named[0]), replay(built.agent.messages, cwd)


def _hold_files(
    built: Built,
    outbox: Outbox,
    client: Client,
    named: list[str],
    control: RunControl,
    capabilities: ClientCapabilities | None,
    timeout: float,
    shown: tuple[Reporter, EditorAsker],
) -> None:
    """Where the editor offers its file system and the workspace is this machine's (an executor's
    files are not the editor's), the file tools and the diffs shown read and write through it."""
    reads, writes = offered(capabilities)
    toolbox = built.toolbox
    if toolbox is None or not (reads or writes) or not isinstance(built.workspace, LocalWorkspace):
        return

    def read(path: str) -> concurrent.futures.Future[Any]:
        return outbox.request(lambda: client.read_text_file(session_id=named[0], path=path))

    def write(path: str, text: str) -> concurrent.futures.Future[Any]:
        return outbox.request(lambda: client.write_text_file(session_id=named[0], path=path, content=text))

    toolbox.hold_files(EditorFiles(read if reads else None, write if writes else None, control, timeout))

    def text_now(path: str, cwd: str) -> str | None | OSError:
        return toolbox.file_text(path, DIFF_LIMIT)

    for front in shown:
        front.text_now = text_now


async def run_turn(session: EditorSession, text: str, outbox: Outbox) -> str:
    """Run a prompt on a thread of its own; its stop reason once every update was sent."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()

    def settle(outcome: str | BaseException) -> None:
        if done.done():
            return
        if isinstance(outcome, BaseException):
            done.set_exception(outcome)
        else:
            done.set_result(outcome)

    def work() -> None:
        try:
            outcome: str | BaseException = session.turn(text)
        except BaseException as err:  # TurnFailed, or anything the loop let out: told, never a crash
            outcome = err
        with contextlib.suppress(RuntimeError):  # the event loop has gone: the process is ending
            loop.call_soon_threadsafe(settle, outcome)

    session.thread = threading.Thread(target=work, name=f"bastion-acp-{session.id}", daemon=True)
    session.thread.start()
    try:
        reason = await asyncio.shield(done)
    except asyncio.CancelledError:  # the connection is closing: the run stops as a cancel stops it
        session.control.cancel()
        raise
    await outbox.drained()
    return reason
