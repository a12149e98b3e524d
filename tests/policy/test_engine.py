"""The engine: precedence across sources, lifts, builtin and fallback, constraints, folding."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.policy import Decision, Kind, Layer, Origin, Policy, RuleError, Source, Subject

A, Q, D = Decision.ALLOW, Decision.ASK, Decision.DENY
U, OUT = Kind.UNCHECKED, Kind.OUTSIDE
USER = "~/.config/bastion/config.toml"


def _policy(
    allow: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    project: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
    **options: object,
) -> Policy:
    layers = [
        Layer.user(USER, allow=allow, ask=ask, deny=deny),
        Layer.project(".bastion/config.toml", ask=project[0], deny=project[1]),
    ]
    return Policy(layers, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("policy", "subject", "decision"),
    [
        (_policy(), Subject("bash", "git status"), A),
        (_policy(), Subject("bash", "go version"), A),
        (_policy(), Subject("bash", "go version -v"), Q),
        (_policy(), Subject("bash", "make"), Q),
        (_policy(), Subject("read", "README.md"), A),
        (_policy(), Subject("read", ".env"), Q),
        (_policy(), Subject("ls", ".ssh"), Q),
        (_policy(), Subject("glob", "x/.aws/credentials"), Q),
        (_policy(), Subject("read", "x/ID_RSA"), Q),
        (_policy(), Subject("read", "docs/secretary.md"), Q),
        (_policy(), Subject("read", "environment.md"), A),
        # *.env.* is secret-looking beyond the reference, which lets my.env.go run.
        (_policy(), Subject("read", "my.env.go"), Q),
        (_policy(), Subject("read", "my.envelope.go"), A),
        (_policy(), Subject("read", "ident.go"), A),
        (_policy(), Subject("read", "docs/keys.md"), A),
        (_policy(), Subject("read", "KEYBOARD.md"), A),
        (_policy(), Subject("read", "/etc/passwd", kind=U), Q),
        (_policy(), Subject("write", "x"), Q),
        (_policy(deny=("bash(git log:*)",)), Subject("bash", "git log"), D),
        (_policy(ask=("bash(git log:*)",)), Subject("bash", "git log"), Q),
        (_policy(allow=("bash(rm:*)",), deny=("bash(rm -rf:*)",)), Subject("bash", "rm -rf /"), D),
        (
            _policy(allow=("bash",), ask=("bash(rm -i:*)",), deny=("bash(rm:*)",)),
            Subject("bash", "rm -i x"),
            D,
        ),
        (_policy(allow=("read(.env)",)), Subject("read", ".env"), A),
        (_policy(allow=("read(.env)",)), Subject("read", ".env.local"), Q),
        (_policy(allow=("read(.env)",)), Subject("read", "id_rsa"), Q),
        (_policy(allow=("read(.env)",)), Subject("grep", ".env"), Q),
        (_policy(allow=("Read(.env*)",)), Subject("grep", ".env"), A),
        (_policy(allow=("read(*)",)), Subject("read", "x/.ssh/id_rsa"), A),
        (_policy(allow=("read",)), Subject("read", ".env"), Q),
        (_policy(allow=("bash(cat:*)",)), Subject("read", ".env"), Q),
        (_policy(ask=("read(!.env.example)",)), Subject("read", ".env.example"), A),
        (_policy(ask=("read(!.env.example)",)), Subject("read", ".env"), Q),
        (
            _policy(deny=("read(.env*)", "read(!.env.example)"), fallback=A),
            Subject("read", ".env.example"),
            Q,
        ),
        (_policy(deny=("read(.env*)", "read(!.env.example)"), fallback=A), Subject("read", ".env"), D),
        (_policy(builtin=False), Subject("read", "x"), Q),
        (_policy(builtin=False, fallback=A), Subject("read", ".env"), Q),
        (_policy(builtin=False, fallback=A), Subject("bash", "git status"), A),
        (_policy(builtin=False, allow=("Read",)), Subject("grep", "x"), A),
        (_policy(fallback=D), Subject("bash", "rm -rf x"), D),
        (_policy(fallback=D), Subject("read", "x"), A),
        (_policy(fallback=A), Subject("bash", "rm -rf x"), A),
        (_policy(fallback=A), Subject("read", "/etc/passwd", kind=OUT), Q),
        (_policy(fallback=D), Subject("read", "/etc/passwd", kind=OUT), D),
        (_policy(ask=("bash(make:*)",), fallback=D), Subject("bash", "make"), D),
        (_policy(allow=("bash(make:*)",), ask=("bash(make:*)",), fallback=D), Subject("bash", "make"), Q),
        (
            _policy(allow=("bastion:links-unknown",), fallback=A),
            Subject("read", "x", kind=Kind.LINKS_UNKNOWN),
            Q,
        ),
        (_policy(deny=("bastion:*",)), Subject("read", "../x", kind=OUT), D),
        (_policy(allow=("bastion:x",), fallback=A), Subject("bastion:x", "{}"), Q),
        (_policy(deny=("bastion:*",)), Subject("bastion:x", "{}"), D),
        (_policy(project=(("bash(go test:*)",), ())), Subject("bash", "go test ./..."), Q),
        (_policy(project=((), ("bash(git log:*)",))), Subject("bash", "git log"), D),
        (_policy(project=((), ("bash(git log:*)",))), Subject("bash", "git status"), A),
        (_policy(project=(("read(secrets/**)",), ())), Subject("read", "secrets/key"), Q),
        (
            _policy(allow=("read(secrets/**)",), project=(("read(secrets/**)",), ())),
            Subject("read", "secrets/k"),
            Q,
        ),
    ],
)
def test_each_subject_is_decided_deny_then_ask_then_allow_then_fallback(
    policy: Policy, subject: Subject, decision: Decision
) -> None:
    assert policy.decide([subject]).decision is decision


@pytest.mark.parametrize(
    ("layers", "subject", "decision"),
    [
        (
            [Layer.project("p", ask=("bash(!git log:*)",)), Layer.user("u", ask=("bash(git log:*)",))],
            "git log",
            Q,
        ),
        (
            [Layer.project("p", deny=("bash(!git push:*)",)), Layer.user("u", deny=("bash(git push:*)",))],
            "git push",
            D,
        ),
        (
            [Layer.user("u", deny=("bash(!git push:*)",)), Layer.project("p", deny=("bash(git push:*)",))],
            "git push",
            A,
        ),
        (
            [Layer.user("u", ask=("bash(!git push:*)",)), Layer.user("v", deny=("bash(git push:*)",))],
            "git push",
            D,
        ),
        ([Layer.flags(deny=("bash(!git log:*)",)), Layer.user("u", deny=("bash(git log:*)",))], "git log", A),
    ],
)
def test_a_carve_out_cancels_only_same_list_rules_from_sources_not_ranking_above_it(
    layers: list[Layer], subject: str, decision: Decision
) -> None:
    assert Policy(layers, fallback=A).decide([Subject("bash", subject)]).decision is decision


@pytest.mark.parametrize("rank", [0, 2, 5])
def test_an_untrusted_source_allows_nothing_whatever_its_rank(rank: int) -> None:
    untrusted = Layer(Source(Origin.PROJECT, "x"), rank, False, "x", allow=("bash", "read(.env)"))
    subjects = [Subject("bash", "npm test"), Subject("read", ".env")]
    assert [Policy([untrusted]).decide([s]).decision for s in subjects] == [Q, Q]


@pytest.mark.parametrize(
    ("policy", "subject", "decision"),
    [
        (_policy(deny=("bash(rm:*)",)), Subject("bash", "rm -rf x", constraint=True), D),
        (_policy(ask=("bash(rm:*)",)), Subject("bash", "rm -rf x", constraint=True), Q),
        (_policy(), Subject("bash", "make", constraint=True), A),
        (_policy(fallback=D), Subject("bash", "make", constraint=True), A),
        (_policy(), Subject("read", ".env", constraint=True), Q),
    ],
)
def test_a_constraint_subject_only_ever_restricts(
    policy: Policy, subject: Subject, decision: Decision
) -> None:
    assert policy.decide([subject]).decision is decision


def test_a_constraint_never_allows_what_another_subject_asks_about() -> None:
    subjects = [Subject("bash", "timeout 5 make"), Subject("bash", "make", constraint=True)]
    assert _policy(allow=("bash(make:*)",)).decide(subjects).decision is Q


@pytest.mark.parametrize(
    ("policy", "subjects", "reason"),
    [
        (
            _policy(deny=("bash(rm:*)",)),
            [Subject("bash", "rm -rf x")],
            f'denied by bash(rm:*) from your config ({USER}) on "rm -rf x"',
        ),
        (_policy(), [Subject("bash", "make test")], 'asks: no rule allows bash "make test"'),
        (
            _policy(),
            [Subject("read", ".env")],
            'asks: Read(ci:.env*) from builtin on ".env" (a secret-looking path)',
        ),
        (
            _policy(),
            [Subject("bash", "echo $(x)", why="`$(` at column 6: command substitution", kind=U)],
            "asks: `$(` at column 6: command substitution; "
            'no rule allows bash "echo $(x)" (a part bastion cannot vouch for)',
        ),
        (
            _policy(),
            [Subject("read", "a/id_rsa", about="a file cat reads")],
            'asks: Read(ci:*/id_*) from builtin on "a/id_rsa" (a file cat reads; a secret-looking path)',
        ),
        (
            _policy(deny=("Bash(rm:*)",)),
            [Subject("bash", "git status"), Subject("bash", "rm x")],
            # an aliased rule is cited as written (issue 28), not respelled bash(rm:*)
            f'denied by Bash(rm:*) from your config ({USER}) on "rm x"; nothing in this call runs',
        ),
        (
            _policy(fallback=D),
            [Subject("bash", "a\nb")],
            'denied: no rule allows bash "a\\nb" (fallback deny)',
        ),
        ([], [], ""),
    ],
)
def test_a_reason_is_one_line_naming_the_rule_its_source_and_the_subject(
    policy: Policy, subjects: list[Subject], reason: str
) -> None:
    if not subjects:
        policy = _policy()
        reason = "asks: the call could not be evaluated (it has no subjects)"
    verdict = policy.decide(subjects)
    assert verdict.reason == reason and "\n" not in verdict.reason


@pytest.mark.parametrize(
    ("subjects", "decision", "cited"),
    [
        ([Subject("bash", "git status"), Subject("bash", "ls")], A, "git status"),
        (
            [Subject("bash", "git status"), Subject("bash", "npm publish"), Subject("bash", "make")],
            Q,
            "npm publish",
        ),
        ([Subject("bash", "git status"), Subject("bash", "rm -rf /"), Subject("bash", "ls")], D, "rm -rf /"),
        ([], Q, None),
    ],
)
def test_a_call_takes_its_most_restrictive_subject_first_of_equals(
    subjects: list[Subject], decision: Decision, cited: str | None
) -> None:
    verdict = _policy(deny=("bash(rm:*)",)).decide(subjects)
    assert verdict.decision is decision
    assert (verdict.subject.value if verdict.subject else None) == cited


def test_the_verdict_names_the_rule_and_its_source() -> None:
    verdict = _policy(deny=("bash(rm:*)",)).decide([Subject("bash", "rm x")])
    assert verdict.rule is not None and verdict.source is not None
    assert (verdict.rule.text, verdict.source) == ("bash(rm:*)", Source(Origin.USER, USER))
    assert verdict.source.tag == f"user:{USER}"


def test_an_exception_inside_the_engine_asks() -> None:
    broken = Subject("bash", None)  # type: ignore[arg-type]
    verdict = _policy(allow=("bash",), fallback=A).decide([broken])
    assert verdict.decision is Q and "AttributeError" in verdict.reason


@pytest.mark.parametrize(
    ("layer", "kind"),
    [
        (Layer.user(USER, allow=("mcp__*",)), "tool_glob"),
        (Layer.user(USER, deny=("deploy(staging)",)), "no_matcher"),
        (Layer.user(USER, ask=("Grep(x)",)), "no_matcher"),
        (Layer.user(USER, ask=("x", "bash()")), "empty_specifier"),
    ],
)
def test_a_rule_that_does_not_build_is_an_error_naming_its_entry(layer: Layer, kind: str) -> None:
    with pytest.raises(RuleError) as caught:
        Policy([layer])
    assert caught.value.kind == kind and caught.value.field.startswith(f"user:{USER}: policy.")


def test_a_decision_takes_tens_of_microseconds() -> None:
    policy = _policy(
        allow=("bash(make:*)", "write(docs/**)"), deny=("bash(rm:*)",), ask=("bash(go test -exec:*)",)
    )
    subjects = [Subject("bash", "git status"), Subject("read", "src/a/b.py"), Subject("bash", "make")]
    policy.decide(subjects)
    rounds = 2000
    start = time.perf_counter()
    for _ in range(rounds):
        policy.decide(subjects)
    assert (time.perf_counter() - start) / rounds < 500e-6


_RULES = st.sampled_from(
    ["bash", "bash(git:*)", "bash(rm:*)", "bash(*)", "read", "read(*.env)", "Read(docs/**)", "write",
     "mcp__*", "bash(:*)", "read(!x)", "bash(!git status)", "Edit(a)", "read(.env)"]
)  # fmt: skip
_SUBJECTS = st.builds(
    Subject,
    st.sampled_from(["bash", "read", "write", "grep", "mcp__x"]),
    st.sampled_from(["git status", "rm -rf x", "make", ".env", "docs/a.md", "a", "x", "git x"]),
    constraint=st.booleans(),
    kind=st.sampled_from([Kind.PLAIN, Kind.UNCHECKED]),
)
_LISTS = st.lists(_RULES, max_size=4).map(tuple)
_FALLBACK = st.sampled_from([A, Q, D])


@settings(max_examples=150, deadline=None)
@given(_LISTS, _LISTS, _LISTS, _FALLBACK, st.lists(_SUBJECTS, min_size=1, max_size=3), _RULES, st.booleans())
def test_adding_an_ask_or_deny_rule_or_a_project_config_never_loosens_a_verdict(
    allow: tuple[str, ...],
    ask: tuple[str, ...],
    deny: tuple[str, ...],
    fallback: Decision,
    subjects: list[Subject],
    extra: str,
    as_deny: bool,
) -> None:
    allow = tuple(r for r in allow if r != "mcp__*")
    before = _policy(allow, ask, deny, fallback=fallback).decide(subjects).decision
    if "!" in extra:
        return
    added = (ask, deny + (extra,)) if as_deny else (ask + (extra,), deny)
    assert _policy(allow, *added, fallback=fallback).decide(subjects).decision >= before
    project = ((), (extra,)) if as_deny else ((extra,), ())
    assert _policy(allow, ask, deny, project, fallback=fallback).decide(subjects).decision >= before


_EVERY_TOOL = ("bash", "read", "write", "grep", "mcp__*")
_ALLOW_EVERYTHING = ("bash", "bash(*)", "read(*)", "Read(**)", "write", "grep")


def _layer(source: str, *, allow: tuple[str, ...] = (), deny: tuple[str, ...] = ()) -> Layer:
    if source == "project":
        return Layer.project(".bastion/config.toml", deny=deny)
    if source == "flags":
        return Layer.flags(allow=allow, deny=deny)
    return Layer.user(USER, allow=allow, deny=deny)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_SUBJECTS, min_size=1, max_size=3),
    st.sampled_from(["user", "project", "flags"]),
    st.sampled_from(["user", "flags"]),
    _FALLBACK,
    st.booleans(),
)
def test_a_deny_always_beats_an_allow_whatever_the_sources(
    subjects: list[Subject], denier: str, allower: str, fallback: Decision, builtin: bool
) -> None:
    layers = [_layer(denier, deny=_EVERY_TOOL), _layer(allower, allow=_ALLOW_EVERYTHING)]
    assert Policy(layers, fallback=fallback, builtin=builtin).decide(subjects).decision is D
