"""What the client's tests share: a client over a real session (the wiring's build) against the
scripted model server, and waiting on the client's readiness through the pilot, never on a clock."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from textual.pilot import Pilot

from bastion.agent._main import _parser  # private: the agent's own flags make the session, as for the REPL
from bastion.agent._wiring import build  # private: the one builder every front is handed
from bastion.agent.client import Client
from bastion.agent.front import Build, Learning
from bastion.agent.sessions import SessionInfo
from tests.agent.test_scenarios import _env
from tests.waits import PATIENCE


def client_for(
    tmp: Path,
    url: str,
    *flags: str,
    learning: Learning | None = None,
    pick: Sequence[SessionInfo] | None = None,
    made: Build = build,
) -> Client:
    """A client over a session in tmp/work, its model the scripted server at `url` (`made`: what
    makes the session, the wiring's build unless a test wraps it)."""
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    argv = ["--provider", "openai", "--base-url", url + "/v1", "--config", os.devnull, *flags]
    environ = {**os.environ, **_env(tmp)}
    return Client(_parser().parse_args(argv), environ, str(work), made, learning, pick)


async def until(pilot: Pilot[int], condition: Callable[[], object], what: str) -> None:
    """Return once `condition()` holds, the client's messages handled between looks; an
    AssertionError naming `what` if it never does."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {PATIENCE:g} s for {what}")
        await pilot.pause(0.01)


async def ready(pilot: Pilot[int]) -> None:
    app = pilot.app
    assert isinstance(app, Client)
    await until(pilot, lambda: app.built is not None and not app.doing, "the session to be made")


async def send(pilot: Pilot[int], text: str) -> None:
    """Type `text` in the prompt and press Enter."""
    app = pilot.app
    assert isinstance(app, Client)
    app.prompt.focus()
    app.prompt.text = text
    await pilot.press("enter")


async def settled(pilot: Pilot[int]) -> None:
    """Wait for the run (and anything it queued) to end."""
    app = pilot.app
    assert isinstance(app, Client)
    await until(pilot, lambda: not app.running and not app.runs.commanding, "the run to end")
