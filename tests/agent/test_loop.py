"""The turn loop, with a scripted model, a fake gate and fake tools."""

from __future__ import annotations

import threading
from collections.abc import Mapping

import pytest

from bastion.agent.runtime import (
    CUT_SHORT,
    INTERRUPTED,
    NOT_RUN,
    Agent,
    Answer,
    Assistant,
    Cancelled,
    Events,
    ModelRequest,
    Reply,
    ToolResult,
    User,
)
from bastion.policy import Decision, Verdict

from ..waits import PATIENCE
from .agent_fixtures import FakeGate, FakeTools, ScriptedModel, call


def _never(call: object, args: object, verdict: object) -> Answer:
    raise AssertionError("nothing should ask")


def _agent(model: ScriptedModel, gate: FakeGate, tools: FakeTools, answer: object = _never) -> Agent:
    return Agent(model, gate, tools, answer, "system")  # type: ignore[arg-type]


def _results(agent: Agent) -> list[ToolResult]:
    return [m for m in agent.messages if isinstance(m, ToolResult)]


def test_an_allowed_call_runs_and_its_result_goes_back_to_the_model() -> None:
    model = ScriptedModel([Assistant("", (call("read", {"path": "a"}),)), Assistant("done")])
    tools = FakeTools()
    result = _agent(model, FakeGate(), tools).run("look")
    assert result.text == "done" and result.denials == []
    assert tools.ran == [("read", {"path": "a"})]
    assert isinstance(model.seen[1][-1], ToolResult) and model.seen[1][-1].content == "read ran"


def test_a_denied_call_never_runs_and_the_model_is_told_why() -> None:
    model = ScriptedModel([Assistant("", (call("bash", {"command": "rm -rf /"}),)), Assistant("cannot")])
    tools = FakeTools()
    result = _agent(model, FakeGate({"bash": Decision.DENY}), tools).run("go")
    assert tools.ran == []
    assert "denied by policy: bash is deny" in model.seen[1][-1].content  # type: ignore[union-attr]
    (denial,) = result.denials
    assert (denial.tool, denial.verdict, denial.decided_by) == ("bash", "deny", "policy")
    assert denial.arguments == {"command": "rm -rf /"} and denial.reason == "bash is deny"


def test_a_run_that_goes_on_after_a_denial_completes_with_the_denial_listed() -> None:
    model = ScriptedModel(
        [
            Assistant("", (call("bash", {"command": "x"}),)),
            Assistant("", (call("read", {"path": "a"}),)),
            Assistant("done"),
        ]
    )
    result = _agent(model, FakeGate({"bash": Decision.DENY}), FakeTools()).run("go")
    assert result.text == "done" and [d.tool for d in result.denials] == ["bash"]


def test_an_ask_answered_yes_runs_with_the_note_and_no_refuses_with_the_reason() -> None:
    answers = iter([Answer(True, "keep it short"), Answer(False, "not that file")])
    model = ScriptedModel(
        [
            Assistant("", (call("write", {"path": "a"}, "w1"), call("write", {"path": "b"}, "w2"))),
            Assistant("ok"),
        ]
    )
    tools = FakeTools()
    agent = _agent(model, FakeGate({"write": Decision.ASK}), tools, lambda c, a, v: next(answers))
    denials = agent.run("go").denials
    assert [(d.call_id, d.verdict, d.reason, d.decided_by) for d in denials] == [
        ("w2", "ask", "not that file", "person")
    ]
    assert tools.ran == [("write", {"path": "a"})]
    first, second = _results(agent)
    assert "keep it short" in first.content and "write ran" in first.content
    assert second.is_error and "not that file" in second.content


def test_an_error_while_deciding_asks_and_never_runs_unasked() -> None:
    asked: list[Verdict] = []

    def answer(c: object, a: object, verdict: Verdict) -> Answer:
        asked.append(verdict)
        return Answer(False)

    model = ScriptedModel([Assistant("", (call("read", {"path": "a"}),)), Assistant("ok")])
    tools = FakeTools()
    _agent(model, FakeGate(raises=True), tools, answer).run("go")
    assert tools.ran == [] and asked[0].decision is Decision.ASK and "engine broke" in asked[0].reason


