"""Approvals that learn: the seam where a question offers a rule.

At a question, a front may offer the narrowest rule that would allow the call asked about and calls
like it, as the exact line it would add to the person's config, and save it there on request. What
makes that rule is a `Learning`; the terminal client shows its offer in the permission panel (its
`r` key saves it). Until a Learning that offers rules is wired in, every front is handed
`NoLearning`, which offers none: the panel then says that no rule is offered, and `r` saves nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Protocol

from ...policy import Verdict
from ..runtime import ToolCall

__all__ = ["Learning", "NoLearning", "RuleOffer"]


class RuleOffer(NamedTuple):
    """A rule offered at a question: `line` is exactly what would be written in the config
    (`allow = ["bash(npm test:*)"]`), `where` the file it would be written to."""

    line: str
    where: str


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
    """Offers no rule: what every front is handed until approvals learn."""

    def offer(self, call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> RuleOffer | None:
        return None

    def save(self, offer: RuleOffer) -> str:
        raise ValueError("no rule is offered, so none is saved")
