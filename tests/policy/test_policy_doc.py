"""Every example in docs/policy.md holds: its tables of decisions, its rule errors, its TOML."""

from __future__ import annotations

import pathlib
import re

import pytest

from bastion.policy import ConfigError, Decision, Kind, Layer, Policy, RuleError, Subject, load_settings
from bastion.workspace import LocalWorkspace

DOC = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "policy.md").read_text(encoding="utf-8")
USER = "~/.config/bastion/config.toml"


def _rows(header: str) -> list[list[str]]:
    rows: list[list[str]] = []
    inside = False
    for line in DOC.splitlines():
        if line.startswith(header):
            inside = True
        elif inside and line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
        elif not line.startswith("|"):
            inside = False
    return rows


def _code(cell: str) -> str:
    return cell.split("`")[1]


def _policy(rules: str) -> Policy:
    lists: dict[str, list[str]] = {k: [] for k in ("allow", "ask", "deny", "project-ask", "project-deny")}
    options: dict[str, object] = {}
    for item in [] if rules == "(none)" else rules.split(" ; "):
        if "=" in item and ":" not in item:
            key, value = item.split("=")
            options[key] = Decision[value.upper()] if key == "fallback" else value == "true"
        else:
            kind, rule = item.split(": ", 1)
            lists[kind].append(rule)
    layers = [
        Layer.user(USER, allow=lists["allow"], ask=lists["ask"], deny=lists["deny"]),
        Layer.project(".bastion/config.toml", ask=lists["project-ask"], deny=lists["project-deny"]),
    ]
    return Policy(layers, **options)  # type: ignore[arg-type]


DECISIONS = _rows("| rules | subject | decision |")


def test_the_doc_has_decision_examples() -> None:
    assert len(DECISIONS) >= 40


@pytest.mark.parametrize(("rules", "subject", "decision"), DECISIONS)
def test_each_decision_example_in_the_doc_holds(rules: str, subject: str, decision: str) -> None:
    tool, value = _code(subject).split(" ", 1)
    kind = subject.split("`")[2].strip(" ()") or "plain"  # `read ../x` (outside)
    verdict = _policy(_code(rules) if "`" in rules else rules).decide([Subject(tool, value, kind=Kind(kind))])
    assert str(verdict.decision) == decision, verdict.reason


@pytest.mark.parametrize(("kind", "example", "why"), _rows("| kind | example | why |"))
def test_each_rule_error_example_in_the_doc_is_refused_with_its_kind(
    kind: str, example: str, why: str
) -> None:
    rule = _code(example).strip('"')
    with pytest.raises(RuleError) as caught:
        Policy([Layer.user(USER, allow=(rule,))])
    assert caught.value.kind == kind.strip("`")


TOML = re.findall(r"```toml (\w+)\n(.*?)```", DOC, re.DOTALL)


@pytest.mark.parametrize(("role", "text"), TOML)
def test_each_config_example_in_the_doc_loads_as_it_says(
    tmp_path: pathlib.Path, role: str, text: str
) -> None:
    root = tmp_path / "ws"
    (root / ".bastion").mkdir(parents=True)
    user = tmp_path / "user.toml"
    user.write_text(text if role == "user" else "", encoding="utf-8")
    if role != "user":
        (root / ".bastion" / "config.toml").write_text(text, encoding="utf-8")
    if role == "refused":
        with pytest.raises(ConfigError, match="your own config"):
            load_settings(LocalWorkspace(str(root)), str(user))
    else:
        settings = load_settings(LocalWorkspace(str(root)), str(user))
        assert len(settings.sources) == 1 + (role == "project")
