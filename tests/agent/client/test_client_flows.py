"""The terminal client against the scripted model, driven by the pilot: a prompt and its streamed
reply, a question answered y / a / n on the screen, steering a run mid-way, a queued follow-up,
Esc and Ctrl-C stopping a run, a sub-agent's question while the run goes."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static
from textual.widgets._markdown import MarkdownH1

from bastion.agent._wiring import build  # private: the one builder every front is handed
from bastion.agent.runtime import INTERRUPTED, ToolResult
from tests.agent.agent_fixtures import SLOW, gone, wait_for_pid
from tests.agent.scripted_server import ScriptedServer
from tests.agent.test_scenarios import _session_events
from tests.waits import PATIENCE

from .pilots import client_for, ready, send, settled, until

TOUCH = {"calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]}


def _messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = request["body"]["messages"]
    return messages


class _Held:
    """Holds the server's answer to request `n` until released (the run is then in flight)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.arrived = threading.Event()
        self.go = threading.Event()

    def __call__(self, index: int) -> None:
        if index == self.n:
            self.arrived.set()
            self.go.wait(PATIENCE)


def test_a_prompt_streams_its_reply_rendered_as_markdown_and_the_session_records_both(tmp_path: Path) -> None:
    reply = "# Plan\n\nFirst **read**, then write.\n"

    async def scenario() -> None:
        with ScriptedServer([{"text": reply, "pieces": 5}]) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 24)) as pilot:
                await ready(pilot)
                await send(pilot, "make a plan")
                await settled(pilot)
                from bastion.agent.client._view import Reply  # private: the widget the reply is drawn in

                shown = app.conversation.query(Reply).last()
                assert (
                    shown.text == reply and len(shown.received) > 2
                )  # it came in pieces, drawn as they came
                assert shown.query(MarkdownH1)  # the heading is drawn as one
        assert _messages(server.requests[0])[-1] == {"role": "user", "content": "make a plan"}

    asyncio.run(scenario())
    said = [e["message"] for e in _session_events(tmp_path) if e["type"] == "message"]
    assert [m["role"] for m in said] == ["user", "assistant"] and said[1]["text"] == reply


@pytest.mark.parametrize(
    ("key", "typed", "runs", "told"),
    [
        ("y", "", True, "[exit 0]"),
        ("a", "only this once", True, "(the user allowed this call and said: only this once)"),
        ("n", "not in this repository", False, "refused by the user: not in this repository"),
    ],
    ids=["allow", "allow-with-a-note", "refuse-with-a-reason"],
)
def test_a_question_is_answered_on_the_screen_and_the_model_is_told_the_note_or_the_reason(
    tmp_path: Path, key: str, typed: str, runs: bool, told: str
) -> None:
    async def scenario() -> None:
        with ScriptedServer([TOUCH, {"text": "ok"}]) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "make it")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                assert app.panel.asked is not None and app.panel.asked.question.who == "bash"
                await pilot.press(key)
                if key in ("a", "n"):
                    why = app.panel.query_one("#why", Input)
                    assert why.has_focus
                    why.value = typed
                    await pilot.press("enter")
                await settled(pilot)
                assert app.panel.asked is None
            tool = [m for m in _messages(server.requests[1]) if m["role"] == "tool"][-1]
            assert told in tool["content"]

    asyncio.run(scenario())
    assert (tmp_path / "work" / "made.txt").exists() is runs
    verdict = next(e for e in _session_events(tmp_path) if e["type"] == "verdict")
    assert (verdict["answered_by"], verdict["allowed"]) == ("person", runs)


def test_text_sent_while_a_run_goes_steers_it_before_its_next_model_call(tmp_path: Path) -> None:
    held = _Held(0)
    rounds = [{"text": "looking", "calls": [{"name": "ls", "arguments": {}}]}, {"text": "steered"}]

    async def scenario() -> None:
        with ScriptedServer(rounds, on_request=held) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 24)) as pilot:
                await ready(pilot)
                await send(pilot, "list the files")
                await until(pilot, held.arrived.is_set, "the first request")
                await send(pilot, "and say which are docs")
                assert app.typed.waiting() == (["and say which are docs"], [])  # shown as steering
                held.go.set()
                await settled(pilot)
                from bastion.agent.client._view import PromptLine  # private: how a prompt is drawn

                assert [p.has_class("steer") for p in app.conversation.query(PromptLine)] == [False, True]
            second = _messages(server.requests[1])
            assert second[-2]["role"] == "tool" and second[-1] == {
                "role": "user",
                "content": "and say which are docs",
            }
            assert len(server.requests) == 2  # one run: the steering went into it, not into a run of its own

    asyncio.run(scenario())
    users = [
        e["message"]["text"]
        for e in _session_events(tmp_path)
        if e["type"] == "message" and e["message"]["role"] == "user"
    ]
    assert users == ["list the files", "and say which are docs"]


