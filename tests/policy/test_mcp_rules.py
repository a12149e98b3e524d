"""MCP calls under the policy: `mcp(SERVER:TOOL)` rules, their dangerous siblings, names that are not
MCP tools of bastion's, both rule readers, and the gate deciding a call as the engine does."""

from __future__ import annotations

import os
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.policy import (
    ConfigError,
    Decision,
    DryRun,
    Layer,
    Origin,
    Policy,
    RuleError,
    Source,
    load_settings,
    mcp_name_problem,
    mcp_subjects,
    mcp_tool_name,
    split_mcp_name,
)

# Private: the rule grammar and the fast rule reader are the twins tested against each other.
from bastion.policy._rules import _parse_with_grammar, _read_plain
from bastion.workspace import LocalWorkspace

A, Q, D = Decision.ALLOW, Decision.ASK, Decision.DENY
USER = "~/.config/bastion/config.toml"


def _decide(
    name: str, *, allow: tuple[str, ...] = (), ask: tuple[str, ...] = (), deny: tuple[str, ...] = ()
) -> Decision:
    subjects = mcp_subjects(name, {"q": "x"})
    assert subjects is not None, name
    return Policy([Layer.user(USER, allow=allow, ask=ask, deny=deny)]).decide(subjects).decision


@pytest.mark.parametrize(
    ("allow", "name", "decision"),
    [
        ((), "mcp__docs__search", Q),
        (("mcp(docs:*)",), "mcp__docs__search", A),
        (("mcp(docs:*)",), "mcp__docs2__search", Q),
        (("mcp(docs:*)",), "mcp__evil__docs", Q),
        (("mcp(docs:*)",), "mcp__do__cs", Q),
        (("mcp(docs:search)",), "mcp__docs__search", A),
        (("mcp(docs:search)",), "mcp__docs__search2", Q),
        (("mcp(docs:search)",), "mcp__docs__searc", Q),
        (("mcp(docs:search*)",), "mcp__docs__search_all", A),
        (("mcp(docs:*_read)",), "mcp__docs__file_read", A),
        (("mcp(docs:*_read)",), "mcp__docs__file_read_write", Q),
        (("mcp(do-cs:*)",), "mcp__do-cs__x", A),
        (("mcp(do_cs:*)",), "mcp__do_cs__x", A),
        (("mcp(do_cs:*)",), "mcp__do__x", Q),
        (("mcp(Docs:*)",), "mcp__docs__x", Q),
        (("mcp",), "mcp__anything__x", A),
        (("bash",), "mcp__docs__x", Q),
        (("bash(*)",), "mcp__docs__x", Q),
        (("read(*)",), "mcp__docs__x", Q),
    ],
)
def test_an_mcp_rule_allows_the_tools_it_names_and_no_sibling(
    allow: tuple[str, ...], name: str, decision: Decision
) -> None:
    assert _decide(name, allow=allow) is decision


@pytest.mark.parametrize(
    ("rules", "decision"),
    [
        ({"allow": ("mcp(docs:*)",), "deny": ("mcp(docs:delete)",)}, D),
        ({"allow": ("mcp(docs:*)",), "ask": ("mcp(docs:delete)",)}, Q),
        ({"allow": ("mcp(docs:delete)",), "deny": ("mcp",)}, D),
        ({"allow": ("mcp(docs:*)",), "deny": ("mcp__*",)}, D),
        ({"allow": ("mcp(docs:*)",), "deny": ("mcp__docs__delete",)}, D),
        ({"allow": ("mcp(docs:*)",), "ask": ("mcp__docs__*",)}, Q),
        ({"allow": ("mcp(docs:*)",), "deny": ("mcp__docs__other",)}, A),
    ],
)
def test_deny_beats_ask_beats_allow_for_mcp_calls(
    rules: dict[str, tuple[str, ...]], decision: Decision
) -> None:
    assert _decide("mcp__docs__delete", **rules) is decision


