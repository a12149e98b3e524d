"""`bastion check --explain`: how a call was decided, step by step, for a person to read.

The parse (stages, words as bash will see them, redirects), each stage's checker result, the git
configuration probe, every subject with the verdict it gets alone and the rule and source that
decided it, the call's verdict, for an auto-allowed line the plan that runs and the facts its
stamp would bind, and for a bash line the sandbox it would run under. Nothing runs and no stamp is
made.
"""

from __future__ import annotations

import shlex
from typing import TextIO

from ..analyzer import Analysis, Fact, FactError, StageResult, plan_facts
from ..grammar import Operator, shown
from ..policy import Decided, Gate, cited, kind_note, named
from ..workspace import Workspace

__all__ = ["explain"]


def _stage(r: StageResult, out: TextIO) -> None:
    s = r.stage
    out.write(f"  stage {r.position + 1}: {s.text}   (in {r.cwd})\n")
    words = " ".join(shlex.quote(w.text) + ("  (glob)" if w.glob else "") for w in s.words)
    out.write(f"    words: {words}\n")
    if s.redirects:
        out.write(f"    redirects: {' '.join(x.value for x in s.redirects)}\n")
    c = r.check
    if not r.governed:
        command = shown(s.command)
        out.write(f"    checker: none: {command} is not a command bastion governs; the rules decide it\n")
        return
    state = (
        ("ok, runs unasked" if c.auto else "ok, but not unasked by itself") if c.ok else f"refused: {c.why}"
    )
    out.write(f"    checker: {state}\n")
    if c.reads:
        out.write(f"    reads: {', '.join(c.reads)}\n")
    if c.lists:
        out.write(f"    lists: {', '.join(c.lists)}\n")
    if c.depends:
        out.write(f"    depends on: {', '.join(c.depends)}\n")
    if c.words is not None and c.words != s.words:
        out.write(f"    runs as: {' '.join(shlex.quote(w.text) for w in c.words)}\n")
    if c.program:
        out.write(f"    program: {c.program}\n")
    if c.cwd is not None:
        out.write(f"    later stages run in: {c.cwd}\n")


def _parse(a: Analysis, out: TextIO) -> None:
    if a.outside is not None:
        out.write("parse: outside the subset\n")
        for line in a.outside.caret().splitlines():
            out.write(f"  {line}\n")
        out.write(f"  {a.outside.reason}\n")
        return
    out.write(f"parse: in the subset: {_joined(a)}, {_count(len(a.stages), 'stage')}\n")
    for r in a.stages:
        _stage(r, out)
    if a.probed:
        found = f"the repository's config runs a program: {a.git_reason}" if a.git_reason else "runs nothing"
        out.write(f"git: config probed in {', '.join(a.probed)}: {found}\n")
    elif a.git_reason:
        out.write(f"git: {a.git_reason}\n")


# How each operator that joins two pipelines is named.
_OPERATORS = {Operator.AND: "`&&`", Operator.OR: "`||`", Operator.SEMI: "`;`", Operator.NEWLINE: "a newline"}


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _joined(a: Analysis) -> str:
    """`2 pipelines joined by `;``: the pipelines, and the operators the line really has."""
    plan = a.plan
    if plan is None or len(plan.pipelines) < 2:
        return _count(len(plan.pipelines) if plan is not None else 0, "pipeline")
    names = list(dict.fromkeys(_OPERATORS[o] for o in plan.operators))
    said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"{_count(len(plan.pipelines), 'pipeline')} joined by {said}"


def _whole(decided: Decided) -> str:
    """What a line that does not run unasked is, as a whole, said before its subjects: one
    subject that asks (or is denied) decides the line, whatever the others are."""
    v = decided.verdict
    verb = {"ask": "asks", "deny": "is denied"}[str(v.decision)]
    which = f": {named(v.subject)} ({v.subject.about}) {verb}" if v.subject is not None else ""
    return (
        f"the line as a whole {verb}{which}; it would run unasked only if every subject below were allowed\n"
    )


