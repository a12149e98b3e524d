"""The harness's slots in the turn loop (scripted model, fake gate and tools): what a component can
change, what the kernel keeps whatever it answers (an approval never loosens the policy), and how a
failed component is replaced by the default for the rest of the turn."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import pytest

from bastion.agent.providers import DEFAULT_WINDOW, Window
from bastion.agent.runtime import (
    NOT_RUN,
    SUMMARY_HEAD,
    Agent,
    Answer,
    Assistant,
    Compactor,
    Events,
    Failure,
    Message,
    ModelError,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    User,
)
from bastion.agent.runtime.harness import (
    INTERFACES,
    ApprovalInput,
    CatalogInput,
    Harness,
    HarnessConfig,
    ModelInput,
    Registrar,
    Review,
    SlotFailure,
    Steps,
    SummarizerInput,
    TriggerInput,
    failure_words,
)
from bastion.policy import Decision, Origin, Source, Verdict

from ..waits import PATIENCE
from .agent_fixtures import FakeGate, FakeTools, ScriptedModel, call


@dataclass
class Component:
    """A component for any slot: `answer` is its run."""

    slot: str
    id: str
    answer: Callable[..., Any]
    interface: str = ""

    def __post_init__(self) -> None:
        self.interface = self.interface or INTERFACES[self.slot]

    def run(self, given: Any, *inner: Any) -> Any:
        return self.answer(given, *inner)


@dataclass
class Seen(Events):
    failures: list[SlotFailure] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)

    def slot_failed(self, failure: SlotFailure) -> None:
        self.failures.append(failure)

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        self.verdicts.append(verdict)


def harness(*components: tuple[str, Component], config: HarnessConfig | None = None) -> Harness:
    """A harness with `components` registered as a module's register() would (how, component)."""
    built = Harness(config or HarnessConfig(timeout=30.0))
    registrar = Registrar("module tests", built.activate_profile)
    for how, component in components:
        getattr(registrar, how)(component.slot, component)
    built.register(registrar.staged)
    return built


