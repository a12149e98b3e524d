"""Approvals that learn: the seam every front's question uses to offer a rule to remember and to
save it (the line REPL's `r` answer; the full-screen client's permission panel).

    learning = Learning(gate)                  # the session's gate (Asker.watch makes one: asker.learning)
    offer = learning.offer(call, args, verdict)   # an Offer, or None: nothing may be offered
    offer.rules, offer.path, offer.root        # the rules, the user's file, the project they apply in
    saved = learning.save(offer)               # Saved: written (and in force at once), or why not

What is offered, and never offered, is the policy's to say (bastion.policy's `offer_for`: the
narrowest allow rules for what asked, checked by deciding the call again with them added); the
words a person reads are `_plainly`'s (`offer_lines`, `saved_line`). A saved rule goes to the user's
file in this project's scope, is in force for the session's next decision (its gate adopts the
settings read back from what was written) and is told to `on_saved` (the session records it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from ...policy import ConfigError, Decision, Gate, Offer, Verdict, offer_for, remember
from ..runtime import ToolCall
from ._ask import Recorder

__all__ = ["Learning", "Offer", "Saved"]


class Saved(NamedTuple):
    """What became of an offer a person took: `done` (written and in force) or `why` not."""

    offer: Offer
    done: bool
    why: str = ""


class Learning:
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

    def offer(self, call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> Offer | None:
        """The rules to offer for a call the policy asks about (`verdict`), or None."""
        if verdict.decision is not Decision.ASK:
            return None
        decided = self.recorder.decided(args) if self.recorder is not None else None
        if decided is None:
            decided = self.gate.decide(call.name, args)
        if decided.decision is not Decision.ASK:
            return None
        return offer_for(decided, self.gate.settings, self.gate.ws)

    def save(self, offer: Offer) -> Saved:
        """Write the offer's rules to the user's file and put them in force for this session; a
        file that changed since the offer read it, or that cannot take them, is left as it is."""
        try:
            settings = remember(offer, self.gate.settings, self.gate.ws)
        except ConfigError as err:
            return Saved(offer, False, str(err))
        self.gate.adopt(settings)
        if self.on_saved is not None:
            self.on_saved(offer)
        return Saved(offer, True)
