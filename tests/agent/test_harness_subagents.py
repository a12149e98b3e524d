"""The harness and sub-agents together (scripted models, fake gate and tools): `task` offered through
the catalog as a source of its own (the read-only and native-only catalogs leave it out), a child's
turn on its parent turn's snapshot with the role "subagent" (its catalog, its model_selector told
its kind), and the approval slot over a child's calls, which it may deny but never allow when the
policy asked. Through the CLI: test_harness_cli.py."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from types import MappingProxyType

import pytest

from bastion.agent.runtime import Agent, Assistant, ModelOptions, ToolResult, ToolSpec
from bastion.agent.runtime.harness import (
    ApprovalInput,
    CatalogInput,
    Harness,
    HarnessConfig,
    ModelInput,
    Registrar,
    Review,
)
from bastion.agent.subagents import Console, Subagents, TaskTools
from bastion.policy import Decision

from ..waits import PATIENCE
from .agent_fixtures import FakeGate, FakeTools, ScriptedModel, call
from .test_harness import Asked, Component, Seen, harness
from .test_subagents import Lines


class Recorded(ScriptedModel):
    """A scripted model that records, per request, the model asked for and the tools offered."""

    def __init__(
        self, replies: Sequence[Assistant | Callable[[], Assistant]], model: str = "scripted"
    ) -> None:
        super().__init__(replies)
        self.options = ModelOptions("scripted", model)

    @property
    def asked(self) -> list[tuple[str, list[str]]]:
        return [(r.options.model, [t.name for t in r.tools]) for r in self.requests]

    @property
    def systems(self) -> list[str]:
        return [r.system for r in self.requests]


def family(
    parent: Recorded,
    child: Recorded,
    built: Harness,
    gate: FakeGate | None = None,
    answer: Asked | None = None,
    lines: Lines | None = None,
) -> tuple[Agent, FakeTools]:
    """A parent agent whose task calls run `child`, its record lines in `lines`."""
    tools, gate, answer = FakeTools(), gate or FakeGate(), answer or Asked(False)
    subagents = Subagents(
        tools, gate, Console(lambda label: answer), lambda kind: child, lambda specs: "sys", lines or Lines()
    )
    agent = Agent(parent, gate, TaskTools(tools, subagents), answer, "sys", harness=built)
    subagents.attach(agent)
    return agent, tools


def _task(kind: str, call_id: str = "t1") -> Assistant:
    return Assistant("", (call("task", {"kind": kind, "prompt": "look"}, call_id),))


def test_task_is_offered_through_the_catalog_as_a_source_and_a_child_chooses_from_its_kinds_tools() -> None:
    given: list[tuple[str, dict[str, list[str]]]] = []

    def everything(g: CatalogInput) -> list[ToolSpec]:
        given.append((g.role, {name: [s.name for s in specs] for name, specs in g.sources.items()}))
        return [spec for specs in g.sources.values() for spec in specs]

    parent, child = Recorded([_task("explore"), Assistant("done")]), Recorded([Assistant("found")], "small")
    agent, _ = family(parent, child, harness(("use", Component("catalog", "everything", everything))))
    assert agent.run("go").text == "done"
    assert given == [
        ("main", {"builtin": ["read", "write", "bash", "ls"], "subagents": ["task"]}),
        ("subagent", {"builtin": ["read", "bash", "ls"]}),
    ]
    assert parent.asked[0][1] == ["read", "write", "bash", "ls", "task"]
    assert child.asked == [("small", ["read", "bash", "ls"])]


def _named(specs: Sequence[ToolSpec]) -> str:
    return "Tools: " + ", ".join(s.name for s in specs)


@pytest.mark.parametrize(
    ("catalog", "parents", "childs"),
    [("all", "read, write, bash, ls, task", "read, bash, ls"), ("read-only", "read, ls", None)],
)
def test_the_parents_and_a_childs_system_prompt_name_the_tools_their_turn_offers(
    catalog: str, parents: str, childs: str | None
) -> None:
    built = Harness(HarnessConfig(slots=MappingProxyType({"catalog": catalog}), timeout=30.0))
    parent, child = Recorded([_task("explore"), Assistant("done")]), Recorded([Assistant("found")])
    tools, gate, answer = FakeTools(), FakeGate(), Asked(False)
    subagents = Subagents(tools, gate, Console(lambda label: answer), lambda kind: child, _named, Lines())
    agent = Agent(parent, gate, TaskTools(tools, subagents), answer, _named, harness=built)
    subagents.attach(agent)
    agent.run("go")
    assert parent.systems[0] == "Tools: " + parents
    if childs is None:  # the catalog offers no task
        assert child.systems == []
    else:
        assert child.systems[0].startswith("Tools: " + childs + "\n\nYou are a sub-agent")


@pytest.mark.parametrize("catalog", ["read-only", "native-only"])
def test_a_read_only_or_native_only_catalog_offers_no_task_and_a_task_call_runs_no_child(
    catalog: str,
) -> None:
    built = Harness(HarnessConfig(slots=MappingProxyType({"catalog": catalog}), timeout=30.0))
    parent, child = Recorded([_task("explore"), Assistant("done")]), Recorded([Assistant("found")])
    agent, tools = family(parent, child, built)
    agent.run("go")
    assert "task" not in parent.asked[0][1]
    (result,) = [m for m in agent.messages if isinstance(m, ToolResult)]
    assert result.is_error and "there is no tool named 'task'" in result.content
    assert child.asked == [] and tools.ran == []


def test_a_child_runs_on_its_parents_snapshot_and_its_model_selector_is_told_its_role_and_kind() -> None:
    config = HarnessConfig(
        profiles=MappingProxyType({"plain": MappingProxyType({"model_selector": "configured"})}), timeout=30.0
    )
    built = Harness(config)
    registrar = Registrar("module tests", built.activate_profile)
    given: list[tuple[str, str, str, int]] = []

    def route(g: ModelInput) -> str:
        given.append((g.role, g.task_kind, g.configured, g.request))
        if g.role == "main" and g.request == 1:
            registrar.activate_profile("plain")  # mid-turn: for the next turn, children included
        return f"cheap-{g.configured}" if g.role == "subagent" else g.configured

    registrar.use("model_selector", Component("model_selector", "router", route))
    built.register(registrar.staged)
    parent = Recorded([_task("explore"), Assistant("done"), _task("general", "t2"), Assistant("again")])
    child = Recorded([Assistant("found"), Assistant("changed")], "small")
    agent, _ = family(parent, child, built)
    agent.run("go")
    assert given == [
        ("main", "", "scripted", 1),
        ("subagent", "explore", "small", 1),
        ("main", "", "scripted", 2),
    ]
    assert child.asked[0][0] == "cheap-small" and child.options.model == "small"
    agent.run("next")  # the profile now serves the parent's turn and its child's: the configured model
    assert len(given) == 3 and child.asked[1][0] == "small"


def test_an_approval_component_denies_a_childs_call_and_cannot_allow_what_the_policy_asked() -> None:
    reviewed: list[str] = []

    def no_writes(g: ApprovalInput) -> Review:
        reviewed.append(g.tool)
        if g.tool == "write":
            return Review(Decision.DENY, "no writes by sub-agents")
        return Review(Decision.ALLOW, "tries to allow everything else")

    child = Recorded(
        [
            Assistant("", (call("write", {"path": "a.txt", "content": "x"}, "w1"),)),
            Assistant("", (call("bash", {"command": "make"}, "b1"),)),
            Assistant("could do neither"),
        ]
    )
    answer = Asked(False)
    agent, tools = family(
        Recorded([_task("general"), Assistant("done")]),
        child,
        harness(("use", Component("approval", "no-writes", no_writes))),
        FakeGate({"bash": Decision.ASK}),
        answer,
    )
    result = agent.run("go")
    assert reviewed == ["task", "write", "bash"]
    assert tools.ran == []
    assert [(name, verdict.decision) for name, verdict in answer.asked] == [("bash", Decision.ASK)]
    assert [(d.tool, d.decided_by) for d in result.denials] == [("write", "harness"), ("bash", "person")]
    write_result = next(m for m in child.seen[1] if isinstance(m, ToolResult))
    assert write_result.content.startswith("denied by harness: no writes by sub-agents")


def test_parallel_children_sharing_the_sessions_model_each_get_the_model_their_selector_chose() -> None:
    # Both children talk through the one model object and their first replies wait until both are
    # streaming: had a selector's choice been set on the model rather than carried in its request,
    # the second would take the first one's choice as its configured model, and the model would be
    # left with a child's.
    both = threading.Barrier(2, timeout=PATIENCE)

    def found() -> Assistant:
        both.wait()
        return Assistant("found")

    def route(g: ModelInput) -> str:
        return f"cheap-{g.configured}" if g.role == "subagent" else g.configured

    session = Recorded(
        [Assistant("", (*_task("explore").calls, *_task("explore", "t2").calls)), Assistant("done")]
    )
    shared = Recorded([found, found])
    agent, _ = family(session, shared, harness(("use", Component("model_selector", "router", route))))
    assert agent.run("go").text == "done"
    assert sorted(model for model, _ in shared.asked) == ["cheap-scripted", "cheap-scripted"]
    assert (shared.options.model, session.options.model) == ("scripted", "scripted")


def test_a_component_failing_in_a_childs_turn_is_recorded_as_the_childs_and_the_default_serves_it() -> None:
    def only_main(g: ModelInput) -> str:
        if g.role == "subagent":
            raise RuntimeError("no model for sub-agents")
        return g.configured

    lines, seen = Lines(), Seen()
    parent, child = Recorded([_task("explore"), Assistant("done")]), Recorded([Assistant("found")], "small")
    agent, _ = family(
        parent, child, harness(("use", Component("model_selector", "picky", only_main))), lines=lines
    )
    agent.events = seen
    assert agent.run("go").text == "done"
    assert child.asked[0][0] == "small"  # the built-in default: the model the child was built with
    (failed,) = [e for e in lines.lines if e["event"] == "slot_failed"]
    assert (failed["task"], failed["slot"], failed["component"], failed["instead"]) == (
        1,
        "model_selector",
        "picky",
        "configured",
    )
    assert seen.failures == []  # the parent's own turn had none
