"""Sub-agents (the task tool): parallel explore children, cancellation, the model a child talks to,
its record in the session (resume, verify and audit read it), and how the task call is decided.
The scripted-model scenarios (scenarios/task_*.json) show the rest through the real CLI."""

from __future__ import annotations

import _thread
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bastion.agent.front import Tally
from bastion.agent.providers import DEFAULT_WINDOW, Window, subagent_model_setting
from bastion.agent.runtime import (
    GO_ON,
    INTERRUPTED,
    WORK_HEAD,
    Agent,
    Answer,
    Answerer,
    Assistant,
    Cancelled,
    Compactor,
    Model,
    ModelRequest,
    Reply,
    ToolResult,
    Usage,
    User,
)
from bastion.agent.subagents import (
    EXPLORE_TOOLS,
    ChildCompaction,
    Console,
    Only,
    Subagents,
    TaskTools,
    configured_model,
)
from bastion.agent.tools import Toolbox
from bastion.analyzer import Stamper
from bastion.audit import read_calls
from bastion.config import AgentConfig
from bastion.policy import ConfigError, Decision, Layer, Policy, Subject, load_settings

# private: the fast reader of a rule against the grammar's is the thing tested
from bastion.policy._rules import _parse_with_grammar, _read_plain
from bastion.workspace import LocalWorkspace
from tests.contexts import gate as gate_for

from ..waits import PATIENCE, until
from .agent_fixtures import SLOW, FakeGate, FakeTools, ScriptedModel, call, gone, run_main, wait_for_pid
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _session_events


