"""Approvals that learn, in the terminal client: with a user file to write, the permission panel
offers the policy's narrowest rule for the call as one line of TOML, `r` saves it to that file in
this project's scope and allows the call, and the next identical call runs unasked (the policy's
own decision, cited to your config for this project); a secret-looking path gets no offer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from textual.widgets import Static

from tests.agent.scripted_server import ScriptedServer

from .pilots import client_for, ready, send, settled, until


def _bash(command: str) -> dict[str, object]:
    return {"calls": [{"name": "bash", "arguments": {"command": command}}]}


def _verdicts(tmp: Path) -> list[dict[str, object]]:
    sessions = sorted((tmp / "home" / ".bastion" / "sessions").glob("*.jsonl"))
    events = [json.loads(line) for path in sessions for line in path.read_text().splitlines()]
    return [e for e in events if e["type"] in ("verdict", "learnt_rule")]


def test_r_saves_the_rule_offered_for_this_project_and_the_same_call_then_runs_unasked(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("# mine\n")
    work = tmp_path / "work"
    root = json.dumps(str(work.resolve()))
    asked: list[str] = []

    async def scenario() -> None:
        rounds = [_bash("touch made.txt"), _bash("touch made.txt"), {"text": "made twice"}]
        with ScriptedServer(rounds) as server:
            app = client_for(tmp_path, server.url, "--config", str(config))
            async with app.run_test(size=(120, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "make it")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                offer = str(app.panel.query_one("#offer", Static).render())
                asked.append(offer)
                assert "r save the rule" in str(app.panel.query_one("#keys", Static).render())
                await pilot.press("r")
                await settled(pilot)
                assert app.panel.asked is None

    asyncio.run(scenario())
    assert asked == [
        f'rule offered: projects.{root}.policy.allow = ["bash(touch made.txt:*)"]  (r saves it to {config})'
    ]
    text = config.read_text()
    assert text.startswith("# mine\n") and f"[projects.{root}.policy]" in text
    assert '"bash(touch made.txt:*)"' in text
    learnt, first, second = _verdicts(tmp_path)  # the rule is saved as the question is answered
    assert (first["decision"], first["answered_by"], first["allowed"]) == ("ask", "person", True)
    assert learnt["rules"] == ["bash(touch made.txt:*)"] and learnt["config"] == str(config)
    assert (second["decision"], second["answered_by"]) == ("allow", "rule")  # not asked: the rule's
    assert str(second["source"]).startswith("user:")


def test_no_rule_is_offered_for_a_secret_looking_path_and_r_answers_nothing(tmp_path: Path) -> None:
    from bastion.agent.client._panel import NO_RULE  # private: the panel's words for no offer

    config = tmp_path / "config.toml"
    config.write_text("")

    async def scenario() -> None:
        with ScriptedServer([_bash("cat .env"), {"text": "ok"}]) as server:
            app = client_for(tmp_path, server.url, "--config", str(config))
            async with app.run_test(size=(100, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "read it")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                assert str(app.panel.query_one("#offer", Static).render()) == NO_RULE
                await pilot.press("r")
                assert app.panel.asked is not None  # still asked: r did nothing
                await pilot.press("n")
                await pilot.press("enter")
                await settled(pilot)

    asyncio.run(scenario())
    assert config.read_text() == ""