def test_no_shipped_rule_allows_an_mcp_tool_and_the_verdict_names_rule_and_source() -> None:
    subjects = mcp_subjects("mcp__docs__search", {})
    assert subjects is not None
    asked = Policy([]).decide(subjects)
    assert asked.decision is Q and asked.rule is None and 'mcp "docs:search"' in asked.reason
    allowed = Policy([Layer.user(USER, allow=("mcp(docs:*)",))]).decide(subjects)
    assert allowed.rule is not None and allowed.source is not None
    assert (allowed.decision, allowed.rule.text, allowed.source.tag) == (A, "mcp(docs:*)", f"user:{USER}")
    assert "allowed by mcp(docs:*) from your config" in allowed.reason
    denied = Policy([Layer.project(".bastion/config.toml", deny=("mcp(docs:search)",))]).decide(subjects)
    assert (denied.decision, denied.source) == (D, Source(Origin.PROJECT, ".bastion/config.toml"))


def test_fallback_allow_still_lets_a_deny_rule_refuse_and_fallback_deny_refuses() -> None:
    subjects = mcp_subjects("mcp__docs__x", {})
    assert subjects is not None
    assert Policy([], fallback=A).decide(subjects).decision is A
    assert Policy([Layer.user(USER, deny=("mcp(docs:x)",))], fallback=A).decide(subjects).decision is D
    assert Policy([Layer.user(USER, ask=("mcp(docs:*)",))], fallback=D).decide(subjects).decision is D


@pytest.mark.parametrize(
    ("rules", "kind"),
    [
        ({"allow": ("mcp(docs)",)}, "mcp_specifier"),
        ({"allow": ("mcp(*:x)",)}, "mcp_specifier"),
        ({"allow": ("mcp(docs:a.b)",)}, "mcp_specifier"),
        ({"allow": ("mcp(docs:a__b)",)}, "mcp_specifier"),
        ({"allow": ("mcp(do__cs:x)",)}, "mcp_specifier"),
        ({"deny": ("mcp(docs:x y)",)}, "mcp_specifier"),
        ({"allow": ("mcp(:x)",)}, "mcp_specifier"),
        ({"allow": ("mcp__docs__search",)}, "mcp_tool_name"),
        ({"allow": ("mcp__*",)}, "tool_glob"),
    ],
)
def test_an_mcp_rule_of_another_shape_is_an_error_naming_it(
    rules: dict[str, tuple[str, ...]], kind: str
) -> None:
    with pytest.raises(RuleError) as caught:
        Policy([Layer.user(USER, **rules)])
    assert caught.value.kind == kind


@pytest.mark.parametrize(
    "text",
    ["mcp(docs:*)", "mcp(docs:search)", "mcp", "mcp(!docs:x)", "mcp(docs:(x))", "mcp(a b:c)", "mcp()"],
)
def test_both_rule_readers_read_an_mcp_rule_alike(text: str) -> None:
    plain = _read_plain(text)
    try:
        parsed = _parse_with_grammar(text)
    except RuleError:
        assert plain is None
    else:
        assert plain is None or plain == parsed


@pytest.mark.parametrize(
    "name",
    [
        "mcp__docs",
        "mcp__docs__",
        "mcp____x",
        "mcp__docs__a__b",
        "mcp__do.cs__x",
        "mcp__docs__a.b",
        "mcp__docs__a b",
        "mcp__docs_ __x",
        "mcp__-docs__x",
        "mcp__docs-__x",
        "mcp__docs__" + "x" * 60,
        "MCP__docs__x",
        "mcp__dócs__x",
    ],
)
def test_a_name_that_is_not_one_of_ours_is_never_an_mcp_subject_and_no_mcp_rule_allows_it(
    name: str, tmp_path: pathlib.Path
) -> None:
    assert split_mcp_name(name) is None and mcp_subjects(name, {}) is None
    config = tmp_path / "config.toml"
    config.write_text('[policy]\nallow = ["mcp", "mcp(docs:*)"]\n')
    assert DryRun(str(config)).check(str(tmp_path), name, {})["decision"] == "ask"


_NAMES = st.text(alphabet="ab_-.:*A0 _", min_size=1, max_size=8)


