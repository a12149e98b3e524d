"""A dry run never decides a call the tool itself would refuse for the type of an argument: `check
--jsonl` answers {"error": ...} naming the field, and the policy's table of argument types is the
agent's tool schemas, both ways."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from bastion.agent.subagents import TASK_SPEC
from bastion.agent.tools import AGENT_TOOLS, MEMORY, SKILL
from bastion.cli import check
from bastion.policy import STAMP_ARG, TOOLS, DryRun, RequestError


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
    schemas = {name: tool.parameters["properties"] for name, tool in AGENT_TOOLS.items()}
    schemas["task"] = TASK_SPEC.parameters["properties"]
    for session_tool in (SKILL, MEMORY):  # offered by a session that has skills or a memory
        schemas[session_tool.name] = session_tool.parameters["properties"]
    assert set(schemas) == set(TOOLS)
    for name, info in TOOLS.items():
        assert set(info.types) == _schema_types(schemas[name]), name
