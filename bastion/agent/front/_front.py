"""What the fronts share: the permission question and reading its answer (the screen itself is
_screen.Printer's), and Events fanned out to several."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..._safe import safe_line
from ...policy import ConfigError, Gate, Offer, Verdict
from ..runtime import Agent, AgentError, Answer, Answerer, Events, Message, TaskOrigin, ToolCall, Usage
from ..runtime.harness import SlotFailure
from ._advice import advice
from ._ask import (
    AGAIN,
    PROJECT,
    SESSION,
    CallKey,
    Recorder,
    SessionRules,
    TextNow,
    cannot_work,
    describe,
    may_always,
    parse_reply,
)
from ._colour import Colour
from ._learn import Learning, NoLearning, RulesLearnt
from ._plainly import choices, detail, headline, not_saved, offer_lines, wrapped
from ._screen import Printer

if TYPE_CHECKING:
    from ...workspace import Workspace
    from ..mcp import McpToolbox
    from ..providers import Connection
    from ..sessions import Session
    from ..tools import SessionExtras, Toolbox

__all__ = ["Asker", "Build", "Built", "Fanout", "Printer", "Question"]


class Asker:
    """Asks a person about a call: says why it asks and what the call would do, then reads y, n or
    (where offered) a or r. A call whose "yes" could not work is refused unasked; a call allowed
    with `a` is allowed again, unasked, for the rest of the session (`on_rule` records it); with
    `r` (`offer_learn`, where the policy offers a rule: `learning`, made by `watch`), the rule is
    saved to the user's file for this project and in force at once (`on_learnt` records it)."""

    def __init__(
        self,
        read: Callable[[str], str | None],
        write: Callable[[str], None],
        cwd: str,
        colour: Colour,
        *,
        offer_always: bool = False,
        refuse_all: bool = False,
        on_rule: Callable[[CallKey], None] | None = None,
        offer_learn: bool = False,
        on_learnt: Callable[[Offer], None] | None = None,
    ) -> None:
        self.read = read
        self.write = write
        self.cwd = cwd
        self.colour = colour
        self.offer_always = offer_always
        self.refuse_all = refuse_all
        self.on_rule = on_rule
        self.offer_learn = offer_learn
        self.on_learnt = on_learnt
        self.rules = SessionRules()
        self.recorder: Recorder | None = None
        # What offers a rule to remember at a question: none until `watch` (with `offer_learn`).
        self.learning: Learning = NoLearning()
        # Where a question's diff reads the file's text (None: the disk; an editor's buffers).
        self.text_now: TextNow | None = None
        # The terminal's width, which a question's words are wrapped to.
        self.width: Callable[[], int] = lambda: shutil.get_terminal_size().columns

    def watch(self, gate: Gate) -> Recorder:
        """The gate, wrapped so a question can show what the analyzer found (a caret); `learning`
        offers and saves rules for it."""
        self.recorder = Recorder(gate)
        if self.offer_learn:
            self.learning = RulesLearnt(gate, self.recorder, self._learnt)
        return self.recorder

    def _learnt(self, offer: Offer) -> None:
        if self.on_learnt is not None:
            self.on_learnt(offer)

    def labelled(self, label: str) -> Answerer:
        """The questions of a sub-agent: asked as the others, its label before the tool's name."""

        def ask(call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> Answer:
            return self(call, args, verdict, label=label)

        return ask

    def __call__(
        self, call: ToolCall, args: Mapping[str, object], verdict: Verdict, *, label: str = ""
    ) -> Answer:
        refusal = cannot_work(call, verdict)
        if refusal is not None:
            return Answer(False, refusal, by="rule")
        key = CallKey.of(call, args)
        if self.rules.allows(key):
            return Answer(True, "", by="session rule")
        answer, again = self.put(self.question(call, args, verdict, label))
        if again:
            self.rules.add(key)
            if self.on_rule is not None:
                self.on_rule(key)
        return answer

    def question(
        self, call: ToolCall, args: Mapping[str, object], verdict: Verdict, label: str = ""
    ) -> Question:
        """What a question about this call says, as facts."""
        decided = self.recorder.decided(args) if self.recorder is not None else None
        return Question(
            call,
            args,
            verdict,
            f"{label} {call.name}" if label else call.name,
            headline(call.name, args, verdict, decided.analysis if decided is not None else None),
            detail(verdict),
            describe(call, args, decided, self.cwd, self.colour, self.text_now),
            self.offer_always and may_always(verdict),
        )

    def put(self, question: Question) -> tuple[Answer, bool]:
        """Show the question and read its answer: y, n, (where offered) a or r, with a note or a
        reason after it; the second value says whether the call is allowed again for the session.
        With r, the rule offered is saved (and said so, or why not) and the call allowed."""
        width = self.width()
        offer = self.learning.offer(question.call, question.args, question.verdict)
        shown = wrapped(safe_line(f"? {question.who}: {question.plain}"), width, paint=self.colour.bold)
        said = wrapped(safe_line(question.policy), width - 2, indent="", paint=self.colour.dim)
        shown += [f"  {line}" for line in said]
        shown += question.shown
        always = question.always
        if offer is not None and offer.made is not None:
            shown += [safe_line(line) for line in offer_lines(offer.made, width, always)]
        elif offer is not None:
            saves = wrapped(f"r saves {offer.line} to {offer.where}", width - 2)
            shown += [f"  {safe_line(line)}" for line in saves]
        self.write("\n".join(shown) + "\n")
        # Broken between words to the terminal, as the lines above: never inside a word.
        asked = safe_line(f"allow {question.who}? {choices(always, offer is not None)}")
        prompt = "\n".join(wrapped(asked, width, indent="")) + " "
        if self.refuse_all:
            self.write(prompt + "n (--yes-to none)\n")
            return Answer(False, "", by="flag"), False
        answer, keep = parse_reply(self.read(prompt), always=always, learn=offer is not None)
        while keep == AGAIN:  # `a` or `r` where it is not offered: said, and asked again
            self.write(safe_line(answer.note) + "\n")
            answer, keep = parse_reply(self.read(prompt), always=always, learn=offer is not None)
        if keep == PROJECT and offer is not None:
            try:
                done = self.learning.save(offer)
            except (ConfigError, ValueError, OSError) as err:
                done = not_saved(err)
            self.write("\n".join(wrapped(safe_line(done), width, paint=self.colour.dim)) + "\n")
        return answer, keep == SESSION


@dataclass(frozen=True, slots=True)
class Question:
    """A question about one call, in fields: who asks (a sub-agent's label, the tool), what the call
    would do in plain words, the policy's part (the rule that asked and its source, or that none
    allows it), what the call would do shown (a diff, the command with a caret where bastion stopped
    reading, the arguments), and whether "allow this exact call for the session" is offered."""

    call: ToolCall
    args: Mapping[str, object]
    verdict: Verdict
    who: str
    plain: str
    policy: str
    shown: list[str]
    always: bool


class Fanout(Events):
    """Several Events as one."""

    def __init__(self, *targets: Events) -> None:
        self.targets = targets

    def _each(self, name: str) -> Callable[..., None]:
        def call(*args: object) -> None:
            for t in self.targets:
                getattr(t, name)(*args)

        return call

    def text(self, delta: str) -> None:
        self._each("text")(delta)

    def thought(self, delta: str) -> None:
        self._each("thought")(delta)

    def request(self, messages: int) -> None:
        self._each("request")(messages)

    def message(self, message: Message, usage: Usage | None = None) -> None:
        self._each("message")(message, usage)

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        self._each("verdict")(call, verdict, answer)

    def error(self, call: ToolCall, reason: str) -> None:
        self._each("error")(call, reason)

    def started(self, call: ToolCall) -> None:
        self._each("started")(call)

    def finished(self, call: ToolCall) -> None:
        self._each("finished")(call)

    def slot_failed(self, failure: SlotFailure) -> None:
        self._each("slot_failed")(failure)

    def spent(self, usage: Usage, replies: int) -> None:
        self._each("spent")(usage, replies)

    def withdrawn(self, message: Message) -> None:
        self._each("withdrawn")(message)

    def cleared(self) -> None:
        self._each("cleared")()

    def subtask(self, origin: TaskOrigin) -> Events:
        return Fanout(*(t.subtask(origin) for t in self.targets))


@dataclass(slots=True)
class Built:
    """A session as the wiring made it, what a front runs: its agent, its record, the provider's
    connection, and what must be closed with it."""

    agent: Agent
    session: Session
    model_name: str
    provider: str
    connection: Connection
    key_from: str = ""
    mcp: McpToolbox | None = None
    extras: SessionExtras | None = None
    workspace: Workspace | None = None
    toolbox: Toolbox | None = None  # the built-in tools (an editor's front gives them its buffers)

    def close(self) -> None:
        """End the session's record, stop its MCP servers and close an executor's pipe."""
        self.session.close()
        if self.mcp is not None:
            self.mcp.close()
        from ...workspace import ExecutorWorkspace

        if isinstance(self.workspace, ExecutorWorkspace):
            self.workspace.close()

    def advice(self, err: AgentError) -> str | None:
        return advice(err, self.provider, self.connection.base_url, self.key_from)


# What makes a front's session: the CLI's arguments, the environment, the working directory, the
# front's printer and answerer (bastion/agent/_wiring.build).
Build = Callable[[argparse.Namespace, Mapping[str, str], str, Printer, Answerer], Built]