@settings(max_examples=500, deadline=None)
@given(_NAMES, _NAMES)
def test_a_name_splits_back_into_its_server_and_tool_in_one_way_only(server: str, tool: str) -> None:
    name = mcp_tool_name(server, tool)
    split = split_mcp_name(name)
    if mcp_name_problem(server, tool) is None:
        assert split == (server, tool)
    else:
        assert split is None or (split != (server, tool) and mcp_tool_name(*split) == name)


@settings(max_examples=300, deadline=None)
@given(_NAMES, _NAMES, _NAMES)
def test_mcp_server_star_allows_exactly_the_tools_of_that_server(server: str, other: str, tool: str) -> None:
    if mcp_name_problem(server, "x") is not None or mcp_name_problem(other, tool) is not None:
        return  # a server or tool that cannot be offered has no name of its own to call
    policy = Policy([Layer.user(USER, allow=(f"mcp({server}:*)",))])
    subjects = mcp_subjects(mcp_tool_name(other, tool), {})
    assert subjects is not None
    decision = policy.decide(subjects).decision
    assert decision is (A if other == server else Q)


def test_a_tool_name_starting_with_an_underscore_belongs_to_the_server_before_it() -> None:
    # mcp__0___0 reads as server "0" and tool "_0" only: a server name never ends with "_", so no
    # rule for server "0" reaches another server's tool through that name (hypothesis found the case).
    assert mcp_name_problem("0_", "0") is not None
    assert split_mcp_name(mcp_tool_name("0", "_0")) == ("0", "_0")
    policy = Policy([Layer.user(USER, allow=("mcp(0:*)",))])
    subjects = mcp_subjects("mcp__0___0", {})
    assert subjects is not None and policy.decide(subjects).decision is A


def test_the_gate_decides_an_mcp_call_by_the_same_engine(tmp_path: object) -> None:
    config = os.path.join(str(tmp_path), "config.toml")
    with open(config, "w") as handle:
        handle.write('[policy]\nallow = ["mcp(docs:*)"]\ndeny = ["mcp(docs:drop)"]\n')
    dry = DryRun(config)
    allowed = dry.check(str(tmp_path), "mcp__docs__search", {"query": "x"})
    assert (allowed["decision"], allowed["rule"], allowed["source"]) == (
        "allow",
        "mcp(docs:*)",
        f"user:{config}",
    )
    denied = dry.check(str(tmp_path), "mcp__docs__drop", {})
    assert (denied["decision"], denied["rule"]) == ("deny", "mcp(docs:drop)")
    assert dry.check(str(tmp_path), "mcp__docs2__search", {})["decision"] == "ask"


def test_a_project_config_may_deny_an_mcp_tool_but_not_name_a_server(tmp_path: object) -> None:
    root = str(tmp_path)
    os.makedirs(os.path.join(root, ".bastion"))
    project = os.path.join(root, ".bastion", "config.toml")
    with open(project, "w") as handle:
        handle.write('[policy]\ndeny = ["mcp(docs:*)"]\n')
    settings_ = load_settings(LocalWorkspace(root), os.devnull)
    subjects = mcp_subjects("mcp__docs__x", {})
    assert subjects is not None and settings_.policy.decide(subjects).decision is D
    with open(project, "w") as handle:
        handle.write('[mcp.servers.evil]\ncommand = "curl"\n')
    with pytest.raises(ConfigError, match=r"config.toml: mcp: a project file may not set mcp"):
        load_settings(LocalWorkspace(root), os.devnull)
    with open(project, "w") as handle:
        handle.write('[policy]\nallow = ["mcp(docs:*)"]\n')
    with pytest.raises(ConfigError, match="policy.allow: a project file may not allow anything"):
        load_settings(LocalWorkspace(root), os.devnull)


def test_deciding_an_mcp_call_loads_no_mcp_module_nor_the_agent(tmp_path: pathlib.Path) -> None:
    from tests.loaded import modules_loaded
    from tests.test_layering import FORBIDDEN

    code = (
        "import os\n"
        "from bastion.cli import main\n"
        f"main(['check', '--config', os.devnull, '--cwd', {str(tmp_path)!r}, '--tool', 'mcp__docs__search'])"
    )
    assert modules_loaded(code, FORBIDDEN) == []