class Lines:
    """A session's sink: the lines a sub-agent records."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def record(self, event: str, /, **data: Any) -> None:
        self.lines.append({"type": event, **data})


def _never(call: object, args: object, verdict: object) -> Answer:
    raise AssertionError("nothing should ask")


def _parent(
    replies: list[Any],
    tools: Any,
    choose: Callable[[str], Model],
    answer: Answerer = _never,
    compaction: ChildCompaction | None = None,
) -> tuple[Agent, Lines]:
    lines = Lines()
    gate = FakeGate()
    subagents = Subagents(
        tools,
        gate,
        Console(lambda label: answer),
        choose,
        lambda specs: "system",
        lines,
        compaction=compaction,
        first=1,
    )
    agent = Agent(ScriptedModel(replies), gate, TaskTools(tools, subagents), answer, "system")
    subagents.attach(agent)
    return agent, lines


def test_explore_tasks_in_one_reply_run_at_the_same_time() -> None:
    # Each child's first reply waits until both children are asking: run one after the other, the
    # first would wait alone and fail.
    both = threading.Barrier(2, timeout=PATIENCE)

    def answer(text: str) -> Callable[[], Assistant]:
        def reply() -> Assistant:
            both.wait()
            return Assistant(text)

        return reply

    children = iter([ScriptedModel([answer("found A")]), ScriptedModel([answer("found B")])])
    tasks = (
        call("task", {"kind": "explore", "prompt": "look for A"}, "t1"),
        call("task", {"prompt": "look for B"}, "t2"),
    )
    agent, lines = _parent(
        [Assistant("", tasks), Assistant("both found")], FakeTools(), lambda kind: next(children)
    )
    tally = Tally()
    agent.events = tally
    assert agent.run("find A and B").text == "both found"
    results = {m.call_id: m.content for m in agent.messages if isinstance(m, ToolResult)}
    assert results == {"t1": "found A", "t2": "found B"}
    assert sorted((e["parent_call_id"], e["status"]) for e in lines.lines if e["event"] == "end") == [
        ("t1", "completed"),
        ("t2", "completed"),
    ]
    # Every reply (3 input tokens each), the children's too, counts in the run and the session's tally.
    assert (agent.usage.input_tokens, tally.usage.input_tokens, tally.replies) == (12, 12, 4)


def test_a_general_task_runs_alone_and_its_child_has_every_tool_but_task() -> None:
    child = ScriptedModel(
        [Assistant("", (call("task", {"prompt": "deeper"}, "c1"),)), Assistant("no task tool")]
    )
    tasks = (call("task", {"kind": "general", "prompt": "change it"}, "t1"),)
    tools = FakeTools()
    agent, lines = _parent([Assistant("", tasks), Assistant("ok")], tools, lambda kind: child)
    agent.run("go")
    (forged,) = [m for m in child.seen[1] if isinstance(m, ToolResult)]
    assert forged.is_error and "there is no tool named 'task'" in forged.content
    assert tools.ran == []
    assert [e["event"] for e in lines.lines][-2:] == ["message", "end"]


def test_ctrl_c_during_a_child_kills_its_command_and_cancels_the_parent_turn(tmp_path: Path) -> None:
    ws = LocalWorkspace(str(tmp_path), {"PATH": os.environ.get("PATH", os.defpath)})
    child = ScriptedModel([Assistant("", (call("bash", {"command": SLOW}, "slow"),)), Assistant("late")])
    tasks = (call("task", {"kind": "general", "prompt": "wait"}, "t1"),)
    agent, lines = _parent(
        [Assistant("", tasks), Assistant("late")], Toolbox(gate_for(ws, Stamper(), 4096)), lambda kind: child
    )
    seen: list[int] = []

    def interrupt() -> None:
        seen.append(wait_for_pid(tmp_path))
        _thread.interrupt_main()

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(Cancelled):
        agent.run("go")
    until(lambda: gone(seen[0]), "the child's command to end with the cancelled turn")
    assert not (tmp_path / "never").exists()
    (result,) = [m for m in agent.messages if isinstance(m, ToolResult)]
    assert (result.call_id, result.content) == ("t1", INTERRUPTED)
    ends = [e for e in lines.lines if e["event"] == "end"]
    assert [e["status"] for e in ends] == ["cancelled"]


def test_the_model_choice_is_the_setting_on_the_session_connection_else_the_session_model() -> None:
    session = ScriptedModel([])
    assert configured_model(session, None)("explore") is session
    chosen = configured_model(session, "small")("general")
    assert chosen.options.model == "small" and session.options.model == "scripted"
    # /model changes what a child without a setting gets
    session.options = replace(session.options, model="after-slash-model")
    assert configured_model(session, None)("explore").options.model == "after-slash-model"


def test_the_subagent_model_flag_wins_and_a_provider_switch_leaves_the_config_behind() -> None:
    config = AgentConfig(subagent_model="small")
    assert subagent_model_setting(config, None, provider_switched=False) == "small"
    assert subagent_model_setting(config, "tiny", provider_switched=False) == "tiny"
    assert subagent_model_setting(config, None, provider_switched=True) is None
    assert subagent_model_setting(AgentConfig(), None, provider_switched=False) is None


def _config(tmp_path: Path, where: str, text: str) -> str:
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_subagent_model_is_a_user_setting_a_project_config_may_not_set(tmp_path: Path) -> None:
    ws = LocalWorkspace(str(tmp_path))
    user = _config(tmp_path, "user.toml", 'subagent_model = "small"\n')
    assert load_settings(ws, user).agent.subagent_model == "small"
    _config(tmp_path, ".bastion/config.toml", 'subagent_model = "elsewhere"\n')
    with pytest.raises(ConfigError, match="subagent_model"):
        load_settings(ws, user)


def test_an_empty_subagent_model_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="subagent_model"):
        load_settings(LocalWorkspace(str(tmp_path)), _config(tmp_path, "user.toml", 'subagent_model = ""\n'))


@pytest.mark.parametrize("text", ["task", "task(explore)", "task(general)", "task(!explore)", "task(gen*)"])
def test_both_rule_readers_read_a_task_rule_alike(text: str) -> None:
    assert _read_plain(text) == _parse_with_grammar(text)


@pytest.mark.parametrize(
    ("allow", "deny", "kind", "decision"),
    [
        ((), (), "explore", Decision.ALLOW),
        ((), (), "general", Decision.ASK),
        (("task",), (), "general", Decision.ALLOW),
        (("task(general)",), (), "general", Decision.ALLOW),
        (("task(general)",), (), "explore", Decision.ALLOW),
        ((), ("task",), "explore", Decision.DENY),
        ((), ("task(explore)",), "explore", Decision.DENY),
        ((), ("task(explore)",), "general", Decision.ASK),
    ],
)
def test_a_task_is_decided_on_its_kind(
    allow: tuple[str, ...], deny: tuple[str, ...], kind: str, decision: Decision
) -> None:
    policy = Policy([Layer.user("config.toml", allow=allow, deny=deny)])
    assert policy.decide([Subject("task", kind)]).decision is decision


def _run_with_child(tmp_path: Path, work: Path) -> str:
    rounds = [
        {"calls": [{"name": "task", "id": "t1", "arguments": {"prompt": "read the notes"}}]},
        {"calls": [{"name": "read", "id": "c1", "arguments": {"path": "notes.txt"}}]},
        {"text": "they say 42"},
        {"text": "42"},
    ]
    with ScriptedServer(rounds) as server:
        argv = ["-p", "go", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, _, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    (header,) = [e for e in _session_events(tmp_path) if e["type"] == "session"]
    return str(header["id"])


def test_a_session_with_a_child_resumes_verifies_and_audits(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the answer is 42\n")
    session_id = _run_with_child(tmp_path, work)
    with ScriptedServer(
        [
            {"calls": [{"name": "task", "id": "t2", "arguments": {"prompt": "again"}}]},
            {"text": "x"},
            {"text": "y"},
        ]
    ) as server:
        argv = [
            "--resume",
            session_id,
            "-p",
            "and now?",
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
        ]
        code, _, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    # The resumed conversation is the parent's: the task call and its answer, none of the child's.
    roles = [
        (m["role"], m.get("content") or m.get("text") or "") for m in server.requests[0]["body"]["messages"]
    ]
    assert [r for r, _ in roles] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert ("tool", "they say 42") in roles and not any("the answer is 42" in text for _, text in roles)
    events = _session_events(tmp_path)
    # The second session's task is numbered after the first.
    assert [
        (e["parent_call_id"], e["task"]) for e in events if e["type"] == "task" and e["event"] == "start"
    ] == [
        ("t1", 1),
        ("t2", 2),
    ]
    code, out, err = run_main(["sessions", "verify", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 0 and "verified" in out, out + err
    (path,) = (tmp_path / "home" / ".bastion" / "sessions").glob("*.jsonl")
    calls, problems, fmt = read_calls(str(path), path.read_text())
    assert fmt == "bastion" and problems == []
    assert [(c.tool, dict(c.args)) for c in calls][:2] == [
        ("task", {"prompt": "read the notes"}),
        ("read", {"path": "notes.txt"}),
    ]


def test_a_session_without_children_still_resumes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with ScriptedServer([{"text": "hello"}]) as server:
        code, _, _ = run_main(
            ["-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=str(work),
            env=_env(tmp_path),
        )
    assert code == 0
    (header,) = [e for e in _session_events(tmp_path) if e["type"] == "session"]
    assert not any(e["type"] == "task" for e in _session_events(tmp_path))
    with ScriptedServer([{"text": "again"}]) as server:
        argv = [
            "--resume",
            str(header["id"]),
            "-p",
            "more",
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
        ]
        code, _, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    assert [m["role"] for m in server.requests[0]["body"]["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
    ]


def test_a_childs_usage_and_refusals_are_the_parent_runs() -> None:
    child = ScriptedModel([Assistant("", (call("write", {"path": "x"}, "w1"),)), Assistant("refused")])
    tasks = (call("task", {"kind": "general", "prompt": "write x"}, "t1"),)
    gate_asks: dict[str, Decision] = {"write": Decision.ASK}
    lines = Lines()
    gate = FakeGate(gate_asks)
    tools = FakeTools()
    labels: list[str] = []

    def answer_for(label: str) -> Answerer:
        labels.append(label)
        return lambda c, a, v: Answer(False, "not now")

    subagents = Subagents(tools, gate, Console(answer_for), lambda kind: child, lambda specs: "s", lines)
    agent = Agent(
        ScriptedModel([Assistant("", tasks), Assistant("done")]),
        gate,
        TaskTools(tools, subagents),
        _never,
        "s",
    )
    subagents.attach(agent)
    result = agent.run("go")
    assert labels == ["[task 1: general]"] and tools.ran == []
    assert [(d.call_id, d.reason, d.decided_by) for d in result.denials] == [("w1", "not now", "person")]
    assert result.usage.input_tokens == 3 + 3 + 3 + 3
    told = [m for m in child.seen[1] if isinstance(m, ToolResult)]
    assert told and "refused by the user: not now" in told[0].content
    assert isinstance(child.seen[0][0], User) and child.seen[0][0].text == "write x"


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"kind": "everything", "prompt": "x"}, "`kind` must be explore or general"),
        ({"prompt": ""}, "`prompt` must be the task"),
        ({"prompt": "x", "model": "big"}, "unknown argument 'model'"),
    ],
)
def test_a_malformed_task_runs_no_child(args: Mapping[str, object], problem: str) -> None:
    def no_model(kind: str) -> Model:
        raise AssertionError("no child should start")

    subagents = Subagents(
        FakeTools(), FakeGate(), Console(lambda label: _never), no_model, lambda s: "s", Lines()
    )
    text, failed = subagents.run(args, threading.Event())
    assert failed and problem in text and "nothing was run" in text


def test_a_reply_streaming_to_a_cancelled_child_is_cut_off_and_its_calls_never_run() -> None:
    tools = FakeTools()
    holder: list[Agent] = []

    class Streaming(ScriptedModel):
        def stream(self, request: ModelRequest) -> Reply:
            holder[0].cancel.set()  # Ctrl-C while the child's reply streams: it streams on until stopped

            def streamed() -> bool:
                request.on_text("half a sentence ")  # raises once the cancel has reached the child
                return False

            until(streamed, "the cancel to reach the child's stream")
            made = Assistant("half a sentence", (call("bash", {"command": "make"}, "b1"),))
            return Reply(made, Usage(3, 2))

    child = Streaming([])
    tasks = (call("task", {"prompt": "build it"}, "t1"),)
    agent, lines = _parent([Assistant("", tasks), Assistant("late")], tools, lambda kind: child)
    holder.append(agent)
    with pytest.raises(Cancelled):
        agent.run("go")
    assert tools.ran == []
    child_messages = [e["message"]["role"] for e in lines.lines if e["event"] == "message"]
    assert child_messages == ["user"]  # the cut reply never joined the child's conversation
    assert [e["status"] for e in lines.lines if e["event"] == "end"] == ["cancelled"]


def test_an_explore_view_runs_no_tool_its_kind_lacks_whoever_calls_it() -> None:
    tools = FakeTools()
    view = Only(tools, EXPLORE_TOOLS)
    assert [s.name for s in view.specs()] == ["read", "bash", "ls"]
    assert not view.has("write")
    text, failed = view.run("write", {"path": "x"}, threading.Event())
    assert failed and "no tool named 'write'" in text and tools.ran == []


def test_each_child_compacts_its_own_work_and_a_refusal_is_not_tried_again_in_that_child_only() -> None:
    said: list[str] = []

    def compactor(record: Callable[[str, int, str, int], None], label: str) -> Compactor:
        # compact_at 100: the trigger fires before every request that has work behind it (a
        # child's system prompt alone is more), and a refused one is tried again only once the
        # work has grown by 25 tokens.
        return Compactor(
            lambda m: Window(DEFAULT_WINDOW, "default"),
            100,
            record,
            lambda text: said.append(f"{label} {text}"),
        )

    long_path = {"path": "x" * 400}
    first = ScriptedModel(
        [
            Assistant("", (call("read", long_path, "c1"),)),
            Assistant("a summary far longer than the work " * 40),  # refused: it does not shrink
            Assistant("", (call("read", {"path": "y"}, "c2"),)),
            Assistant("done one"),  # the work grew by less: no summary asked again before this request
        ]
    )
    second = ScriptedModel(
        [Assistant("", (call("read", long_path, "c3"),)), Assistant("read x"), Assistant("done two")]
    )
    children = iter([first, second])
    tasks = tuple(
        call("task", {"kind": "general", "prompt": p}, f"t{n}") for n, p in ((1, "one"), (2, "two"))
    )
    agent, lines = _parent(
        [Assistant("", tasks), Assistant("ok")],
        FakeTools(),
        lambda kind: next(children),
        compaction=compactor,
    )
    assert agent.run("go").text == "ok"
    results = [m.content for m in agent.messages if isinstance(m, ToolResult)]
    assert results == ["done one", "done two"]
    assert len(first.seen) == 4 and len(second.seen) == 3
    assert second.seen[2] == [User("two"), Assistant(WORK_HEAD + "read x"), User(GO_ON)]
    assert len(said) == 2 and said[0].startswith("[task 1: general] compaction refused: the summary")
    assert said[1].startswith("[task 2: general] compacted:")
    compactions = [(e["task"], e["replaced"]) for e in lines.lines if e["event"] == "compaction"]
    assert compactions == [(2, 2)]
