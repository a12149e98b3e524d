"""atheris harness: the rule parser raises only RuleError, and a parsed rule builds a policy."""

from __future__ import annotations

from bastion.policy import Layer, Policy, PolicyError, parse_rule


def check(data: bytes) -> None:
    text = data.decode("utf-8", "surrogateescape")
    try:
        parse_rule(text)
    except PolicyError:
        return
    try:
        Policy([Layer.user("/fuzz", allow=(text,), deny=(text,))])
    except PolicyError:
        return
