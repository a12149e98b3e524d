"""Sessions in the terminal client: the picker (`--resume` without an ID, `--continue`) lists them
with their title, directory, age and turns and resumes the one chosen, drawn from its record; a
session of another directory is continued here only when asked; a call's detail says what decided it."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import cast

from rich.text import Text
from textual.widgets import OptionList, Static

from bastion.agent.runtime import Assistant, User
from bastion.agent.sessions import Session, list_sessions
from tests.agent.scripted_server import ScriptedServer

from .pilots import client_for, ready, send, settled, until


def _session(home: Path, cwd: Path, prompts: list[str], hours_ago: float) -> str:
    session = Session.create(str(home), str(cwd), "openai", "gpt-5")
    for prompt in prompts:
        session.message(User(prompt))
        session.message(Assistant(f"answer to {prompt}"))
    session.close()
    path = home / "sessions" / f"{session.id}.jsonl"
    when = time.time() - hours_ago * 3600
    os.utime(path, (when, when))
    return session.id


def test_the_picker_lists_the_sessions_newest_first_and_resumes_the_one_chosen(tmp_path: Path) -> None:
    home, work = tmp_path / "home" / ".bastion", tmp_path / "work"
    work.mkdir(parents=True)
    older = _session(home, work, ["fix the parser", "and its tests"], hours_ago=5)
    newer = _session(home, work, ["write the docs"], hours_ago=1)
    found = list_sessions(str(home), None)

    async def scenario() -> None:
        with ScriptedServer([]) as server:
            app = client_for(tmp_path, server.url, "--resume", pick=found)
            async with app.run_test(size=(80, 24)) as pilot:
                listed = app.screen.query_one(OptionList)
                shown = [cast(Text, listed.get_option_at_index(i).prompt).plain for i in range(2)]
                assert shown == [
                    "write the docs\n  here · 1 h ago · 1 turn",
                    "fix the parser\n  here · 5 h ago · 2 turns",
                ]
                assert app.built is None  # nothing is made before one is chosen
                await pilot.press("down", "enter")
                await ready(pilot)
                assert app.built is not None and app.built.session.id == older
                from bastion.agent.client._view import PromptLine  # private: how a prompt is drawn

                said = [str(p.render()) for p in app.conversation.query(PromptLine)]
                assert said == ["› fix the parser", "› and its tests"]

    asyncio.run(scenario())
    assert newer != older


def test_a_session_of_another_directory_is_continued_here_only_with_h(tmp_path: Path) -> None:
    home, work, elsewhere = tmp_path / "home" / ".bastion", tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir(parents=True)
    elsewhere.mkdir()
    other = _session(home, elsewhere, ["over there"], hours_ago=2)
    found = list_sessions(str(home), None)

    async def scenario() -> None:
        with ScriptedServer([]) as server:
            app = client_for(tmp_path, server.url, "--resume", pick=found)
            async with app.run_test(size=(100, 24)) as pilot:
                await pilot.press("enter")
                said = app.screen.query_one("#said", Static)
                assert "cd there to resume it, or press h" in str(said.render())
                assert app.built is None
                await pilot.press("h")
                await ready(pilot)
                assert app.built is not None and app.built.session.id == other and app.args.here

    asyncio.run(scenario())


def test_leaving_the_picker_makes_no_session(tmp_path: Path) -> None:
    home, work = tmp_path / "home" / ".bastion", tmp_path / "work"
    work.mkdir(parents=True)
    _session(home, work, ["a prompt"], hours_ago=1)

    async def scenario() -> None:
        with ScriptedServer([]) as server:
            app = client_for(tmp_path, server.url, "--continue", pick=list_sessions(str(home), str(work)))
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.press("escape")
                await until(pilot, lambda: not app.is_running, "the client to leave")
            assert app.built is None and app.return_code == 0

    asyncio.run(scenario())
    assert len(list((home / "sessions").glob("*.jsonl"))) == 1


def test_a_call_s_detail_says_the_decision_the_rule_the_plan_and_the_stamp_s_check(tmp_path: Path) -> None:
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": "ls -la"}}]}, {"text": "listed"}]

    async def scenario() -> None:
        with ScriptedServer(rounds) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(100, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "list")
                await settled(pilot)
                await pilot.press("ctrl+p", "enter")
                from bastion.agent.client._screens import DetailScreen  # private: the detail's screen

                await until(pilot, lambda: isinstance(app.screen, DetailScreen), "the detail")
                shown = str(app.screen.query_one(Static).render())
                assert "decision: allow" in shown
                assert "rule: bash(ls:*) (bastion's shipped rules)" in shown
                assert "plan: " in shown and "--quoting-style=shell-escape" in shown
                assert "stamp: verified right before it ran" in shown
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, DetailScreen), "the detail to close")

    asyncio.run(scenario())