def test_a_follow_up_queued_with_follow_runs_once_the_model_would_stop(tmp_path: Path) -> None:
    held = _Held(0)

    async def scenario() -> None:
        with ScriptedServer([{"text": "first"}, {"text": "second"}], on_request=held) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 24)) as pilot:
                await ready(pilot)
                await send(pilot, "one")
                await until(pilot, held.arrived.is_set, "the first request")
                await send(pilot, "/follow then two")
                assert app.typed.waiting() == ([], ["then two"])
                assert len(server.requests) == 1  # queued, not sent
                held.go.set()
                await until(pilot, lambda: len(server.requests) == 2, "the follow-up's request")
                await settled(pilot)
            assert _messages(server.requests[1])[-1] == {"role": "user", "content": "then two"}
            assert [m["role"] for m in _messages(server.requests[1])[1:]] == ["user", "assistant", "user"]

    asyncio.run(scenario())


def test_esc_stops_a_running_command_and_its_call_is_answered_as_interrupted(tmp_path: Path) -> None:
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": SLOW}}]}, {"text": "after"}]

    async def scenario() -> None:
        with ScriptedServer(rounds) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "wait")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                await pilot.press("y")
                pgid = await asyncio.to_thread(wait_for_pid, tmp_path / "work")
                await pilot.press("escape")
                await settled(pilot)
                assert app.built is not None
                results = [m for m in app.built.agent.messages if isinstance(m, ToolResult)]
                assert [r.content for r in results] == [INTERRUPTED]
                (row,) = app.conversation.rows.values()
                assert row.row.state == "interrupted"
                await until(pilot, lambda: gone(pgid), "the command's processes to be gone")
            assert len(server.requests) == 1  # the stopped run asked the model nothing more

    asyncio.run(scenario())
    assert not (tmp_path / "work" / "never").exists()


def test_ctrl_c_stops_a_run_while_the_model_answers_and_a_second_one_quits_at_once(tmp_path: Path) -> None:
    held = _Held(0)

    async def scenario() -> None:
        with ScriptedServer([{"text": "slow answer", "pieces": 3}], on_request=held) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 24)) as pilot:
                await ready(pilot)
                await send(pilot, "go")
                await until(pilot, held.arrived.is_set, "the request")
                await pilot.press("ctrl+c")
                assert app.runs.stopping and app.is_running
                await pilot.press("ctrl+c")
                await until(pilot, lambda: not app.is_running, "the client to quit")
                held.go.set()
            assert app.return_code == 0
        assert app.runs.thread is not None
        await asyncio.to_thread(app.runs.thread.join, PATIENCE)
        assert (
            app.built is not None and app.built.agent.messages[:1] == []
        )  # the prompt, unanswered, withdrawn

    asyncio.run(scenario())


def test_ctrl_c_clears_a_half_typed_prompt_and_quits_when_idle(tmp_path: Path) -> None:
    async def scenario() -> None:
        with ScriptedServer([]) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 24)) as pilot:
                await ready(pilot)
                app.prompt.text = "half typed"
                await pilot.press("ctrl+c")
                assert app.prompt.text == "" and app.is_running
                await pilot.press("ctrl+c")
                await until(pilot, lambda: not app.is_running, "the client to quit")
            assert not server.requests

    asyncio.run(scenario())


def test_a_sub_agent_s_question_is_asked_on_the_screen_while_the_run_goes(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "task", "arguments": {"kind": "general", "prompt": "make the file"}}]},
        {"calls": [{"name": "write", "arguments": {"path": "child.txt", "content": "hi\n"}}]},
        {"text": "the child wrote it"},
        {"text": "done"},
    ]

    async def scenario() -> None:
        with ScriptedServer(rounds) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(100, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "delegate")
                await until(pilot, lambda: app.panel.asked is not None, "the task's own question")
                await pilot.press("y")
                await until(pilot, lambda: app.panel.asked is not None, "the sub-agent's question")
                asked = app.panel.asked
                assert (
                    asked is not None
                    and asked.question.who.endswith("write")
                    and asked.question.who != "write"
                )
                assert app.running  # asked while the run goes
                await pilot.press("y")
                await settled(pilot)
                labels = [r.row.label for r in app.conversation.rows.values()]
                assert (
                    labels[0] == "" and all(labels[1:]) and len(labels) == 2
                )  # the child's call under the task
            assert len(server.requests) == 4

    asyncio.run(scenario())
    assert (tmp_path / "work" / "child.txt").read_text() == "hi\n"


def test_a_prompt_sent_before_the_session_is_made_waits_for_it(tmp_path: Path) -> None:
    made = threading.Event()

    def slow_build(*given: Any) -> Any:
        made.wait(PATIENCE)
        return build(*given)

    async def scenario() -> None:
        with ScriptedServer([{"text": "answered"}]) as server:
            app = client_for(tmp_path, server.url, made=slow_build)
            async with app.run_test(size=(80, 24)) as pilot:
                await send(pilot, "early")
                assert app.built is None and app.typed.waiting() == ([], ["early"])  # said to wait
                made.set()
                await until(pilot, lambda: len(server.requests) == 1, "the request")
                await settled(pilot)
            assert _messages(server.requests[0])[-1] == {"role": "user", "content": "early"}

    asyncio.run(scenario())


