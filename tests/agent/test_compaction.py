"""Compaction: a conversation over the threshold is summarised before the next request and goes
on; a summary that does not shrink it is refused and the old one kept; the record keeps every
message and --resume rebuilds the compacted conversation; /context says what takes the space."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bastion.agent.providers import DEFAULT_WINDOW, Window
from bastion.agent.runtime import (
    ACK,
    COMPACT_SYSTEM,
    GO_ON,
    SUMMARY_HEAD,
    WORK_HEAD,
    Agent,
    Answer,
    Assistant,
    Compactor,
    Message,
    NotShrunk,
    Usage,
    User,
)

from .agent_fixtures import FakeGate, FakeTools, ScriptedModel, call, run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _session_events, _workspace


def _never(call: object, args: object, verdict: object) -> Answer:
    return Answer(False)


def _window(tokens: int | None) -> Callable[[str], Window]:
    """A model's window as the server says it (None: not said, bastion's default)."""
    return lambda model: Window(tokens, "server") if tokens else Window(DEFAULT_WINDOW, "default")


def _compactor(window: int | None, compact_at: int | None, said: list[str]) -> Compactor:
    records: list[tuple[str, int, str, int]] = []
    return Compactor(_window(window), compact_at, lambda *r: records.append(r), said.append)


def _agent(replies: list[Assistant], compactor: Compactor) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(replies)
    history: list[Message] = [User("x" * 4000), Assistant("y" * 4000)]
    return Agent(model, FakeGate(), FakeTools(), _never, "sys", messages=history, compaction=compactor), model


def test_a_conversation_at_three_quarters_of_the_window_is_compacted_and_goes_on() -> None:
    said: list[str] = []
    agent, model = _agent(
        [Assistant("the task was x; nothing left"), Assistant("answer")], _compactor(2000, None, said)
    )
    assert agent.run("next").text == "answer"
    first = model.seen[0][0]
    assert isinstance(first, User) and model.seen[0] == [User(first.text)] and "x" * 100 in first.text
    assert model.seen[1][:2] == [User(SUMMARY_HEAD + "the task was x; nothing left"), Assistant(ACK)]
    assert model.seen[1][2] == User("next")
    assert said and said[0].startswith("compacted:")


def test_below_the_threshold_nothing_is_compacted() -> None:
    agent, model = _agent([Assistant("answer")], _compactor(1_000_000, None, []))
    agent.run("next")
    assert len(model.seen) == 1 and len(model.seen[0]) == 3


def test_compact_at_applies_when_the_window_is_not_known() -> None:
    agent, model = _agent([Assistant("short"), Assistant("answer")], _compactor(None, 100, []))
    agent.run("next")
    assert model.seen[1][0] == User(SUMMARY_HEAD + "short")


def test_a_summary_that_does_not_shrink_the_conversation_is_refused_and_the_old_kept() -> None:
    said: list[str] = []
    compactor = _compactor(None, None, said)
    agent, _ = _agent([Assistant("z" * 9000)], compactor)
    before = list(agent.messages)
    with pytest.raises(NotShrunk, match="does not shrink"):
        compactor.compact(agent, len(agent.messages), "the API")
    assert agent.messages == before


def test_an_automatic_compaction_refused_is_said_and_the_turn_goes_on_uncompacted() -> None:
    said: list[str] = []
    agent, model = _agent([Assistant("z" * 9000), Assistant("answer")], _compactor(2000, None, said))
    assert agent.run("next").text == "answer"
    assert len(model.seen[1]) == 3 and said[0].startswith("compaction refused")


def test_a_refused_compaction_is_tried_again_in_the_same_prompt_once_its_work_has_grown() -> None:
    # compact_at 400 tokens: the work may grow by 100 (a quarter) before a refused one is tried again.
    said: list[str] = []
    model = ScriptedModel(
        [
            Assistant("a" * 1800, (call("read", {"n": 1}),)),  # over the threshold: compaction tried
            Assistant("z" * 4000),  # the summary does not shrink the work: refused
            Assistant("b" * 200, (call("read", {"n": 2}),)),  # grown by 50 tokens: not tried again
            Assistant("c" * 800, (call("read", {"n": 3}),)),  # by 250 since: tried again
            Assistant("the work so far, summarised"),
            Assistant("done"),
        ]
    )
    compactor = _compactor(None, 400, said)
    agent = Agent(model, FakeGate(), FakeTools(), _never, "sys", compaction=compactor)
    assert agent.run("a long task").text == "done"
    assert [s.split(":")[0] for s in said] == ["compaction refused", "compacted"]
    assert model.seen[-1][1] == Assistant(WORK_HEAD + "the work so far, summarised")


def test_the_summariser_is_asked_to_keep_the_task_decisions_files_and_what_is_left() -> None:
    for kept in ("task", "decisions", "files touched", "left to do"):
        assert kept in COMPACT_SYSTEM


def _config(tmp_path: Path, compact_at: int) -> None:
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"compact_at = {compact_at}\n")


def test_a_long_session_is_compacted_in_p_mode_recorded_whole_and_resumed_compacted(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    env = _env(tmp_path)
    _config(tmp_path, 3000)
    rounds = [
        {"text": "a long answer " * 1000},
        {"text": "SUMMARY: task long; nothing left"},
        {"text": "goes on"},
        {"text": "and on"},
    ]
    with ScriptedServer(rounds) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        assert run_main(["-p", "a long question " * 1000, *base], cwd=str(work), env=env)[0] == 0
        session_id = _session_events(tmp_path)[0]["id"]
        code, out, err = run_main(["-p", "next", "--resume", session_id, *base], cwd=str(work), env=env)
        assert code == 0, err
        assert out.strip() == "goes on" and "[compacted:" in err
        code, out, err = run_main(["-p", "third", "--resume", session_id, *base], cwd=str(work), env=env)
        assert code == 0, err
    asked = server.requests[1]["body"]["messages"]
    assert (
        asked[0] == {"role": "system", "content": COMPACT_SYSTEM} and "a long question" in asked[1]["content"]
    )
    after = server.requests[2]["body"]["messages"]
    assert [m["role"] for m in after] == ["system", "user", "assistant", "user"]
    assert "SUMMARY: task long" in after[1]["content"] and after[3]["content"] == "next"
    resumed = server.requests[3]["body"]["messages"]
    assert [m.get("content") for m in resumed[1:4]] == [after[1]["content"], ACK, "next"]
    events = _session_events(tmp_path)
    assert any(e["type"] == "message" and "a long question" in json.dumps(e) for e in events)
    assert [e["replaced"] for e in events if e["type"] == "compaction"] == [2]


def test_context_reports_the_parts_the_window_and_the_threshold() -> None:
    agent, _ = _agent([], _compactor(8000, None, []))
    space = agent.compaction.space(agent)  # type: ignore[union-attr]
    assert (space.window, space.threshold) == (Window(8000, "server"), 6000)
    assert space.turns == 2000 and space.system == 1 and space.used == space.system + space.tools + 2000


def test_a_cleared_conversation_is_not_compacted_for_what_the_old_one_used() -> None:
    said: list[str] = []
    compactor = _compactor(2000, None, said)
    agent, model = _agent([Assistant("answer")], compactor)
    compactor.replied(Usage(1900, 50))
    agent.clear()
    assert agent.run("new start").text == "answer"
    assert model.seen == [[User("new start")]]
    assert said == [] and compactor.space(agent).used < 100  # no compaction tried, nor refused


def test_a_long_sub_agent_task_is_compacted_within_its_prompt_recorded_and_finishes(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    (work / "notes.txt").write_text("the answer is 42\n" + "filler line of the notes\n" * 800)
    env = _env(tmp_path)
    _config(tmp_path, 3000)
    rounds = [
        {"calls": [{"name": "task", "id": "t1", "arguments": {"prompt": "what do the notes say?"}}]},
        {"calls": [{"name": "read", "id": "c1", "arguments": {"path": "notes.txt"}}]},
        {"text": "SUMMARY: read notes.txt, it says 42"},
        {"text": "they say 42"},
        {"text": "42"},
    ]
    with ScriptedServer(rounds) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = run_main(["-p", "ask a sub-agent", *base], cwd=str(work), env=env)
    assert code == 0, err
    assert out.strip() == "42" and "[task 1: explore: compacted:" in err
    summarising = server.requests[2]["body"]["messages"]
    assert summarising[0] == {"role": "system", "content": COMPACT_SYSTEM}
    assert (
        "what do the notes say?" in summarising[1]["content"] and "filler line" in summarising[1]["content"]
    )
    # The child's task prompt is kept; its read and the file's text are replaced by the summary.
    after = server.requests[3]["body"]["messages"]
    assert [(m["role"], m.get("content")) for m in after[1:]] == [
        ("user", "what do the notes say?"),
        ("assistant", WORK_HEAD + "SUMMARY: read notes.txt, it says 42"),
        ("user", GO_ON),
    ]
    # The parent's conversation holds the child's answer, not its work.
    parent = server.requests[4]["body"]["messages"]
    assert parent[-1]["content"] == "they say 42" and "filler line" not in json.dumps(parent)
    lines = [e for e in _session_events(tmp_path) if e["type"] == "task"]
    (compaction,) = [e for e in lines if e["event"] == "compaction"]
    assert (compaction["task"], compaction["replaced"]) == (1, 2)
    assert compaction["summary"] == "SUMMARY: read notes.txt, it says 42"
    (end,) = [e for e in lines if e["event"] == "end"]
    assert (end["status"], end["replies"]) == ("completed", 2)
    assert not any(e["type"] == "compaction" for e in _session_events(tmp_path))
