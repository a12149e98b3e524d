"""Compaction: the conversation so far replaced by a summary the model writes, when it nears the
context window (automatically, before a request) or when asked (/compact [focus]).

When to compact is the harness's `trigger` slot (by default: at the threshold, three quarters of
the model's context window when the vendor says it, else the user config's `compact_at` in tokens;
neither known, nothing is compacted unasked) and how, its `summarizer` slot (by default: the
session's model with COMPACT_SYSTEM). Tokens are
counted as the provider last reported them, or estimated (four characters a token) where that
is more. The summary is asked with a prompt that keeps the task, the decisions, the files touched
and what is left; a summary that does not shrink the conversation is refused and the old one
kept. Only the messages before the running prompt are summarised, so a turn's calls and results
stay paired. The session file keeps every message and records the compaction (its summary and
how many messages it replaced), so --resume rebuilds the same conversation; the policy's state
(stamps, session rules) lives in the gate and is untouched.

A sub-agent's conversation is one prompt (its task), so its compactor works `within_turn`: the
task prompt is kept as it is and the work after it (its replies and their results, all paired
before a request) is replaced by the summary, as the child's reply, and a line telling it to go on.
Nothing is tried while there is no work yet. Its compaction is recorded among the child's `task`
lines (bastion.agent._subagent); a child is never resumed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .._errors import BastionError
from ._types import AgentError, Assistant, Message, ToolResult, Usage, User
from .harness import SummarizerInput, TriggerInput

if TYPE_CHECKING:
    from .loop import Agent

__all__ = [
    "COMPACT_SYSTEM",
    "Compacted",
    "Compactor",
    "NotShrunk",
    "Space",
    "compact_at_setting",
    "estimate",
    "summary_messages",
    "work_summary_messages",
]

COMPACT_SYSTEM = """You summarise a coding session so that it can go on in less space.
Write a summary another engineer could continue from, keeping:
1. The task: what the user asked for, in their words where they matter.
2. The decisions made and why, and what the user allowed or refused.
3. The files touched: each file read, written or edited, and what changed in it.
4. The commands that mattered and what they showed.
5. What is left to do, and the next step.
Write only the summary, as short as it can be while keeping all of that."""

SUMMARY_HEAD = "[The conversation so far, summarised to save space]\n"
ACK = "Understood. I continue from this summary."
# A sub-agent's work replaced within its one prompt: its summary as its own reply, then go on.
WORK_HEAD = "[My work on the task so far, summarised to save space]\n"
GO_ON = "Go on with the task from where your summary leaves off."
# A tool result's text shown to the summariser is cut at this many characters.
RESULT_CHARS = 2_000


class NotShrunk(BastionError):
    """The summary would take as much space as what it replaces: the old conversation is kept."""


class Compacted(NamedTuple):
    replaced: int
    before_tokens: int
    after_tokens: int


class Space(NamedTuple):
    """What /context shows: tokens by part (estimated), the last reported prompt, and the limits."""

    system: int
    tools: int
    turns: int
    reported: int | None
    window: int | None
    threshold: int | None

    @property
    def used(self) -> int:
        return max(self.system + self.tools + self.turns, self.reported or 0)


def estimate(text: str) -> int:
    return (len(text) + 3) // 4


def _message_text(m: Message) -> str:
    if isinstance(m, User):
        return f"user: {m.text}"
    if isinstance(m, Assistant):
        calls = "".join(f"\n  call {c.name} {c.arguments}" for c in m.calls)
        return f"assistant: {m.text}{calls}"
    cut = m.content if len(m.content) <= RESULT_CHARS else m.content[:RESULT_CHARS] + " [...]"
    return f"result of {m.name}{' (error)' if m.is_error else ''}: {cut}"


def _tokens(messages: Sequence[Message]) -> int:
    total = 0
    for m in messages:
        if isinstance(m, ToolResult):
            total += estimate(m.content)
        elif isinstance(m, Assistant):
            total += estimate(m.text) + sum(estimate(c.arguments) + estimate(c.name) for c in m.calls)
        else:
            total += estimate(m.text)
    return total


def summary_messages(summary: str) -> list[Message]:
    """The two messages a summary becomes: the conversation goes on after them."""
    return [User(SUMMARY_HEAD + summary), Assistant(ACK)]


def work_summary_messages(summary: str) -> list[Message]:
    """The two messages a sub-agent's work since its prompt becomes."""
    return [Assistant(WORK_HEAD + summary), User(GO_ON)]


