"""The rule language: what parses, and where and why what does not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.policy import PolicyError, RuleError, parse_rule


@pytest.mark.parametrize(
    ("text", "tool", "specifier", "carve_out"),
    [
        ("read", "read", None, False),
        ("bash(go test:*)", "bash", "go test:*", False),
        ("write(docs/**)", "write", "docs/**", False),
        ("Read(.env)", "Read", ".env", False),
        ("deploy(!staging)", "deploy", "!staging", True),
        ("Edit(./Finance (2024)/**)", "Edit", "./Finance (2024)/**", False),
        ("Bash(a(b)c)", "Bash", "a(b)c", False),
        ("mcp__*", "mcp__*", None, False),
        ("Read\u00a0Edit", "Read\u00a0Edit", None, False),
        ("  bash(ls -la)\t", "bash", "ls -la", False),
        ("bash(  spaced  )", "bash", "  spaced  ", False),
    ],
)
def test_a_valid_rule_parses_into_its_tool_and_specifier(
    text: str, tool: str, specifier: str | None, carve_out: bool
) -> None:
    rule = parse_rule(text)
    assert (rule.tool, rule.specifier, rule.carve_out) == (tool, specifier, carve_out)


@pytest.mark.parametrize(
    ("text", "kind", "column"),
    [
        ("bash(x", "unbalanced_parentheses", 5),
        ("bash)x(", "unbalanced_parentheses", 5),
        ("bash(a))", "unbalanced_parentheses", 8),
        ("(x)", "missing_tool_name", 1),
        ("Bash(git)x", "text_after_specifier", 10),
        ("Bash(a)(b)", "text_after_specifier", 8),
        ("Bash(a)x(b)", "text_after_specifier", 8),
        ("bash()", "empty_specifier", 6),
        ("bash(!)", "empty_carve_out", 6),
        ("mcp__*(x)", "tool_glob", 6),
        ("Read Bash", "several_rules", 5),
        ("bash (x)", "several_rules", 5),
        ("", "empty_rule", 1),
        ("   ", "empty_rule", 1),
    ],
)
def test_a_bad_rule_is_refused_with_its_kind_and_column(text: str, kind: str, column: int) -> None:
    with pytest.raises(RuleError) as caught:
        parse_rule(text)
    assert (caught.value.kind, caught.value.column) == (kind, column)


@pytest.mark.parametrize(
    ("text", "column", "at"),
    [
        ("Bash(git)x", 10, "at 'x'"),
        ("bash(x", 5, "at '(x'"),
        ("bash()", 6, "at ')'"),
        ("bash(a\nb", 5, "at '(a\\nb'"),
    ],
)
def test_the_error_is_one_line_pointing_at_the_column(text: str, column: int, at: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse_rule(text)
    assert f", column {caught.value.column} ({at}): " in str(caught.value)
    assert "\n" not in str(caught.value).replace(repr(text), "")


@pytest.mark.parametrize(("text", "field"), [("bash()", "policy.allow[2]"), ("(x)", "policy.deny[0]")])
def test_a_located_error_names_its_config_entry(text: str, field: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse_rule(text)
    located = caught.value.located(field)
    assert str(located).startswith(f"{field}: ") and located.kind == caught.value.kind


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab *!:( )\t.\u00a0/", max_size=14))
def test_any_text_either_parses_or_raises_a_rule_error(text: str) -> None:
    try:
        rule = parse_rule(text)
    except PolicyError as err:
        assert isinstance(err, RuleError) and err.column >= 1
    else:
        assert rule.tool and "(" not in rule.tool
