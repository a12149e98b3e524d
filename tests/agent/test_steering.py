"""Steering: text a person types while a run goes reaches the model before its next request (after
the results of the calls it was waiting on), once, as a user message the record keeps; and a sub-agent
or a front without live input takes none."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from bastion.agent.front import Typed
from bastion.agent.runtime import Agent, Answer, Assistant, Events, Message, ToolResult, Usage, User

from .agent_fixtures import FakeGate, FakeTools, ScriptedModel, call


class _Kept(Events):
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def message(self, message: Message, usage: Usage | None = None) -> None:
        self.messages.append(message)


def _agent(model: ScriptedModel, tools: FakeTools, events: Events | None = None) -> Agent:
    return Agent(model, FakeGate(), tools, lambda c, a, v: Answer(True), "system", events)


def test_text_typed_while_a_call_runs_lands_after_its_result_before_the_next_request() -> None:
    block = threading.Event()
    tools = FakeTools(block=block)
    model = ScriptedModel([Assistant("", (call("read", {"path": "a"}),)), Assistant("steered")])
    kept = _Kept()
    agent = _agent(model, tools, kept)
    typed = Typed()
    agent.steering = typed.take_steering
    done: list[str] = []
    runner = threading.Thread(target=lambda: done.append(agent.run("look").text))
    runner.start()
    assert tools.started.wait(60), "the call never started"
    typed.steer("also check b")
    block.set()
    runner.join(60)
    assert done == ["steered"]
    second = model.seen[1]
    assert isinstance(second[-2], ToolResult) and second[-1] == User("also check b")
    assert User("also check b") in kept.messages  # the session records what the events carry
    assert typed.waiting() == ([], [])


def test_steering_is_given_once_and_never_again_on_later_requests() -> None:
    model = ScriptedModel(
        [Assistant("", (call("read", {"path": "a"}),)), Assistant("", (call("ls", {}),)), Assistant("ok")]
    )
    given = [["first"], [], []]

    def steering() -> Sequence[str]:
        return given.pop(0)

    agent = _agent(model, FakeTools())
    agent.steering = steering
    agent.run("go")
    users = [[m.text for m in seen if isinstance(m, User)] for seen in model.seen]
    assert users == [["go", "first"], ["go", "first"], ["go", "first"]]
    assert [m for m in agent.messages if isinstance(m, User)] == [User("go"), User("first")]


def test_an_agent_without_live_input_takes_no_steering() -> None:
    model = ScriptedModel([Assistant("", (call("read", {"path": "a"}),)), Assistant("ok")])
    agent = _agent(model, FakeTools())
    agent.run("go")
    assert [m for m in agent.messages if isinstance(m, User)] == [User("go")]


def test_steering_a_run_never_took_is_sent_next_ahead_of_the_follow_ups() -> None:
    typed = Typed()
    typed.follow("then this")
    typed.steer("one")
    typed.steer("two")
    assert typed.waiting() == (["one", "two"], ["then this"])
    assert typed.next_prompt() == "one\n\ntwo"
    assert typed.next_prompt() == "then this"
    assert typed.next_prompt() is None


def test_what_waits_comes_back_whole_after_a_stop() -> None:
    typed = Typed()
    typed.steer("steer")
    typed.follow("follow")
    assert typed.take_all() == ["steer", "follow"]
    assert typed.waiting() == ([], [])