def _fact(value: Fact) -> str:
    if isinstance(value, tuple) and value and value[0] == "is":
        kind, where, chain = value[2], value[1], value[3]
        links = f" through links {chain}" if chain else ""
        extra = f", {value[6]} bytes" if kind == "file" and len(value) > 6 else ""
        return f"{kind} {where}{links}{extra}"
    return str(value)


def _pairs(value: Fact) -> list[tuple[Fact, Fact]]:
    if not isinstance(value, tuple):
        return []
    return [(p[0], p[1]) for p in value if isinstance(p, tuple) and len(p) == 2]


def _facts(a: Analysis, ws: Workspace, out: TextIO) -> None:
    try:
        facts = plan_facts(a, ws)
    except (FactError, OSError, ValueError) as err:
        out.write(f"facts: cannot be read ({err}): the call would be refused when it runs\n")
        return
    if not isinstance(facts, tuple) or len(facts) != 4 or not isinstance(facts[1], tuple):
        out.write(f"facts: {facts}\n")
        return
    out.write(f"plan (what runs): {facts[0]}\n")
    out.write("facts the stamp binds (a change before it runs refuses it):\n")
    for stage in facts[1]:
        if not isinstance(stage, tuple) or len(stage) != 7:
            continue
        index = stage[0] if isinstance(stage[0], int) else 0
        out.write(f"  stage {index + 1} ({stage[1]}) in {stage[2]}: {_fact(stage[3])}\n")
        for name, fact in [*_pairs(stage[4]), *_pairs(stage[5]), *_pairs(stage[6])]:
            out.write(f"    {name}: {_fact(fact)}\n")
    for directory, repo in _pairs(facts[2]):
        if isinstance(repo, str):
            shown = f"the fingerprint of git's configuration files, {repo[:16]}"
        else:
            shown = _fact(repo[1]) if isinstance(repo, tuple) and len(repo) > 1 else str(repo)
        out.write(f"  git in {directory}: {shown}\n")
    for program, identity in _pairs(facts[3]):
        said = (
            "not found"
            if identity is None
            else f"device and inode {identity[:2]}"
            if isinstance(identity, tuple)
            else identity
        )
        out.write(f"  program {program}: {said}\n")


def explain(gate: Gate, decided: Decided, out: TextIO) -> None:
    """Write the explanation of a decided call."""
    a = decided.analysis
    if a is not None:
        out.write(f"line: {a.line}\n")
        _parse(a, out)
    policy = gate.settings.policy
    if a is not None and str(decided.verdict.decision) != "allow":
        out.write(_whole(decided))
    out.write("subjects (each decided alone):\n")
    if not decided.subjects:
        out.write("  none\n")
    for s in decided.subjects:
        v = policy.decide([s])
        notes = ["constraint: deny and ask rules only" if s.constraint else "", kind_note(s)]
        tag = "".join(f" [{note}]" for note in notes if note)
        out.write(f"  {v.decision!s:5}  {named(s)}  ({s.about}){tag}\n")
        by = f"{v.rule.text} from {cited(v.rule, v.source)}" if v.rule else "no rule: the fallback"
        out.write(f"         by {by}\n")
        if s.why:
            out.write(f"         why: {s.why}\n")
    v = decided.verdict
    out.write(f"decision: {v.decision}: {v.reason}\n")
    if v.rule:
        out.write(f"  rule: {v.rule.text} ({cited(v.rule, v.source)})\n")
    if gate.settings.sources:
        out.write(f"  config: {', '.join(gate.settings.sources)}\n")
    if a is not None and a.auto and str(v.decision) == "allow":
        _facts(a, gate.ws, out)
    elif a is not None and str(v.decision) == "allow":
        out.write(f"runs as typed (a rule allowed it, not the analyzer): {a.line}\n")
    if a is not None and str(v.decision) != "deny":
        from ..sandbox import describe  # the kernel's ABI, asked only to explain

        label = "sandbox" if str(v.decision) == "allow" else "sandbox, if approved"
        read_only = a.auto and a.rendered is not None
        sandbox = describe(gate.settings.sandbox, read_only=read_only, root=gate.ws.real_root)
        out.write(f"{label}: {sandbox}\n")
