"""No call is decided on an argument the tool itself would refuse for its type: `check --jsonl`
answers {"error": ...} naming the field; the agent's gate refuses such a call (never asks a person
about it, never names a wrong reason such as "'5' is outside the working directory"), and also one
that leaves out an argument the tool requires or gives one it does not take; the gate refuses
exactly the calls the tools refuse for their arguments (a property over generated arguments); and
the policy's table of argument types and required arguments is the agent's tool schemas, both ways."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.agent.subagents import TASK_SPEC
from bastion.agent.tools import AGENT_TOOLS, MEMORY, SKILL
from bastion.analyzer import Stamper
from bastion.cli import check
from bastion.policy import STAMP_ARG, TOOLS, Decision, DryRun, Gate, Policy, RequestError, Settings
from bastion.workspace import LocalWorkspace

from .contexts import tool_context


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("edit", {"path": "a", "old_string": 5, "new_string": "x"}, "old_string"),
        ("edit", {"path": "a", "old_string": "x", "new_string": None}, "new_string"),
        ("write", {"path": "a", "content": ["x"]}, "content"),
        ("write", {"path": 7, "content": "x"}, "path"),
        ("read", {"path": "a", "offset": "2"}, "offset"),
        ("read", {"path": "a", "limit": True}, "limit"),
        ("grep", {"pattern": 1}, "pattern"),
        ("grep", {"pattern": "x", "ignore_case": "yes"}, "ignore_case"),
        ("glob", {"pattern": {"a": 1}}, "pattern"),
        ("bash", {"command": "ls", "timeout_seconds": "10"}, "timeout_seconds"),
        ("task", {"prompt": 3}, "prompt"),
    ],
)
def test_a_wrongly_typed_argument_is_an_error_naming_it(
    tmp_path: Path, tool: str, args: dict[str, object], field: str
) -> None:
    request = {"cwd": str(tmp_path), "tool": tool, "args": args}
    with pytest.raises(RequestError, match=f"`args.{field}` must be a"):
        DryRun(os.devnull).request(request)
    out = io.StringIO()
    check(["--jsonl", "--config", os.devnull], stdin=io.StringIO(json.dumps(request) + "\n"), out=out)
    answer = json.loads(out.getvalue())
    assert list(answer) == ["error"] and f"`args.{field}`" in answer["error"] and tool in answer["error"]


def test_well_typed_arguments_are_decided(tmp_path: Path) -> None:
    dry = DryRun(os.devnull)
    for tool, args in [
        ("read", {"path": "a", "offset": 2, "limit": 10.0}),
        ("bash", {"command": "ls", "timeout_seconds": 30}),
        ("edit", {"path": "a", "old_string": "x", "new_string": "y"}),
        ("grep", {"pattern": "x", "ignore_case": False, "max_results": 5}),
    ]:
        assert "decision" in dry.request({"cwd": str(tmp_path), "tool": tool, "args": args})


def _schema_types(properties: dict[str, dict[str, object]]) -> set[tuple[str, object]]:
    return {(name, spec["type"]) for name, spec in properties.items() if name != STAMP_ARG}


def test_the_policys_argument_types_are_the_tools_schemas_both_ways() -> None:
    schemas = {name: tool.parameters for name, tool in AGENT_TOOLS.items()}
    schemas["task"] = TASK_SPEC.parameters
    for session_tool in (SKILL, MEMORY):  # offered by a session that has skills or a memory
        schemas[session_tool.name] = session_tool.parameters
    assert set(schemas) == set(TOOLS)
    for name, info in TOOLS.items():
        assert set(info.types) == _schema_types(schemas[name]["properties"]), name
        assert set(info.required) == set(schemas[name]["required"]), name


FILE_TOOLS = ("read", "write", "edit", "glob", "grep", "ls")
# A value of each argument the tool takes and runs with in the workspace below (in its range).
GOOD: dict[str, object] = {
    "path": "notes.txt", "content": "one\n", "old_string": "one", "new_string": "uno", "pattern": "o",
    "include": "*.txt", "offset": 1, "limit": 5, "ignore_case": True, "max_results": 3,
}  # fmt: skip
# A JSON value of every type but the one named, as a model might send it.
_JSON = {
    "string": st.text(min_size=1, max_size=5),
    "integer": st.integers(-5, 5),
    "fraction": st.sampled_from([0.5, 2.25, -1.5]),
    "boolean": st.booleans(),
    "null": st.none(),
    "array": st.lists(st.integers(0, 3), max_size=2),
    "object": st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), max_size=2),
}
GIVEN_AS = {"string": "a string", "integer": "a number", "fraction": "a fractional number",
            "boolean": "a boolean", "null": "null", "array": "an array", "object": "an object"}  # fmt: skip


def _wrong(kind: str) -> list[str]:
    """The JSON types that are not `kind` as the tools take it (a boolean is no integer)."""
    return [t for t in _JSON if t != kind]


def _agents_gate(root: Path) -> Gate:
    return Gate(Settings(Policy()), LocalWorkspace(str(root)), Stamper(), whole=True)


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    return tmp_path


WRONG_CASES = [
    (tool, name, given) for tool in FILE_TOOLS for name, kind in TOOLS[tool].types for given in _wrong(kind)
]


@pytest.mark.parametrize(("tool", "name", "given"), WRONG_CASES)
def test_a_wrongly_typed_argument_of_a_file_tool_is_refused_naming_it_and_its_type_never_asked(
    tmp_path: Path, tool: str, name: str, given: str
) -> None:
    args = {n: GOOD[n] for n in TOOLS[tool].required}
    args[name] = {"string": "5", "integer": 5, "fraction": 2.5, "boolean": True, "null": None,
                  "array": ["a"], "object": {"a": 1}}[given]  # fmt: skip
    kind = dict(TOOLS[tool].types)[name]
    verdict = _agents_gate(_workspace(tmp_path)).decide(tool, args).verdict
    a = "an" if kind == "integer" else "a"
    assert verdict.decision is Decision.DENY, verdict
    assert (
        verdict.reason
        == f"{tool} call could not be evaluated: `args.{name}` must be {a} {kind}, not {GIVEN_AS[given]}"
    )


@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_a_file_tool_call_missing_a_required_argument_or_giving_an_unknown_one_is_refused(
    tmp_path: Path, tool: str
) -> None:
    gate = _agents_gate(_workspace(tmp_path))
    whole = {n: GOOD[n] for n in TOOLS[tool].required}
    for name in TOOLS[tool].required:
        verdict = gate.decide(tool, {k: v for k, v in whole.items() if k != name}).verdict
        assert (
            verdict.decision is Decision.DENY
            and f"`args.{name}` must be a string; the call gives none" in verdict.reason
        )
    verdict = gate.decide(tool, {**whole, "recursive": True}).verdict
    assert (
        verdict.decision is Decision.DENY
        and f"`args.recursive` is not an argument of the {tool} tool" in verdict.reason
    )
    assert gate.decide(tool, whole).verdict.decision is not Decision.DENY


def test_a_read_whose_path_is_a_number_is_refused_for_its_type_not_as_outside_the_directory(
    tmp_path: Path,
) -> None:
    verdict = _agents_gate(_workspace(tmp_path)).decide("read", {"path": 5}).verdict
    assert verdict.decision is Decision.DENY and "outside" not in verdict.reason
    assert verdict.reason == "read call could not be evaluated: `args.path` must be a string, not a number"
    with pytest.raises(
        RequestError, match="the read tool: `args.path` must be a string; the call gives none"
    ):
        DryRun(os.devnull).request({"cwd": str(tmp_path), "tool": "read", "args": {}})


_ARGUMENT_ERROR = re.compile(
    r"the argument '\w+' (is required|must be a string|must be a whole number|must be true or false)"
    r"|unknown argument"
)


def _arguments(tool: str) -> st.SearchStrategy[dict[str, object]]:
    """Arguments for `tool`: each it takes left out, in range and well typed, or of another JSON type;
    sometimes one it does not take."""
    parts = {
        name: st.one_of(st.just(None), st.just(GOOD[name]), *(_JSON[t] for t in _wrong(kind))).map(
            lambda v: ("given", v)
        )
        | st.just(("absent", None))
        for name, kind in TOOLS[tool].types
    }
    return st.fixed_dictionaries(
        parts, optional={"recursive": st.booleans().map(lambda v: ("given", v))}
    ).map(lambda d: {k: v for k, (how, v) in d.items() if how == "given"})


@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_the_gate_refuses_exactly_the_calls_the_tool_refuses_for_their_arguments(
    tmp_path: Path, tool: str
) -> None:
    root = _workspace(tmp_path)
    ctx = tool_context(LocalWorkspace(str(root)), Stamper())
    gate = _agents_gate(root)

    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(_arguments(tool))
    def holds(args: dict[str, object]) -> None:
        (root / "notes.txt").write_text("one\ntwo\n")
        verdict = gate.decide(tool, args).verdict
        refused = verdict.decision is Decision.DENY and "could not be evaluated: `args." in verdict.reason
        out = AGENT_TOOLS[tool].run(args, ctx)
        failed = out.is_error and _ARGUMENT_ERROR.search(out.text) is not None
        assert refused == failed, (args, verdict.reason, out.text)

    holds()


def test_the_agent_tells_the_model_what_is_wrong_with_a_wrongly_typed_call_and_asks_nobody(
    tmp_path: Path,
) -> None:
    from .agent.agent_fixtures import run_main
    from .agent.scripted_server import ScriptedServer
    from .agent.test_scenarios import _env, _workspace

    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    calls = [
        {"name": "read", "arguments": {"path": 5}, "id": "r1"},
        {"name": "write", "arguments": {"path": "a.txt", "content": 5}, "id": "w1"},
    ]
    with ScriptedServer([{"calls": calls}, {"text": "done"}]) as server:
        argv = [
            "-p",
            "go",
            "--output-format",
            "json",
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
        ]
        code, out, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    results = {
        m["tool_call_id"]: m["content"] for m in server.requests[1]["body"]["messages"] if m["role"] == "tool"
    }
    assert results["r1"].startswith(
        "denied by policy: read call could not be evaluated: `args.path` must be a string, not a number"
    ), results
    assert "`args.content` must be a string, not a number" in results["w1"], results
    denials = json.loads(out)["permission_denials"]
    # Denied outright by the policy: no question was put to anyone.
    assert [(d["verdict"], d["decided_by"]) for d in denials] == [("deny", "policy"), ("deny", "policy")]
    assert (work / "a.txt").read_text() == "alpha\n"
