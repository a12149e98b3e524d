"""The engine's joined regex finds the same first rule as trying each rule in rank order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.policy import Layer, Policy, Subject

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
