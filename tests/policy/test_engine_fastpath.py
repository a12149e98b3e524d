"""The engine's shortcuts: the joined regex finds the same first rule as trying each rule in rank
order, and a remembered verdict is the one a fresh policy gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.policy import Decision, Layer, Policy, Subject

# Private: the engine's memo bound is the limit tested.
from bastion.policy._engine import _MEMO_SIZE

_PIECES = st.sampled_from(["git", "git log", "ls", "cat", "rm", "*", " ", "-", "x", ".env", "a/", "**", "S"])
_PATTERN = st.lists(_PIECES, min_size=1, max_size=4).map("".join).filter(lambda p: "(" not in p and p.strip())
_RULE = st.one_of(
    st.just("bash"),
    _PATTERN.map(lambda p: f"bash({p})"),
    _PATTERN.map(lambda p: f"bash({p}:*)"),
    _PATTERN.map(lambda p: f"read({p})"),
)
_VALUE = st.lists(_PIECES, max_size=5).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    allow=st.lists(_RULE, max_size=6),
    ask=st.lists(_RULE, max_size=4),
    tool=st.sampled_from(["bash", "read"]),
    value=_VALUE,
)
def test_the_first_matching_rule_is_the_same_as_a_scan_in_rank_order(
    allow: list[str], ask: list[str], tool: str, value: str
) -> None:
    policy = Policy([Layer.user("user", allow=tuple(allow), ask=tuple(ask))])
    subject = Subject(tool, value)
    for kind in ("deny", "ask", "allow"):
        named = policy._for(kind, tool)
        scanned = next((r for r in named.rules if r.matches(subject, loosening=False)), None)
        assert named.first(value) is scanned


@settings(max_examples=200, deadline=None)
@given(
    deny=st.lists(_RULE, max_size=3),
    ask=st.lists(_RULE, max_size=3),
    allow=st.lists(_RULE, max_size=4),
    calls=st.lists(
        st.lists(st.tuples(st.sampled_from(["bash", "read"]), _VALUE), min_size=1, max_size=3), max_size=6
    ),
)
def test_a_remembered_verdict_is_the_verdict_a_fresh_policy_gives(
    deny: list[str], ask: list[str], allow: list[str], calls: list[list[tuple[str, str]]]
) -> None:
    layers = [Layer.user("user", allow=tuple(allow), ask=tuple(ask), deny=tuple(deny))]
    remembering = Policy(layers)
    for call in calls + calls:
        subjects = [Subject(tool, value) for tool, value in call]
        assert remembering.decide(subjects) == Policy(layers).decide(subjects)


def test_a_full_memory_starts_over_and_still_answers_the_same() -> None:
    policy = Policy([Layer.user("user", allow=("bash(ls:*)",), deny=("bash(rm:*)",))])
    verdicts = [policy.decide([Subject("bash", f"ls {i}")]) for i in range(_MEMO_SIZE + 10)]
    assert len(policy._decided) <= _MEMO_SIZE
    assert all(v.decision is Decision.ALLOW for v in verdicts)
    assert policy.decide([Subject("bash", "rm -rf x")]).decision is Decision.DENY
    assert policy.decide([Subject("bash", "ls 0")]) == verdicts[0]