def compact_at_setting(extra: Mapping[str, Any]) -> int | None:
    """The user config's compact_at (already checked a positive whole number by the config's schema)."""
    value = extra.get("compact_at")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class Compactor:
    """Compacts one agent's conversation; `window` asks the model's context window (once, lazily),
    `record` writes a compaction to the session, `say` tells the person; `within_turn`: a
    sub-agent's (its work since its one prompt is what is summarised)."""

    def __init__(
        self,
        window: Callable[[], int | None],
        compact_at: int | None,
        record: Callable[[str, int, str], None],
        say: Callable[[str], None],
        *,
        within_turn: bool = False,
    ) -> None:
        self.within_turn = within_turn
        self._window_of = window
        self._window: int | None = None
        self._asked = False
        self.compact_at = compact_at
        self.record = record
        self.say = say
        self.reported: int | None = None
        self._refused_turn = -1

    @property
    def window(self) -> int | None:
        if not self._asked:
            self._asked, self._window = True, self._window_of()
        return self._window

    @property
    def threshold(self) -> int | None:
        return self.window * 3 // 4 if self.window else self.compact_at

    def space(self, agent: Agent) -> Space:
        tools = sum(estimate(json.dumps(s.parameters)) + estimate(s.description) for s in agent.tools.specs())
        return Space(
            estimate(agent.system), tools, _tokens(agent.messages), self.reported, self.window, self.threshold
        )

    def replied(self, usage: Usage) -> None:
        """A reply's usage: the prompt it answered plus its own output is what the next one sends."""
        self.reported = (
            usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens + usage.output_tokens
        ) or None

    def forget(self) -> None:
        self.reported = None

    def before_request(self, agent: Agent, turn_start: int, turn: int) -> int:
        """Compact ahead of a request when the turn's trigger says so; the new start of the
        running prompt in agent.messages. A compaction refused or failed is said, and the run goes
        on with the conversation as it was (and is not tried again this prompt)."""
        if turn == self._refused_turn:
            return turn_start
        if self.within_turn and len(agent.messages) <= turn_start + 1:
            return turn_start  # no work yet: nothing to summarise, and nothing tried
        given = TriggerInput(self.space(agent).used, self.threshold, self.window, turn)
        if not agent.turn_slots().trigger(given):
            return turn_start
        try:
            done = (
                self.compact_work(agent, turn_start)
                if self.within_turn
                else self.compact(agent, turn_start, "")
            )
        except (NotShrunk, AgentError) as err:
            self._refused_turn = turn  # tried once a prompt, not before every request
            self.say(f"compaction {'refused' if isinstance(err, NotShrunk) else 'failed'}: {err}")
            return turn_start
        self.say(f"compacted: {done.before_tokens} -> {done.after_tokens} tokens")
        return turn_start if self.within_turn else turn_start - done.replaced + 2

    def compact(self, agent: Agent, upto: int, focus: str) -> Compacted:
        """Replace agent.messages[:upto] by the summary the turn's summarizer writes; NotShrunk
        (nothing changed) when it does not shrink them. A model error is raised as it is, nothing
        changed."""
        old = agent.messages[:upto]
        if not old:
            raise NotShrunk("there is nothing before this prompt to summarise")
        summary = _summary(agent, old, focus)
        return self._replace(agent, slice(0, upto), summary_messages(summary), summary, focus)

    def compact_work(self, agent: Agent, prompt_at: int) -> Compacted:
        """A sub-agent's: replace its work after the prompt at `prompt_at` (kept, and shown to the
        summarizer with the work) by the summary; NotShrunk as `compact`."""
        work = agent.messages[prompt_at + 1 :]
        if not work:
            raise NotShrunk("there is no work since the task's prompt to summarise")
        summary = _summary(agent, agent.messages[prompt_at:], "")
        where = slice(prompt_at + 1, len(agent.messages))
        return self._replace(agent, where, work_summary_messages(summary), summary, "")

    def _replace(self, agent: Agent, where: slice, new: list[Message], summary: str, focus: str) -> Compacted:
        old = agent.messages[where]
        before, after = _tokens(old), _tokens(new)
        if not summary or after >= before:
            raise NotShrunk(
                f"the summary ({after} tokens) does not shrink the conversation ({before} tokens); "
                "the old one is kept"
            )
        agent.messages[where] = new
        self.reported = None  # the last reported prompt was of the old conversation
        self.record(summary, len(old), focus)
        return Compacted(len(old), before, after)


def _summary(agent: Agent, shown: Sequence[Message], focus: str) -> str:
    """What the turn's summarizer writes for `shown` (its requests' usage counted to the run)."""

    def ask(system: str, prompt: str) -> str:
        reply = agent.model.stream(system, [User(prompt)], (), lambda _delta: None)
        agent.usage.add(reply.usage)
        return reply.message.text

    transcript = "\n\n".join(_message_text(m) for m in shown)
    return agent.turn_slots().summarize(SummarizerInput(tuple(shown), transcript, focus, ask)).strip()
