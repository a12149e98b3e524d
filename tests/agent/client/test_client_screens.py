"""The client's key screens as a person sees them, kept as snapshots (pytest-textual-snapshot: a change
to what is drawn fails until the snapshot is looked at and updated with --snapshot-update): a run's
conversation, the permission panel (on 80 and 60 columns), every key, the picker; and NO_COLOR,
which takes the colours away and keeps the layout."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual._doc import take_svg_screenshot  # private: the screenshot the snapshots are made of
from textual.pilot import Pilot

from bastion.agent.client import Client
from bastion.agent.runtime import Assistant, User
from bastion.agent.sessions import Session, list_sessions
from tests.agent.scripted_server import ScriptedServer

from .pilots import client_for, ready, send, settled, until

Snap = Callable[..., bool]
RUN = [
    {
        "text": "I'll look first.",
        "thinking": "The person wants the files.\nList them.",
        "calls": [{"name": "bash", "arguments": {"command": "ls"}}],
    },
    {"text": "## Found\n\nThe work holds **notes.txt** and `src/`:\n\n- one file\n- one directory\n"},
]
WRITE = [{"calls": [{"name": "write", "arguments": {"path": "notes.txt", "content": "one\nthree\nfour\n"}}]}]


def _steady(app: Client) -> None:
    """What differs between machines and moments is made the same: the kernel's Landlock, the cursor."""
    app.facts = app.facts._replace(sandbox="auto, Landlock 6")
    app.prompt.cursor_blink = False
    app.refresh_status()


def _work(tmp: Path) -> None:
    (tmp / "work" / "src").mkdir(parents=True)
    (tmp / "work" / "notes.txt").write_text("one\ntwo\n")


def _after(prompt: str, answer: str = "") -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, Client)
        await ready(pilot)
        await send(pilot, prompt)
        if answer:
            await until(pilot, lambda: app.panel.asked is not None, "the question")
        else:
            await settled(pilot)
        _steady(app)
        await pilot.pause()

    return before


def test_a_run_s_conversation(tmp_path: Path, snap_compare: Snap) -> None:
    _work(tmp_path)
    with ScriptedServer(RUN) as server:
        app = client_for(tmp_path, server.url)
        assert snap_compare(app, terminal_size=(80, 24), run_before=_after("what is here?"))


@pytest.mark.parametrize("columns", [80, 60])
def test_the_permission_panel_with_a_write_s_diff(tmp_path: Path, snap_compare: Snap, columns: int) -> None:
    _work(tmp_path)
    with ScriptedServer(WRITE) as server:
        app = client_for(tmp_path, server.url)
        assert snap_compare(app, terminal_size=(columns, 30), run_before=_after("change notes", answer="y"))


def test_every_key_on_sixty_columns(tmp_path: Path, snap_compare: Snap) -> None:
    with ScriptedServer([]) as server:
        app = client_for(tmp_path, server.url)

        async def before(pilot: Pilot[Any]) -> None:
            assert isinstance(pilot.app, Client)
            await ready(pilot)
            _steady(pilot.app)
            await pilot.press("f1")

        assert snap_compare(app, terminal_size=(60, 40), run_before=before)


def test_the_picker(tmp_path: Path, snap_compare: Snap) -> None:
    home, work = tmp_path / "home" / ".bastion", tmp_path / "work"
    work.mkdir(parents=True)
    for prompt, hours in (("fix the parser's error on a trailing pipe", 26), ("write the docs", 2)):
        session = Session.create(str(home), str(work), "openai", "gpt-5")
        session.message(User(prompt))
        session.message(Assistant("done"))
        session.close()
        when = time.time() - hours * 3600 - 60
        os.utime(home / "sessions" / f"{session.id}.jsonl", (when, when))
    with ScriptedServer([]) as server:
        app = client_for(tmp_path, server.url, "--continue", pick=list_sessions(str(home), str(work)))
        assert snap_compare(app, terminal_size=(80, 12))


def _text(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_no_color_takes_the_colours_away_and_keeps_the_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shots = []
    for run, no_color in (("a", False), ("b", True)):
        _work(tmp_path / run)
        if no_color:
            monkeypatch.setenv("NO_COLOR", "1")
        with ScriptedServer(RUN) as server:
            app = client_for(tmp_path / run, server.url)
            shots.append(take_svg_screenshot(app, terminal_size=(80, 24), run_before=_after("what is here?")))
    coloured, plain = shots
    assert _text(coloured) == _text(plain)
    colours = set(re.findall(r"fill: (#[0-9a-f]{6})", coloured))
    assert len(set(re.findall(r"fill: (#[0-9a-f]{6})", plain))) < len(colours)
