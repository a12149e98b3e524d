"""Compaction: parts of the conversation replaced by a summary the model writes, when it nears the
context window (automatically, before a request) or when asked (/compact [focus]).

When to compact is the harness's `trigger` slot (by default: at the threshold, the user config's
`compact_at` in tokens, else three quarters of the model's context window, which is always known:
bastion.agent.providers._windows) and how, its `summarizer` slot (by default: the session's model
with COMPACT_SYSTEM). Tokens are counted as the provider last reported them, or estimated (four
characters a token) where that is more. The summary is asked with a prompt that keeps the task,
the decisions, the files touched and what is left; a summary that does not shrink what it replaces
is refused and the old messages kept.

Before a request over the threshold, two parts may be compacted, each only while the trigger still
fires, each by a summary of its own:
1. the conversation before the running prompt: it becomes the summary (as a user message) and an
   acknowledgement;
2. the running prompt's own work (its replies and their results, all paired before a request): the
   prompt is kept as it is, the latest rounds (a reply and its results) are kept whole as far as
   they fit in a quarter of the threshold, and the rounds before them become the summary (as the
   model's own reply) and a line telling it to go on. A sub-agent's conversation is one prompt (its
   task), so only this part is ever compacted there.
Nothing is tried while there is neither; a compaction refused or failed is said, and not tried again
that prompt until its work has grown by what the latest rounds kept whole may take (a quarter of the
threshold), so a long `-p` run, one prompt, is compacted once there is more to summarise. A request
still over the window afterwards (or with the trigger `never`) is sent as it is, and said so once a
prompt: nothing is sent over the window unseen.

The session file keeps every message and records each compaction (its summary, how many messages it
replaced, and `start`: 0 for the conversation before the prompt, else the index of the first
message of the work replaced), so --resume rebuilds the same conversation; a sub-agent's are among
its `task` lines (bastion.agent.subagents._subagent; a child is never resumed). The transcript's tool trace
is made from the calls as they are decided, so it keeps every call. The policy's state (stamps,
session rules) lives in the gate and is untouched.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..._errors import BastionError
from ...config import AgentConfig
from ._options import ModelRequest
from ._types import AgentError, Assistant, Message, ToolResult, Usage, User
from .harness import SummarizerInput, TriggerInput
from .seams import ContextWindow, Conversation

__all__ = [
    "Compacted",
    "Compactor",
    "NotShrunk",
    "Record",
    "Space",
    "compact_at_setting",
    "estimate",
    "summary_messages",
    "work_summary_messages",
]


SUMMARY_HEAD = "[The conversation so far, summarised to save space]\n"
ACK = "Understood. I continue from this summary."
# The running prompt's work replaced within it: its summary as the model's own reply, then go on.
WORK_HEAD = "[My work on the task so far, summarised to save space]\n"
GO_ON = "Go on with the task from where your summary leaves off."
# A tool result's text shown to the summariser is cut at this many characters (fewer, down to
# RESULT_FLOOR, when the whole would not fit in half the window).
RESULT_CHARS = 2_000
RESULT_FLOOR = 200
# The latest rounds of the running prompt's work kept whole: at most this share of the threshold.
KEEP_SHARE = 4

# Writes a compaction to the record: (summary, messages replaced, focus, start).
Record = Callable[[str, int, str, int], None]


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
    window: ContextWindow
    threshold: int

    @property
    def used(self) -> int:
        return max(self.system + self.tools + self.turns, self.reported or 0)


def estimate(text: str) -> int:
    return (len(text) + 3) // 4


def _message_text(m: Message, cut: int = RESULT_CHARS) -> str:
    if isinstance(m, User):
        return f"user: {m.text}"
    if isinstance(m, Assistant):
        calls = "".join(f"\n  call {c.name} {c.arguments}" for c in m.calls)
        return f"assistant: {m.text}{calls}"
    shown = m.content if len(m.content) <= cut else m.content[:cut] + " [...]"
    return f"result of {m.name}{' (error)' if m.is_error else ''}: {shown}"


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
    """The two messages a summary of the conversation before a prompt becomes."""
    return [User(SUMMARY_HEAD + summary), Assistant(ACK)]


def work_summary_messages(summary: str) -> list[Message]:
    """The two messages a summary of a prompt's own work becomes (after the prompt, kept)."""
    return [Assistant(WORK_HEAD + summary), User(GO_ON)]


def compact_at_setting(config: AgentConfig) -> int | None:
    """The user config's compact_at (a positive whole number, checked by the config's table)."""
    return config.compact_at