def test_an_answerer_that_fails_refuses() -> None:
    def answer(c: object, a: object, v: object) -> Answer:
        raise OSError("terminal gone")

    model = ScriptedModel([Assistant("", (call("bash", {"command": "x"}),)), Assistant("ok")])
    tools = FakeTools()
    agent = _agent(model, FakeGate({"bash": Decision.ASK}), tools, answer)
    agent.run("go")
    assert tools.ran == [] and "terminal gone" in _results(agent)[0].content


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]"])
def test_arguments_that_are_not_a_json_object_are_an_error_result_and_the_run_goes_on(raw: str) -> None:
    model = ScriptedModel(
        [
            Assistant("", (call("read", raw),)),
            Assistant("", (call("read", {"path": "a"}),)),
            Assistant("done"),
        ]
    )
    tools = FakeTools()
    agent = _agent(model, FakeGate(), tools)
    assert agent.run("go").text == "done"
    first = _results(agent)[0]
    assert first.is_error and "arguments of this read call are not" in first.content
    assert tools.ran == [("read", {"path": "a"})]


def test_an_unknown_tool_is_an_error_result() -> None:
    model = ScriptedModel([Assistant("", (call("teleport", {}),)), Assistant("done")])
    agent = _agent(model, FakeGate(), FakeTools())
    agent.run("go")
    assert "no tool named 'teleport'" in _results(agent)[0].content


def test_cancelling_mid_tool_pairs_every_call_with_an_interrupted_or_not_run_result() -> None:
    release = threading.Event()
    tools = FakeTools(block=release)
    model = ScriptedModel(
        [Assistant("", (call("bash", {"command": "sleep"}, "b1"), call("write", {}, "w1")))]
    )
    agent = _agent(model, FakeGate(), tools)

    def cancel_once_started() -> None:
        tools.started.wait(PATIENCE)
        agent.cancel.set()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    with pytest.raises(Cancelled):
        agent.run("go")
    release.set()
    results = _results(agent)
    # The call that ran may have partly run; the one after it never started, and says so.
    assert [(r.call_id, r.content) for r in results] == [("b1", INTERRUPTED), ("w1", NOT_RUN)]


def test_ctrl_c_while_the_model_answers_keeps_the_conversation_valid() -> None:
    model = ScriptedModel([KeyboardInterrupt()])
    agent = _agent(model, FakeGate(), FakeTools())
    with pytest.raises(Cancelled):
        agent.run("go")
    assert agent.messages == [User("go")]


def test_read_only_calls_of_one_turn_run_at_once() -> None:
    both = threading.Barrier(2, timeout=PATIENCE)

    class Tools(FakeTools):
        def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
            both.wait()  # deadlocks (and times out) unless the two reads run concurrently
            return "ok", False

    model = ScriptedModel(
        [Assistant("", (call("read", {"path": "a"}, "r1"), call("ls", {}, "r2"))), Assistant("done")]
    )
    assert _agent(model, FakeGate(), Tools()).run("go").text == "done"


def test_events_see_every_message_and_verdict() -> None:
    seen: list[str] = []

    class Record(Events):
        def message(self, message: object, usage: object = None) -> None:
            seen.append(type(message).__name__)

        def verdict(self, call: object, verdict: Verdict, answer: object) -> None:
            seen.append(f"verdict:{verdict.decision}")

    model = ScriptedModel([Assistant("", (call("read", {"path": "a"}),)), Assistant("done")])
    Agent(model, FakeGate(), FakeTools(), _never, "s", Record()).run("go")
    assert seen == ["User", "Assistant", "verdict:allow", "ToolResult", "Assistant"]


def test_ctrl_c_mid_reply_keeps_the_text_received_marked_as_cut_short() -> None:
    class Cut(ScriptedModel):
        def stream(self, request: ModelRequest) -> Reply:
            request.on_text("The plan is ")
            request.on_text("to read it")
            raise KeyboardInterrupt

    agent = _agent(Cut([]), FakeGate(), FakeTools())
    with pytest.raises(Cancelled):
        agent.run("go")
    assert agent.messages == [User("go"), Assistant(f"The plan is to read it\n{CUT_SHORT}")]
    assert not agent.withdraw_unanswered()  # the prompt was answered, in part: it stays
