"""One table of tools (bastion.policy._tools): the agent's tools are the table's, and no module
restates a list of tools the table defines."""

from __future__ import annotations

import ast
import pathlib

import pytest

from bastion.agent.subagents import TASK, TASK_SPEC
from bastion.agent.tools import AGENT_TOOLS, SESSION_TOOLS
from bastion.policy import MEMORY_ACTIONS, PATH_TOOLS, READ_TOOLS, STAMP_ARG, TOOLS, WRITE_TOOLS
from bastion.policy._shipped import ALIASES, LIFTED_TOOLS, MEMORY_ASK, SHIPPED_ALLOW

ROOT = pathlib.Path(__file__).resolve().parents[2] / "bastion"
TABLE = ROOT / "policy" / "_tools.py"


def test_the_agent_has_exactly_the_tools_of_the_table() -> None:
    # The built-in tools are the tools package's; the task tool is the sub-agents' (_subagent.py);
    # skill and memory are the tools package's too, offered by a session that has them.
    assert set(AGENT_TOOLS) | set(SESSION_TOOLS) | {TASK} == set(TOOLS) and TASK not in AGENT_TOOLS
    assert not set(AGENT_TOOLS) & set(SESSION_TOOLS)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_agent_tool_schema_takes_the_table_argument_required_unless_it_has_a_default(name: str) -> None:
    info = TOOLS[name]
    parameters = TASK_SPEC.parameters if name == TASK else {**AGENT_TOOLS, **SESSION_TOOLS}[name].parameters
    assert info.argument in parameters["properties"]
    # Every tool the gate stamps carries the stamp's field; a task is never stamped.
    assert (STAMP_ARG in parameters["properties"]) is (name != TASK)
    assert (info.argument in parameters["required"]) is (info.default is None)


def test_the_shipped_rules_and_aliases_name_the_table_tools() -> None:
    assert set(ALIASES["Read"]) == set(READ_TOOLS) == LIFTED_TOOLS - {"memory"}
    assert set(ALIASES["Edit"]) == set(WRITE_TOOLS)
    assert {rule for rule in SHIPPED_ALLOW if "(" not in rule} == {*READ_TOOLS, "skill"}
    assert {rule for rule in SHIPPED_ALLOW if rule.startswith(f"{TASK}(")} == {"task(explore)"}
    # Memory: a read runs unasked, every change asks (MEMORY_ASK), and nothing else is shipped for it.
    assert {rule for rule in SHIPPED_ALLOW if rule.startswith("memory")} == {"memory(read)"}
    assert set(MEMORY_ASK) == {f"memory({action})" for action in MEMORY_ACTIONS if action != "read"}
    assert set(READ_TOOLS) | set(WRITE_TOOLS) == PATH_TOOLS


def _restatements(source: str) -> list[int]:
    """The lines of literal tuples, lists and sets naming three or more of the table's path tools."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            names = {e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in PATH_TOOLS}
            if len(names) >= 3:
                found.append(node.lineno)
    return found


def test_the_restatement_check_finds_a_list_of_tools() -> None:
    assert _restatements('READ_ONLY = frozenset({"read", "glob", "grep", "ls"})\nx = ("glob", "grep")') == [1]


def test_no_module_restates_a_list_of_tools() -> None:
    modules = [p for p in sorted(ROOT.rglob("*.py")) if p != TABLE and not p.name.startswith("_subset_")]
    found = [(p.name, line) for p in modules for line in _restatements(p.read_text("utf-8"))]
    assert found == []