def windows_setting(config: AgentConfig) -> dict[str, int]:
    """The user config's `[context_windows]` (checked by its table: a name or a family ending in
    `*`, each a positive whole number of tokens)."""
    return dict(config.context_windows or {})


def _is_summary(messages: Sequence[Message]) -> bool:
    """The conversation before a prompt is a summary already: compacting it again gains nothing."""
    return (
        len(messages) == 2
        and isinstance(messages[0], User)
        and messages[0].text.startswith(SUMMARY_HEAD)
        and messages[1] == Assistant(ACK)
    )


def _rounds(work: Sequence[Message]) -> list[int]:
    """Where each round of a prompt's work begins: at each reply (its results, and a GO_ON after a
    work summary, belong to the reply before them)."""
    return [i for i, m in enumerate(work) if isinstance(m, Assistant)] or [0]


def _kept_from(work: Sequence[Message], budget: int) -> int:
    """The index in `work` from which its latest whole rounds fit in `budget` tokens (len(work):
    none fits)."""
    kept = len(work)
    for begin in reversed(_rounds(work)):
        if _tokens(work[begin:]) > budget:
            break
        kept = begin
    return kept


class Compactor:
    """Compacts one agent's conversation; `window` gives a model's context window (asked once per
    model, when first needed: a /model to another is asked again), `record` writes a compaction to
    the session, `say` tells the person."""

    def __init__(
        self,
        window: Callable[[str], ContextWindow],
        compact_at: int | None,
        record: Record,
        say: Callable[[str], None],
    ) -> None:
        self._window_of = window
        self._windows: dict[str, ContextWindow] = {}
        self.compact_at = compact_at
        self.record = record
        self.say = say
        self.reported: int | None = None
        # The prompt (turn) in which a compaction was refused and the tokens used then; the prompt
        # in which that of the conversation before the prompt alone was (that part does not grow
        # within a prompt); and the one told its request is over the window.
        self._refused: tuple[int, int] = (-1, 0)
        self._before_refused_turn = -1
        self._warned_turn = -1

    def for_child(self, record: Record, label: str) -> Compactor:
        """A sub-agent's compactor: the same windows and compact_at, its compactions written by
        `record` among its lines and said under its `label` ("[task 1: explore]")."""

        def said(text: str) -> None:
            self.say(f"{label[1:-1]}: {text}")

        return Compactor(self._window_of, self.compact_at, record, said)

    def window(self, agent: Conversation) -> ContextWindow:
        """The window of the model the agent talks to now."""
        name = agent.model.options.model
        if name not in self._windows:
            self._windows[name] = self._window_of(name)
        return self._windows[name]

    def threshold(self, agent: Conversation) -> int:
        return self.compact_at or self.window(agent).tokens * 3 // 4

    def space(self, agent: Conversation) -> Space:
        tools = sum(estimate(json.dumps(s.parameters)) + estimate(s.description) for s in agent.tools.specs())
        window, threshold = self.window(agent), self.threshold(agent)
        return Space(estimate(agent.system), tools, _tokens(agent.messages), self.reported, window, threshold)

    def replied(self, usage: Usage) -> None:
        """A reply's usage: the prompt it answered plus its own output is what the next one sends."""
        self.reported = (
            usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens + usage.output_tokens
        ) or None

    def forget(self) -> None:
        self.reported = None

    def _fires(self, agent: Conversation, turn: int) -> bool:
        space = self.space(agent)
        given = TriggerInput(space.used, space.threshold, space.window.tokens, turn)
        return agent.turn_slots().trigger(given)

    def before_request(self, agent: Conversation, turn_start: int, turn: int) -> int:
        """Compact ahead of a request when the turn's trigger says so (the conversation before the
        running prompt first, then the prompt's own work if the trigger still fires); the new start
        of the running prompt in agent.messages. A compaction refused or failed is said, and the run
        goes on with the conversation as it was (not tried again this prompt until its work has
        grown by a quarter of the threshold)."""
        has_work = len(agent.messages) > turn_start + 1
        before = bool(turn_start) and not _is_summary(agent.messages[:turn_start])
        before = before and turn != self._before_refused_turn
        refused_turn, refused_used = self._refused
        grown = self.space(agent).used >= refused_used + self.threshold(agent) // KEEP_SHARE
        if (turn != refused_turn or grown) and (before or has_work) and self._fires(agent, turn):
            try:
                if before:
                    turn_start = self._before_prompt(agent, turn_start, turn, last=not has_work)
                if has_work and (not before or self._fires(agent, turn)):
                    self._said(self.compact_work(agent, turn_start), "this prompt's own work")
            except (NotShrunk, AgentError) as err:
                self._refused = (turn, self.space(agent).used)  # not again before every request
                self.say(f"compaction {'refused' if isinstance(err, NotShrunk) else 'failed'}: {err}")
        self._over_window(agent, turn)
        return turn_start

    def _before_prompt(self, agent: Conversation, turn_start: int, turn: int, *, last: bool) -> int:
        """Compact what comes before the running prompt; its new index. Refused, the prompt's work
        (when it has some) is tried all the same."""
        try:
            done = self.compact(agent, turn_start, "")
        except NotShrunk as err:
            if last:
                raise
            self._before_refused_turn = turn
            self.say(f"compaction of the conversation before this prompt refused: {err}")
            return turn_start
        self._said(done, "the conversation before this prompt")
        return turn_start - done.replaced + 2

    def _said(self, done: Compacted, what: str) -> None:
        self.say(f"compacted: {done.before_tokens} -> {done.after_tokens} tokens ({what})")

    def _over_window(self, agent: Conversation, turn: int) -> None:
        used, window = self.space(agent).used, self.window(agent)
        if used > window.tokens and turn != self._warned_turn:
            self._warned_turn = turn
            self.say(
                f"this request takes about {used} tokens, over the model's context window of "
                f"{window.tokens} ({window.said()}); it is sent as it is, and the server may refuse it"
            )

    def compact(self, agent: Conversation, upto: int, focus: str) -> Compacted:
        """Replace agent.messages[:upto] by the summary the turn's summarizer writes; NotShrunk
        (nothing changed) when it does not shrink them. A model error is raised as it is, nothing
        changed."""
        old = agent.messages[:upto]
        if not old:
            raise NotShrunk("there is nothing before this prompt to summarise")
        summary = self._summary(agent, old, focus)
        return self._replace(agent, 0, upto, summary_messages(summary), summary, focus)

    def compact_work(self, agent: Conversation, prompt_at: int) -> Compacted:
        """Replace the work after the prompt at `prompt_at` (kept, and shown to the summarizer with
        the work) by the summary, but for its latest rounds that fit in a quarter of the threshold;
        NotShrunk as `compact`."""
        work = agent.messages[prompt_at + 1 :]
        end = prompt_at + 1 + _kept_from(work, self.threshold(agent) // KEEP_SHARE)
        if end == prompt_at + 1:
            raise NotShrunk(
                "this prompt's work is only its latest results, which are kept whole"
                if work
                else "there is no work since the prompt to summarise"
            )
        summary = self._summary(agent, agent.messages[prompt_at:end], "")
        return self._replace(agent, prompt_at + 1, end, work_summary_messages(summary), summary, "")

    def _replace(
        self, agent: Conversation, start: int, end: int, new: list[Message], summary: str, focus: str
    ) -> Compacted:
        old = agent.messages[start:end]
        before, after = _tokens(old), _tokens(new)
        if not summary or after >= before:
            raise NotShrunk(
                f"the summary ({after} tokens) does not shrink the conversation ({before} tokens); "
                "the old one is kept"
            )
        agent.messages[start:end] = new
        self.reported = None  # the last reported prompt was of the old conversation
        self.record(summary, len(old), focus, start)
        return Compacted(len(old), before, after)

    def _summary(self, agent: Conversation, shown: Sequence[Message], focus: str) -> str:
        """What the turn's summarizer writes for `shown` (its requests' usage counted to the run)."""

        def ask(system: str, prompt: str) -> str:
            reply = agent.model.stream(ModelRequest(agent.model.options, system, (User(prompt),)))
            agent.usage.add(reply.usage)
            return reply.message.text

        transcript = _transcript(shown, self.window(agent).tokens // 2)
        return agent.turn_slots().summarize(SummarizerInput(tuple(shown), transcript, focus, ask)).strip()


def _transcript(shown: Sequence[Message], budget: int) -> str:
    """`shown` as text for the summariser, within `budget` tokens: each result cut at RESULT_CHARS,
    fewer (down to RESULT_FLOOR) when the whole would not fit; what is still over is left out of
    the middle, saying how much, so the summariser's own request never outgrows the window."""
    text = "\n\n".join(_message_text(m) for m in shown)
    if estimate(text) > budget:
        cut = max(RESULT_FLOOR, RESULT_CHARS * budget // estimate(text))
        text = "\n\n".join(_message_text(m, cut) for m in shown)
    room = budget * 4
    if len(text) > room:
        head, tail = room // 2, room - room // 2
        text = f"{text[:head]}\n\n[... {len(text) - room} characters left out ...]\n\n{text[-tail:]}"
    return text
