"""`bastion audit --suggest`: the narrowest allow rules that would have let the asked calls run.

Only a call whose every asking subject is a plain command, a file tool's path or an MCP tool (its
rule names that one tool: `mcp(docs:search)`) can be covered. A call outside the subset, a governed
command whose arguments failed its check, a path outside the working directory, or anything an ask
rule names (the secret paths) is never covered: no rule is proposed for it, and it is listed apart.
Each proposed rule is checked with the engine before it is printed: it must allow every subject it
is proposed for. The narrowest rule for one subject is the policy's (`bastion.policy.rule_for`),
which a question's offer to remember a rule uses too.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..policy import Decision, Layer, Policy, Subject, narrowed, rule_for, warnings_for
from ._audit import Report
from ._decide import Decider, Outcome

__all__ = ["Suggestion", "render_toml", "suggest"]


@dataclass
class Suggestion:
    """One proposed allow rule: how many asked calls it is needed by, an example, its warnings."""

    rule: str
    calls: int = 0
    example: str = ""
    warnings: list[str] = field(default_factory=list)
    exact: set[str] = field(default_factory=set)


@dataclass
class Suggested:
    """The rules, the asked calls they cover, and the asked calls no rule should cover, by group."""

    rules: list[Suggestion]
    asked: int
    covered: int
    total: int
    uncovered: Counter[str]


def _asking(decider: Decider, o: Outcome) -> list[Subject] | str:
    """The subjects that ask on their own, or the group that keeps the call from being covered."""
    a = o.decided.analysis if o.decided is not None else None
    if o.decided is None or o.clamped or (a is not None and a.outside is not None):
        return o.group  # outside the subset, or a glob pattern outside the directory: no rule covers it
    gate = decider.gate(o.cwd)
    if isinstance(gate, str):
        return gate
    out = []
    for s in o.decided.subjects:
        v = gate.settings.policy.decide([s])
        if v.decision is Decision.ALLOW:
            continue
        if v.rule is not None or v.decision is Decision.DENY:
            return o.group
        if rule_for(s) is None:
            word = s.value.split(" ", 1)[0]
            return f"no narrow rule for {word}" if s.tool == "bash" and not s.sentinel else o.group
        out.append(s)
    return out or o.group


def suggest(report: Report, decider: Decider) -> Suggested:
    """The rules that cover the asked calls of `report` that a rule may cover."""
    rules: dict[str, Suggestion] = {}
    uncovered: Counter[str] = Counter()
    needs: list[tuple[Outcome, list[tuple[Subject, str]]]] = []
    asked = [o for o in report.outcomes if o.decision is Decision.ASK]
    for o in asked:
        found = _asking(decider, o)
        if isinstance(found, str):
            uncovered[found] += 1
            continue
        needs.append((o, [(s, r) for s in found if (r := rule_for(s)) is not None]))
    distinct: dict[str, set[str]] = {}
    for _, pairs in needs:
        for s, _ in pairs:
            if s.tool == "bash":
                distinct.setdefault(s.value.split(" ", 1)[0], set()).add(s.value)
    extra: dict[str, str] = {}
    final: list[tuple[Outcome, list[tuple[Subject, str]]]] = []
    for o, pairs in needs:
        chosen = []
        for s, r in pairs:
            rule, warning = narrowed(r, s.value, distinct)
            chosen.append((s, rule))
            extra[rule] = extra.get(rule) or warning
        final.append((o, chosen))
    check = Policy([Layer.user("(suggested)", allow=sorted({r for _, p in final for _, r in p if r}))])
    covered = 0
    for o, pairs in final:
        if not all(r and check.decide([s]).decision is Decision.ALLOW for s, r in pairs):
            uncovered["no narrow rule covers it"] += 1
            continue
        covered += 1
        for s, r in dict.fromkeys(pairs):
            sug = rules.setdefault(r, Suggestion(r, example=f"{o.call.where}: {s.value}"))
            sug.calls += 1
            sug.exact.add(s.value)
    for sug in rules.values():
        sug.warnings = [*warnings_for(sug.rule), *([extra[sug.rule]] if extra.get(sug.rule) else [])]
    ordered = sorted(rules.values(), key=lambda s: (-s.calls, s.rule))
    return Suggested(ordered, len(asked), covered, len(report.outcomes), uncovered)


def _comment(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")[:140]


def render_toml(found: Suggested, config_hint: str) -> str:
    """TOML to paste into the user's config: the rules with their counts and warnings as comments."""
    lines = [
        f"# bastion audit --suggest: {found.total} calls, {found.asked} asked; "
        f"these rules would let {found.covered} of the asked run unasked.",
        f"# Paste into your config ({config_hint}), merging with an allow list you already have.",
    ]
    if found.rules:
        lines += ["[policy]", "allow = ["]
        for sug in found.rules:
            plural = "call" if sug.calls == 1 else "calls"
            lines.append(f"    {json.dumps(sug.rule)},  # {sug.calls} {plural}, e.g. {_comment(sug.example)}")
            for warning in sug.warnings:
                lines.append(f"    # warning: {_comment(warning)}")
            only = next(iter(sug.exact)) if len(sug.exact) == 1 else ""
            exact = f"bash({only})"
            if (
                only
                and sug.rule.startswith("bash(")
                and sug.rule != exact
                and not any(c in only for c in "*()")
            ):
                lines.append(f"    # seen only as `{_comment(only)}`: {json.dumps(exact)} allows just that")
        lines.append("]")
    else:
        lines.append("# No allow rule to suggest.")
    if found.uncovered:
        lines.append("# Asked calls no allow rule should make run unasked:")
        for group, count in sorted(found.uncovered.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"#   {count:6}  {_comment(group)}")
    return "\n".join(lines) + "\n"


def rules_of(found: Suggested) -> Sequence[str]:
    return [s.rule for s in found.rules]
