"""The seam where approvals learn: the permission panel shows the rule a `Learning` offers for a
call asked about (the exact config line, and where it would be saved) and `r` saves it and allows
the call. Where none is offered (here: no user file to write, --config /dev/null; `NoLearning`, a
front's that may not remember rules), the panel says so, and `r` saves nothing and answers nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

import pytest
from textual.widgets import Static

from bastion.agent.front import NoLearning, RuleOffer
from bastion.agent.runtime import ToolCall
from bastion.policy import Decision, Verdict
from tests.agent.scripted_server import ScriptedServer

from .pilots import client_for, ready, send, settled, until

TOUCH = {"calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]}


class Offering:
    """Offers one rule for every call and keeps what it was asked to save."""

    def __init__(self) -> None:
        self.offered: list[str] = []
        self.saved: list[RuleOffer] = []

    def offer(self, call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> RuleOffer | None:
        self.offered.append(call.name)
        return RuleOffer('allow = ["bash(touch:*)"]', "/home/you/.config/bastion/config.toml")

    def save(self, offer: RuleOffer) -> str:
        self.saved.append(offer)
        return f"saved {offer.line} to {offer.where}"


def test_no_rule_is_offered_without_a_user_file_to_write_and_r_answers_nothing(tmp_path: Path) -> None:
    from bastion.agent.client._panel import NO_RULE  # private: the panel's words for no offer

    async def scenario() -> None:
        with ScriptedServer([TOUCH, {"text": "ok"}]) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "make it")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                assert str(app.panel.query_one("#offer", Static).render()) == NO_RULE
                assert "r save the rule" not in str(app.panel.query_one("#keys", Static).render())
                await pilot.press("r")
                assert app.panel.asked is not None  # still asked: r did nothing
                await pilot.press("y")
                await settled(pilot)

    asyncio.run(scenario())


def test_no_learning_offers_nothing_and_refuses_to_save() -> None:
    learning = NoLearning()
    verdict = Verdict(Decision.ASK, "asks")
    assert learning.offer(ToolCall("1", "bash", "{}"), {"command": "ls"}, verdict) is None
    with pytest.raises(ValueError, match="no rule is offered"):
        learning.save(RuleOffer("allow = []", "/nowhere"))


def test_a_rule_offered_is_shown_as_its_config_line_and_r_saves_it_and_allows_the_call(
    tmp_path: Path,
) -> None:
    learning = Offering()

    async def scenario() -> None:
        with ScriptedServer([TOUCH, {"text": "ok"}]) as server:
            app = client_for(tmp_path, server.url, learning=learning)
            async with app.run_test(size=(100, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "make it")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                offer = str(app.panel.query_one("#offer", Static).render())
                assert offer == (
                    'rule offered: allow = ["bash(touch:*)"]  (r saves it to '
                    "/home/you/.config/bastion/config.toml)"
                )
                await pilot.press("r")
                await settled(pilot)

    asyncio.run(scenario())
    assert learning.offered == ["bash"]
    assert [o.line for o in learning.saved] == ['allow = ["bash(touch:*)"]']
    assert (tmp_path / "work" / "made.txt").exists()
