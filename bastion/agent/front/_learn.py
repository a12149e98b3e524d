"""Approvals that learn: the seam where a question offers a rule.

At a question, a front may offer the narrowest rule that would allow the call asked about and calls
like it, as the exact line it would add to the person's config, and save it there on request. What
makes that rule is a `Learning`: the policy's (`_learnt.RulesLearnt`, which the line REPL and the
terminal client are handed, through the session's gate) or `NoLearning`, which offers none (-p, the
editor's front): the question then says that no rule is offered, and `r` saves nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Protocol

from ...policy import Offer, Verdict
from ..runtime import ToolCall

__all__ = ["Learning", "NoLearning", "RuleOffer"]


class RuleOffer(NamedTuple):
    """A rule offered at a question: `line` is exactly what would be written in the config
    (`allow = ["bash(npm test:*)"]`), `where` the file it would be written to; `made`, the policy's
    offer it stands for (its rules, the project they apply in, what they let through besides this
    call), which `save` writes."""

    line: str
    where: str
    made: Offer | None = None


class Learning(Protocol):
    def offer(self, call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> RuleOffer | None:
        """The narrowest rule that would allow this call and calls like it; None when none is
        offered (a secret-looking path, a write outside the workspace, a call a shipped deny
        covers, or no rule narrow enough)."""
        ...

    def save(self, offer: RuleOffer) -> str:
        """Save the rule where its offer says, effective at once; what was done, in words. A
        failure raises ConfigError with its one-line reason."""
        ...


class NoLearning:
    """Offers no rule: a front where a question may not remember one (-p, the editor's)."""

    def offer(self, call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> RuleOffer | None:
        return None

    def save(self, offer: RuleOffer) -> str:
        raise ValueError("no rule is offered, so none is saved")