class Asked:
    """An answerer that records each question and answers `allow`."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow
        self.asked: list[tuple[str, Verdict]] = []

    def __call__(self, call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> Answer:
        self.asked.append((call.name, verdict))
        return Answer(self.allow, by="person")


def agent(
    replies: Sequence[Assistant],
    built: Harness,
    gate: FakeGate | None = None,
    answer: Asked | None = None,
    tools: FakeTools | None = None,
) -> tuple[Agent, ScriptedModel, FakeTools, Seen]:
    model, tools, seen = ScriptedModel(replies), tools or FakeTools(), Seen()
    made = Agent(model, gate or FakeGate(), tools, answer or Asked(False), "sys", seen, harness=built)
    return made, model, tools, seen


WRITE = call("write", {"path": "a.txt", "content": "x"}, "w1")


# approval


def test_an_approval_component_denies_a_call_the_policy_allowed_and_it_never_runs() -> None:
    def deny_bash(given: ApprovalInput) -> Review:
        return Review(Decision.DENY, "no shell today") if given.tool == "bash" else Review(Decision.ALLOW)

    made, model, tools, seen = agent(
        [Assistant("", (call("bash", {"command": "ls"}, "b1"), WRITE)), Assistant("ok")],
        harness(("use", Component("approval", "no-bash", deny_bash))),
    )
    result = made.run("go")
    assert tools.ran == [("write", {"path": "a.txt", "content": "x"})]
    (denial,) = result.denials
    assert (denial.tool, denial.decided_by, denial.reason) == ("bash", "harness", "no shell today")
    assert denial.source == "harness:no-bash"
    told = next(m for m in model.seen[1] if isinstance(m, ToolResult) and m.call_id == "b1")
    assert told.content.startswith("denied by harness: no shell today")


def test_an_approval_component_escalates_an_allowed_call_to_a_question() -> None:
    asked = Asked(False)
    made, _, tools, _ = agent(
        [Assistant("", (WRITE,)), Assistant("ok")],
        harness(("use", Component("approval", "careful", lambda g: Review(Decision.ASK, "check it")))),
        answer=asked,
    )
    result = made.run("go")
    assert tools.ran == [] and [(n, v.decision, v.reason) for n, v in asked.asked] == [
        ("write", Decision.ASK, "check it")
    ]
    assert result.denials[0].decided_by == "person"


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(lambda g: Review(Decision.ALLOW, "I approve"), id="a-review-of-allow"),
        pytest.param(lambda g: Verdict(Decision.ALLOW, "allowed by me"), id="a-verdict-of-allow"),
        pytest.param(lambda g: Review("allow", "a word"), id="a-word-for-allow"),  # type: ignore[arg-type]
        pytest.param(lambda g: g.arguments.update(path="b.txt"), id="changing-the-arguments"),
    ],
)
def test_an_approval_component_cannot_allow_what_the_policy_asked(answer: Callable[..., Any]) -> None:
    asked = Asked(False)
    made, _, tools, seen = agent(
        [Assistant("", (WRITE,)), Assistant("ok")],
        harness(("use", Component("approval", "sneaky", answer))),
        FakeGate({"write": Decision.ASK}),
        asked,
    )
    made.run("go")
    assert [(n, v.decision) for n, v in asked.asked] == [("write", Decision.ASK)]
    assert tools.ran == []  # the person said no; the component's "yes" counted for nothing


def test_an_approval_component_cannot_clear_a_denial_and_is_not_even_asked() -> None:
    reviewed: list[str] = []

    def allow(given: ApprovalInput) -> Review:
        reviewed.append(given.tool)
        return Review(Decision.ALLOW)

    made, _, tools, seen = agent(
        [Assistant("", (WRITE,)), Assistant("ok")],
        harness(("use", Component("approval", "lenient", allow))),
        FakeGate({"write": Decision.DENY}),
    )
    assert made.run("go").denials[0].decided_by == "policy"
    assert tools.ran == [] and reviewed == []


def test_the_built_in_ask_writes_asks_before_a_write_the_policy_allowed_and_lets_reads_run() -> None:
    asked = Asked(True)
    config = HarnessConfig(slots=MappingProxyType({"approval": "ask-writes"}))
    made, _, tools, _ = agent(
        [Assistant("", (call("read", {"path": "a"}), WRITE)), Assistant("ok")], Harness(config), answer=asked
    )
    made.run("go")
    assert [(n, v.source) for n, v in asked.asked] == [("write", Source(Origin.HARNESS, "ask-writes"))]
    assert [name for name, _ in tools.ran] == ["read", "write"]


def test_the_arguments_an_approval_component_sees_are_a_read_only_copy() -> None:
    got: list[Mapping[str, object]] = []

    def keep(given: ApprovalInput) -> Review:
        got.append(given.arguments)
        return Review(Decision.ALLOW)

    made, _, tools, _ = agent(
        [Assistant("", (WRITE,)), Assistant("ok")], harness(("use", Component("approval", "k", keep)))
    )
    made.run("go")
    assert isinstance(got[0], MappingProxyType) and tools.ran == [
        ("write", {"path": "a.txt", "content": "x"})
    ]


# failures


def _boom(given: object) -> object:
    raise ValueError("broken")


def test_a_component_that_raises_is_replaced_by_the_default_for_the_turn_and_reported_once() -> None:
    made, _, tools, seen = agent(
        [Assistant("", (WRITE,)), Assistant("", (WRITE,)), Assistant("done")],
        harness(("use", Component("approval", "flaky", _boom))),
    )
    assert made.run("go").text == "done"
    assert len(tools.ran) == 2  # the default (the policy's verdict) served both calls
    (failure,) = seen.failures
    assert (failure.slot, failure.component, failure.fault, failure.instead) == (
        "approval",
        "flaky",
        "raised",
        "policy",
    )
    assert "ValueError: broken" in failure_words(failure)
    made.model.replies = [Assistant("", (WRITE,)), Assistant("again")]  # type: ignore[attr-defined]
    made.run("next")
    assert len(seen.failures) == 2  # a new turn tries the component again


def test_a_fallback_component_serves_before_the_built_in_default() -> None:
    made, model, _, seen = agent(
        [Assistant("done")],
        harness(
            ("use", Component("model_selector", "broken", _boom)),
            ("fallback", Component("model_selector", "backup", lambda g: "backup-model")),
        ),
    )
    made.run("go")
    assert [r.options.model for r in model.requests] == ["backup-model"]
    assert model.options.model == "scripted"
    assert [(f.component, f.instead) for f in seen.failures] == [("broken", "backup")]


def test_a_component_that_does_not_answer_in_time_is_replaced_by_the_default() -> None:
    release = threading.Event()

    def slow(given: TriggerInput) -> bool:
        release.wait(PATIENCE)
        return True

    made, model, _, seen = agent(
        [Assistant("done")],
        harness(("use", Component("trigger", "slow", slow)), config=HarnessConfig(timeout=0.05)),
    )
    made.compaction = Compactor(
        lambda m: Window(DEFAULT_WINDOW, "default"), None, lambda *r: None, lambda t: None
    )
    made.messages = [User("earlier"), Assistant("answered")]  # something the trigger is asked about
    assert made.run("go").text == "done"
    release.set()
    assert [(f.component, f.fault, f.instead) for f in seen.failures] == [("slow", "timed out", "threshold")]
    assert len(model.seen) == 1  # nothing was compacted


def test_a_component_answering_the_wrong_type_is_replaced_and_says_what_it_answered() -> None:
    made, _, _, seen = agent(
        [Assistant("done")], harness(("use", Component("model_selector", "numbers", lambda g: 42)))
    )
    made.run("go")
    assert seen.failures[0].fault == "answered" and "42" in seen.failures[0].detail


# model_selector


def test_a_model_selector_is_told_the_role_and_the_request_and_serves_that_request_only() -> None:
    given: list[ModelInput] = []

    def route(g: ModelInput) -> str:
        given.append(g)
        return "big" if g.request == 1 else "small"

    built = harness(("use", Component("model_selector", "router", route)))
    main, _, _, _ = agent([Assistant("", (WRITE,)), Assistant("done")], built)
    main.run("go")
    sub, _, _, _ = agent([Assistant("done")], built)
    sub.role = "subagent"
    sub.run("help")
    assert [(g.role, g.request, g.configured) for g in given] == [
        ("main", 1, "scripted"),
        ("main", 2, "scripted"),
        ("subagent", 1, "scripted"),
    ]
    assert main.model.options.model == "scripted"


# catalog


class ToolsSeen(ScriptedModel):
    """A scripted model that records the tools each request offered."""

    @property
    def tools(self) -> list[list[str]]:
        return [[t.name for t in r.tools] for r in self.requests]


def test_a_catalog_narrows_the_tools_and_a_call_to_another_is_refused() -> None:
    config = HarnessConfig(slots=MappingProxyType({"catalog": "read-only"}))
    model = ToolsSeen([Assistant("", (WRITE,)), Assistant("done")])
    tools = FakeTools()
    made = Agent(model, FakeGate(), tools, Asked(True), "sys", harness=Harness(config))
    made.run("go")
    assert model.tools[0] == ["read", "ls"] and tools.ran == []
    result = next(m for m in made.messages if isinstance(m, ToolResult))
    assert "there is no tool named 'write'" in result.content


def test_a_catalog_that_invents_a_tool_is_replaced_by_the_default() -> None:
    invented = ToolSpec("rm_everything", "", {})

    def invent(given: CatalogInput) -> list[ToolSpec]:
        return [*given.sources["builtin"], invented]

    model = ToolsSeen([Assistant("done")])
    seen = Seen()
    built = harness(("use", Component("catalog", "inventor", invent)))
    Agent(model, FakeGate(), FakeTools(), Asked(True), "sys", seen, harness=built).run("go")
    assert model.tools == [["read", "write", "bash", "ls"]]
    assert "'rm_everything', which no tool source has" in seen.failures[0].detail


# profiles


def test_a_profile_applies_whole_or_not_at_all_and_never_to_a_running_turn() -> None:
    config = HarnessConfig(
        profiles=MappingProxyType(
            {
                "lean": MappingProxyType({"catalog": "read-only", "trigger": "never"}),
                "broken": MappingProxyType({"catalog": "native-only", "trigger": "sometimes"}),
            }
        ),
        timeout=30.0,
    )
    warned: list[str] = []
    built = Harness(config, warned.append)
    registrar = Registrar("module tests", built.activate_profile)

    def switch(given: ModelInput) -> str:
        registrar.activate_profile("lean")  # mid-turn: for the next turn
        return given.configured

    registrar.use("model_selector", Component("model_selector", "switcher", switch))
    built.register(registrar.staged)
    before = built.snapshot()
    assert built.activate_profile("broken") is False
    assert built.activate_profile("broken") is False
    assert len(warned) == 2 and "harness.profiles.broken.trigger: no trigger named 'sometimes'" in warned[0]
    assert built.snapshot() == before  # nothing of it applied, not even its good catalog entry

    model = ToolsSeen([Assistant("", (call("ls", {}),)), Assistant("done"), Assistant("again")])
    made = Agent(model, FakeGate(), FakeTools(), Asked(True), "sys", harness=built)
    made.run("go")
    assert model.tools[0] == model.tools[1] == ["read", "write", "bash", "ls"]  # the turn's snapshot
    made.run("next")
    assert model.tools[2] == ["read", "ls"]
    after = built.snapshot()
    assert [(after.slots[s].id, after.slots[s].origin.kind) for s in ("catalog", "trigger")] == [
        ("read-only", "profile"),
        ("never", "profile"),
    ]


def test_an_unknown_slot_or_id_in_the_config_warns_once_and_keeps_the_default() -> None:
    warned: list[str] = []
    config = HarnessConfig(slots=MappingProxyType({"trigger": "sometimes", "router": "x"}), where="cfg.toml")
    built = Harness(config, warned.append)
    built.snapshot()
    snapshot = built.snapshot()
    assert snapshot.slots["trigger"].id == "threshold" and snapshot.slots["trigger"].origin.kind == "built-in"
    assert warned == [
        "harness: cfg.toml: harness.slots.router: no slot named 'router' (slots: agent_loop, catalog, "
        "trigger, summarizer, model_selector, approval); ignored",
        "harness: cfg.toml: harness.slots.trigger: no trigger named 'sometimes' (known: threshold, never); "
        "passed over",
    ]


# compaction: the first user of trigger and summarizer


def _long_agent(built: Harness, replies: list[Assistant]) -> tuple[Agent, ScriptedModel, list[str]]:
    said: list[str] = []
    model = ScriptedModel(replies)
    history: list[Message] = [User("x" * 4000), Assistant("y" * 4000)]
    compactor = Compactor(lambda m: Window(2000, "server"), None, lambda *r: None, said.append)
    made = Agent(model, FakeGate(), FakeTools(), Asked(True), "sys", messages=history, compaction=compactor)
    made.harness = built
    return made, model, said


def test_trigger_never_keeps_a_conversation_over_the_threshold_whole_and_says_it_is_over_the_window() -> None:
    config = HarnessConfig(slots=MappingProxyType({"trigger": "never"}))
    made, model, said = _long_agent(Harness(config), [Assistant("answer")])
    made.run("next")
    assert len(model.seen) == 1 and len(model.seen[0]) == 3
    assert [s.split(",")[0] for s in said] == ["this request takes about 2037 tokens"]
    assert "over the model's context window of 2000 (the server says)" in said[0]


def test_a_summarizer_component_writes_the_summary_and_may_ask_the_model() -> None:
    given: list[SummarizerInput] = []

    def summarize(g: SummarizerInput) -> str:
        given.append(g)
        return "mine: " + g.ask("be brief", "summarise: " + g.transcript[:20])

    built = harness(("use", Component("summarizer", "mine", summarize)))
    made, model, said = _long_agent(built, [Assistant("the model's part"), Assistant("answer")])
    made.run("next")
    assert len(given[0].messages) == 2 and given[0].focus == ""
    assert model.seen[1][0] == User(SUMMARY_HEAD + "mine: the model's part")
    assert said[0].startswith("compacted:")


# agent_loop


def _dex_loop(steps: Steps) -> None:
    while True:
        reply = steps.call_model()
        if reply.calls:
            steps.execute_tools()
        else:
            steps.finish(reply.text)
            return


def test_a_replaced_agent_loop_runs_the_turn_over_the_step_api() -> None:
    ran: list[str] = []

    def loop(steps: Steps) -> None:
        ran.append("mine")
        _dex_loop(steps)

    made, model, tools, seen = agent(
        [Assistant("", (WRITE,)), Assistant("done")],
        harness(("use", Component("agent_loop", "my.loop", loop))),
    )
    assert made.run("go").text == "done"
    assert ran == ["mine"] and len(tools.ran) == 1 and seen.failures == []


def test_a_loop_that_breaks_the_step_order_fails_and_the_default_goes_on_from_there() -> None:
    def careless(steps: Steps) -> None:
        steps.call_model()
        steps.call_model()  # the calls of the first reply have not run

    made, model, tools, seen = agent(
        [Assistant("", (WRITE,)), Assistant("done")],
        harness(("use", Component("agent_loop", "careless", careless))),
    )
    assert made.run("go").text == "done"
    assert len(tools.ran) == 1 and len(model.seen) == 2
    assert [(f.component, f.fault) for f in seen.failures] == [("careless", "raised")]
    assert "execute_tools() first" in seen.failures[0].detail


def test_a_loop_that_returns_without_finishing_is_reported_and_the_default_finishes() -> None:
    made, _, _, seen = agent(
        [Assistant("", (WRITE,)), Assistant("done")],
        harness(("use", Component("agent_loop", "quitter", lambda steps: steps.call_model() and None))),
    )
    assert made.run("go").text == "done"
    assert seen.failures[0].detail == "returned without finish()"


def test_a_loop_that_fails_after_finishing_ends_the_turn_with_its_answer() -> None:
    def finish_then_fail(steps: Steps) -> None:
        steps.finish(steps.call_model().text)
        raise RuntimeError("after the end")

    made, model, _, seen = agent(
        [Assistant("done")], harness(("use", Component("agent_loop", "late", finish_then_fail)))
    )
    assert made.run("go").text == "done" and len(model.seen) == 1
    assert seen.failures[0].detail == "RuntimeError: after the end"


def test_a_fallback_loop_goes_on_from_the_calls_the_failed_one_left() -> None:
    def half(steps: Steps) -> None:
        steps.call_model()
        raise RuntimeError("half way")

    made, _, tools, seen = agent(
        [Assistant("", (WRITE,)), Assistant("done")],
        harness(
            ("use", Component("agent_loop", "half", half)),
            ("fallback", Component("agent_loop", "dex", _dex_loop)),
        ),
    )
    assert made.run("go").text == "done" and len(tools.ran) == 1
    assert [(f.component, f.instead) for f in seen.failures] == [("half", "dex")]


def test_a_loop_cannot_swallow_a_model_error_and_go_on() -> None:
    def swallow(steps: Steps) -> None:
        try:
            steps.call_model()
        except ModelError:
            steps.finish("all fine")

    made, _, _, _ = agent(
        [ModelError("the provider failed", Failure.UNAVAILABLE)],  # type: ignore[list-item]
        harness(("use", Component("agent_loop", "swallow", swallow))),
    )
    with pytest.raises(ModelError, match="the provider failed"):
        made.run("go")


def test_a_turn_interrupted_inside_a_replaced_loop_leaves_every_call_paired() -> None:
    def interrupted(steps: Steps) -> None:
        steps.call_model()
        raise KeyboardInterrupt

    made, _, tools, _ = agent(
        [Assistant("", (WRITE,))], harness(("use", Component("agent_loop", "int", interrupted)))
    )
    with pytest.raises(KeyboardInterrupt):
        made.run("go")
    assert tools.ran == [] and isinstance(made.messages[-1], ToolResult)
    assert made.messages[-1].content == NOT_RUN  # paired, and saying it never ran


def test_wraps_surround_the_selected_implementation_last_registered_outermost() -> None:
    order: list[str] = []

    def wrap(name: str) -> Callable[[TriggerInput, Callable[[TriggerInput], bool]], bool]:
        def around(given: TriggerInput, inner: Callable[[TriggerInput], bool]) -> bool:
            order.append(name)
            return inner(given)

        return around

    built = harness(
        ("wrap", Component("trigger", "inner-wrap", wrap("inner"))),
        ("wrap", Component("trigger", "outer-wrap", wrap("outer"))),
        config=HarnessConfig(slots=MappingProxyType({"trigger": "never"}), timeout=30.0),
    )
    made, model, _ = _long_agent(built, [Assistant("answer")])
    made.run("next")
    assert order == ["outer", "inner"] and len(model.seen) == 1  # never, through both wraps
    assert [w.component.id for w in built.snapshot().slots["trigger"].wraps] == ["inner-wrap", "outer-wrap"]


def test_usage_of_a_scripted_reply_is_counted_once_whatever_the_loop() -> None:
    made, _, _, _ = agent(
        [Assistant("", (WRITE,)), Assistant("done")],
        harness(("use", Component("agent_loop", "dex", _dex_loop))),
    )
    assert made.run("go").usage == Usage(6, 4)


class Recorded:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, object]]] = []

    def record(self, event: str, /, **data: object) -> None:
        self.events.append((event, data))


def test_the_harness_command_shows_the_graph_and_switches_a_profile_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bastion.agent.front import LONG_COMMANDS

    profiles = {"lean": MappingProxyType({"trigger": "never"}), "bad": MappingProxyType({"trigger": "x"})}
    warned: list[str] = []
    built = Harness(HarnessConfig(profiles=MappingProxyType(profiles)), warned.append)
    made, _, _, _ = agent([], built)
    session = Recorded()
    LONG_COMMANDS["/harness"]("profile bad", made, session)
    assert built.profile is None and session.events == [] and "no trigger named 'x'" in warned[0]
    LONG_COMMANDS["/harness"]("profile lean", made, session)
    LONG_COMMANDS["/harness"]("", made, session)
    out = capsys.readouterr().out
    assert "profile 'lean' from the next turn on" in out
    assert [line.split(None, 2) for line in out.splitlines() if line.startswith("  trigger")] == [
        ["trigger", "never", "profile 'lean'"]
    ]
    assert session.events == [("profile", {"name": "lean"})]
