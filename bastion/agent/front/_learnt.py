"""Approvals that learn, as the policy says: the `Learning` the line REPL and the terminal client
are handed (through the session's gate, when `Asker.watch` wraps it).

    learning = RulesLearnt(gate, recorder, on_saved)
    offer = learning.offer(call, args, verdict)   # a RuleOffer, or None: nothing may be offered
    said = learning.save(offer)                   # written and in force at once; ConfigError if not

What is offered, and never offered, is the policy's to say (bastion.policy's `offer_for`: the
narrowest allow rules for what asked, checked by deciding the call again with them added); the
words a person reads are `_plainly`'s (`offer_line`, `saved_line`). A saved rule goes to the user's
file in this project's scope, is in force for the session's next decision (its gate adopts the
settings read back from what was written) and is told to `on_saved` (the session records it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...policy import Decision, Gate, Offer, Verdict, offer_for, remember
from ..runtime import ToolCall
from ._ask import Recorder
from ._learn import RuleOffer
from ._plainly import offer_line, saved_line

__all__ = ["RulesLearnt"]


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
