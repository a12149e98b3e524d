"""Approvals that learn: the seam where a question offers a rule.

At a question, a front may offer the narrowest rule that would allow the call asked about and calls
like it, as the exact line it would add to the person's config, and save it there on request. What
makes that rule is a `Learning`: the policy's (`RulesLearnt`, which the line REPL and the terminal
client are handed, made on the session's gate when `Asker.watch` wraps it) or `NoLearning`, which
offers none (-p, the editor's front): the question then says that no rule is offered, and `r` saves
nothing.

What `RulesLearnt` offers, and never offers, is the policy's to say (`policy.offer_for`: the
narrowest allow rules for what asked, checked by deciding the call again with them added); the
words a person reads are `_plainly`'s. A saved rule goes to the user's file in this project's
scope, is in force for the session's next decision (the gate adopts the settings read back from
what was written) and is told to `on_saved` (the session records it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, Protocol

from ...policy import Decision, Gate, Offer, Verdict, offer_for, remember
from ..runtime import ToolCall
from ._ask import Recorder
from ._plainly import offer_line, saved_line

__all__ = ["Learning", "NoLearning", "RuleOffer", "RulesLearnt"]


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


class RulesLearnt:
    """Offers and saves the rules a question may remember, for one session's gate. `recorder` (the
    Asker's) gives what the gate decided for the call asked about, so it is not decided again."""

    def __init__(
        self,
        gate: Gate,
        recorder: Recorder | None = None,
        on_saved: Callable[[Offer], None] | None = None,
    ) -> None:
        self.gate = gate
        self.recorder = recorder
        self.on_saved = on_saved

    def offer(self, call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> RuleOffer | None:
        """The rules to offer for a call the policy asks about (`verdict`), or None."""
        if verdict.decision is not Decision.ASK:
            return None
        decided = self.recorder.decided(args) if self.recorder is not None else None
        if decided is None:
            decided = self.gate.decide(call.name, args)
        if decided.decision is not Decision.ASK:
            return None
        made = offer_for(decided, self.gate.settings, self.gate.ws)
        return RuleOffer(offer_line(made), made.path, made) if made is not None else None

    def save(self, offer: RuleOffer) -> str:
        """Write the offer's rules to the user's file and put them in force for this session; what
        was done, in words. A file that changed since the offer read it, or that cannot take them,
        is left as it is: ConfigError says why."""
        made = offer.made
        if made is None:
            raise ValueError("this offer was not made by the policy, so it is not saved")
        settings = remember(made, self.gate.settings, self.gate.ws)
        self.gate.adopt(settings)
        if self.on_saved is not None:
            self.on_saved(made)
        return saved_line(made)