def test_nothing_reads_standard_input_while_the_client_holds_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class NoReading:
        def read(self, *args: object) -> str:
            raise AssertionError("standard input was read")

        readline = read

        def fileno(self) -> int:
            raise AssertionError("standard input was used")

    monkeypatch.setattr("sys.stdin", NoReading())

    async def scenario() -> None:
        with ScriptedServer([TOUCH, {"text": "ok"}]) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "make it")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                await pilot.press("y")
                await settled(pilot)

    asyncio.run(scenario())
    assert (tmp_path / "work" / "made.txt").exists()


def test_a_command_s_output_shows_over_the_input_and_a_line_it_cannot_run_is_given_back(
    tmp_path: Path,
) -> None:
    held = _Held(0)

    async def scenario() -> None:
        with ScriptedServer([{"text": "ok"}], on_request=held) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 24)) as pilot:
                await ready(pilot)
                said = app.query_one("#said", Static)
                await send(pilot, "/sesion")
                assert "did you mean /session?" in str(said.render()) and app.prompt.text == "/sesion"
                await send(pilot, "/session")
                await until(pilot, lambda: "session " in str(said.render()), "the command's output")
                assert app.prompt.text == ""
                await send(pilot, "go")
                await until(pilot, held.arrived.is_set, "the request")
                await send(pilot, "/model other")
                assert "waits for the run to end" in str(said.render()) and app.prompt.text == "/model other"
                app.prompt.text = ""
                await send(pilot, "/help")
                from bastion.agent.client._screens import HelpScreen  # private: the keys' screen

                assert isinstance(app.screen, HelpScreen)
                await pilot.press("escape")
                held.go.set()
                await settled(pilot)
            assert server.requests[0]["body"]["model"] == "gpt-5"

    asyncio.run(scenario())


def test_a_running_command_shows_its_last_line_on_its_row(tmp_path: Path) -> None:
    command = "echo step-one; echo step-two; while [ ! -e go ]; do sleep 0.05; done"
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ran"}]

    async def scenario() -> None:
        with ScriptedServer(rounds) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "build")
                await until(pilot, lambda: app.panel.asked is not None, "the question")
                await pilot.press("y")
                rows = app.conversation.rows
                await until(
                    pilot,
                    lambda: any(r.row.tail == "step-two" for r in rows.values()),
                    "the last line on its row",
                )
                (row,) = app.conversation.rows.values()
                assert row.row.state == "running" and "│ step-two" in str(row.render())
                (tmp_path / "work" / "go").touch()
                await settled(pilot)
                assert [row.row.state] == ["done"] and "2 lines printed" in str(row.render())
            assert len(server.requests) == 2

    asyncio.run(scenario())


def test_ctrl_o_opens_a_call_whole_and_ctrl_r_the_reasoning(tmp_path: Path) -> None:
    rounds = [
        {
            "thinking": "first I list\nthen I answer",
            "calls": [{"name": "bash", "arguments": {"command": "ls"}}],
        },
        {"text": "listed"},
    ]
    (tmp_path / "work").mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / "work" / name).write_text("x\n")

    async def scenario() -> None:
        with ScriptedServer(rounds) as server:
            app = client_for(tmp_path, server.url, "--think")
            async with app.run_test(size=(80, 30)) as pilot:
                await ready(pilot)
                await send(pilot, "list")
                await settled(pilot)
                from bastion.agent.client._view import Thinking  # private: how the reasoning is drawn

                thinking = app.conversation.query(Thinking).last()
                assert "Ctrl-R shows it" in str(thinking.render())
                await pilot.press("ctrl+r")
                assert "first I list" in str(thinking.render())
                (row,) = app.conversation.rows.values()
                assert "3 lines printed" in str(row.render()) and "b.txt" not in str(row.render())
                await pilot.press("ctrl+o")  # no call selected: every call
                assert "b.txt" in str(row.render())
                await pilot.press("ctrl+p", "ctrl+o")  # the selected call: closed again
                assert "b.txt" not in str(row.render())

    asyncio.run(scenario())


def test_a_retry_is_said_in_the_repl_s_words_and_the_reply_comes_after_it(tmp_path: Path) -> None:
    rounds: list[dict[str, object]] = [{"status": 429, "retry_after": "0"}, {"text": "after the retry"}]

    async def scenario() -> None:
        with ScriptedServer(rounds) as server:
            app = client_for(tmp_path, server.url)
            async with app.run_test(size=(80, 24)) as pilot:
                await ready(pilot)
                await send(pilot, "go")
                await settled(pilot)
                from bastion.agent.client._view import NoteLine, Reply  # private: how they are drawn

                notes = [str(n.render()) for n in app.conversation.query(NoteLine)]
                assert any(n.startswith("rate limited, retrying in") for n in notes), notes
                assert app.conversation.query(Reply).last().text == "after the retry"
                assert any(line.startswith("rate limited") for line in app.held.lines)

    asyncio.run(scenario())
