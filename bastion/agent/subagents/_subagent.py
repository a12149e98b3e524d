"""Sub-agents: the `task` tool hands a side task to a child turn loop with a fresh context.

- Its tools: `explore` has read, glob, grep, ls and bash; `general` every built-in tool. No child
  has `task` (depth 1): a call of a tool its kind lacks is answered "no tool named ..." and never run.
- The same gate: each call a child makes is decided by the parent's policy, through the same
  gatekeeper; its questions reach the person labelled `[task N: KIND]`, one at a time, and a
  denial or a refusal is told to the child as the loop tells any model. The task call itself is
  decided on its kind (the shipped rules allow `task(explore)`; a `general` task asks).
- Its harness: the child runs its turn on the parent turn's snapshot of the harness's slots, with
  the role "subagent" (bastion.agent.runtime.harness). Its catalog chooses from the tools its kind has;
  the approval slot reviews each of its calls as the parent's (it may deny or escalate one, never
  allow what the policy asked); its agent_loop drives it.
- Its model: `ModelChoice` gives the model the child is built with (the default: the
  `subagent_model` setting, else the session's model); the model_selector slot, told it is a
  sub-agent's turn and its kind, chooses from it per request (its default keeps it).
- `task` itself is offered through the parent's catalog as the source "subagents": the built-in
  `native-only` and `read-only` catalogs leave it out (a child runs bash or writes: a catalog
  that offers only what looks must not hand them out).
- Its record: every event of the child is a `task` line of the parent's session, naming the
  parent's call (`parent_call_id`) and the task's number, between a `start` and an `end` line. The
  parent's conversation is rebuilt from its own message lines only, so `--resume` never sees them.
- Its usage and denials are the parent's run's (each denial naming the task: `TaskOrigin`);
  `Events.spent` tells the session's tally, and `Events.subtask` whatever observes the parent's
  run of the child's calls (the transcript's trace).
- Its compaction: `ChildCompaction` gives each child a compactor of its own (bastion.agent.runtime._compact:
  its task prompt kept, its work since summarised but for its latest rounds), which the child's turn slots
  `trigger` and `summarizer` drive, with the role "subagent"; a compaction refused or failed is
  not tried again in that child. Its compactions are `compaction` events among its `task` lines.
- Cancellation: once the parent's cancel event is set (Ctrl-C), the child's is set too: its
  running command is killed, a reply streaming to it is cut off, and it stops.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol

from ...policy import READ_TOOLS, TASK_KINDS, TOOLS, Verdict
from ..front import Asker, Fanout, Printer
from ..runtime import (
    INTERRUPTED,
    Agent,
    AgentError,
    Answer,
    Answerer,
    Assistant,
    AsSubagent,
    Cancelled,
    Checkpoint,
    Compaction,
    Events,
    Gatekeeper,
    Message,
    Model,
    TaskOrigin,
    ToolCall,
    ToolResult,
    Tools,
    ToolSpec,
    Usage,
    running_call,
)
from ..runtime.harness import BUILTIN_SOURCE, SUBAGENT_SOURCE, SlotFailure
from ..sessions import Recording

__all__ = [
    "EXPLORE_TOOLS",
    "TASK",
    "TASK_SPEC",
    "ChildCompaction",
    "Console",
    "ModelChoice",
    "Only",
    "Subagents",
    "TaskTools",
    "configured_model",
    "front_console",
    "task_label",
    "tasks_in",
]

TASK = "task"
# What an explore task's child may call: the tools that only look, and bash (whose every line the
# policy decides; one that may write holds the workspace's write lock).
EXPLORE_TOOLS = (*READ_TOOLS, "bash")
_ARGUMENTS = ("kind", "prompt")

TASK_SPEC = ToolSpec(
    TASK,
    "Hand a self-contained side task to a sub-agent with a fresh context: it sees only `prompt`, "
    "works with its own tools, and its final answer is this call's result. kind `explore` (the "
    "default): read, glob, grep, ls and bash, to find things out; several explore tasks in one reply "
    "run at the same time. kind `general`: every tool, to make changes. Every call a sub-agent makes "
    "is decided by the same policy as yours.",
    {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": list(TASK_KINDS), "default": TOOLS[TASK].default},
            "prompt": {"type": "string", "description": "The whole task: the sub-agent knows nothing else."},
        },
        "required": ["prompt"],
        "additionalProperties": False,
    },
)

_NOTE = """You are a sub-agent: another agent handed you the task below and sees nothing of your work
but your last message. Do the task with your tools, then answer completely and concretely (files,
lines, commands, what you found or changed). You cannot ask the other agent anything."""


def task_label(number: int, kind: str) -> str:
    """How a person sees a sub-agent: in its questions and beside its calls."""
    return f"[task {number}: {kind}]"


def tasks_in(messages: Sequence[Message]) -> int:
    """How many task calls a conversation holds (a resumed session numbers its next task after them)."""
    return sum(c.name == TASK for m in messages if isinstance(m, Assistant) for c in m.calls)


class ModelChoice(Protocol):
    """The model a sub-agent of a kind is built with (the `configured` its model_selector is told)."""

    def __call__(self, kind: str, /) -> Model: ...


def configured_model(session: Model, setting: str | None) -> ModelChoice:
    """The default choice: the model the setting names, on the session's provider and connection;
    without one, the session's model as it is when the task starts (after any /model)."""

    def choose(kind: str) -> Model:
        if setting is None or setting == session.options.model:
            return session
        child = copy.copy(session)
        child.options = dataclasses.replace(session.options, model=setting)
        return child

    return choose


class ChildCompaction(Protocol):
    """A sub-agent's compaction: `record` writes a compaction (summary, messages replaced, focus,
    start) among its lines, `label` how the person sees the child (its window is its model's)."""

    def __call__(self, record: Callable[[str, int, str, int], None], label: str, /) -> Compaction: ...


class Sink(Protocol):
    """Where record lines go: the parent's session."""

    def record(self, event: str, /, **data: Any) -> None: ...


@dataclasses.dataclass(frozen=True, slots=True)
class Console:
    """Where sub-agents meet the person: `answer_for(label)` asks a child's questions, `display`
    shows its calls, `quiet` stops what redraws the screen (a spinner) before a question."""

    answer_for: Callable[[str], Answerer]
    display: Events = dataclasses.field(default_factory=Events)
    quiet: Callable[[], None] = lambda: None


def front_console(answer: Answerer, printer: Printer) -> Console:
    """A front's console: its Asker labels a child's questions (another answerer answers them as
    the parent's), its printer shows the child's calls and stops its spinner before a question."""
    labelled = answer.labelled if isinstance(answer, Asker) else (lambda label: answer)
    return Console(labelled, printer, printer.spinner.stop)


class Only:
    """Tools as a child of one kind sees them: only the names given."""

    def __init__(self, tools: Tools, names: Collection[str]) -> None:
        self.tools = tools
        self.names = frozenset(names)

    def specs(self) -> Sequence[ToolSpec]:
        return [s for s in self.tools.specs() if s.name in self.names]

    def has(self, name: str) -> bool:
        return name in self.names and self.tools.has(name)

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        if not self.has(name):  # the loop never asks; a caller that did gets nothing run
            return f"error: there is no tool named {name!r}", True
        return self.tools.run(name, args, cancel)


class TaskTools:
    """The parent's tools, and `task`."""

    def __init__(self, tools: Tools, subagents: Subagents) -> None:
        self.tools = tools
        self.subagents = subagents

    def specs(self) -> Sequence[ToolSpec]:
        return [*self.tools.specs(), TASK_SPEC]

    def sources(self) -> Mapping[str, Sequence[ToolSpec]]:
        """The tools by source, as the catalog slot chooses from them: the tools' own (MCP servers
        are sources of their own), then "subagents"."""
        own = getattr(self.tools, "sources", None)
        found = dict(own()) if callable(own) else {BUILTIN_SOURCE: self.tools.specs()}
        return {**found, SUBAGENT_SOURCE: [TASK_SPEC]}

    def has(self, name: str) -> bool:
        return name == TASK or self.tools.has(name)

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        if name == TASK:
            return self.subagents.run(args, cancel)
        return self.tools.run(name, args, cancel)


class _ChildRecord(Recording):
    """A child's events as `task` lines of the parent's session."""

    def __init__(self, sink: Sink, parent_call_id: str, number: int) -> None:
        self.sink = sink
        self.parent_call_id = parent_call_id
        self.number = number
        self.replies = 0

    def record(self, event: str, /, **data: Any) -> None:
        self.sink.record(TASK, parent_call_id=self.parent_call_id, task=self.number, event=event, **data)

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if isinstance(message, Assistant):  # counted as they come: a compaction replaces some
            self.replies += 1
        super().message(message, usage)


class _Shown(Events):
    """A child's calls on the parent's display, named with the task's label (its own text is not
    shown: its answer is the task's result); never while a child's question is open."""

    def __init__(self, display: Events, label: str, prefix: str, console: threading.RLock) -> None:
        self.display = display
        self.label = label
        self.prefix = prefix
        self.console = console

    def _call(self, call: ToolCall) -> ToolCall:
        return ToolCall(f"{self.prefix}/{call.id}", f"{self.label} {call.name}", call.arguments)

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        with self.console:
            self.display.verdict(self._call(call), verdict, answer)

    def error(self, call: ToolCall, reason: str) -> None:
        with self.console:
            self.display.error(self._call(call), reason)

    def started(self, call: ToolCall) -> None:
        with self.console:
            self.display.started(self._call(call))

    def finished(self, call: ToolCall) -> None:
        with self.console:
            self.display.finished(self._call(call))

    def slot_failed(self, failure: SlotFailure) -> None:
        with self.console:
            self.display.slot_failed(failure)

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if isinstance(message, ToolResult):
            shown = ToolResult(
                f"{self.prefix}/{message.call_id}",
                f"{self.label} {message.name}",
                message.content,
                message.is_error,
            )
            with self.console:
                self.display.message(shown)


class _Watch(Events):
    """Stops a child whose cancel event is set as soon as it can: before a request, and while a
    reply streams (the loop turns the interrupt into Cancelled, the conversation kept valid)."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel

    def request(self, messages: int) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled")

    def text(self, delta: str) -> None:
        if self.cancel.is_set():
            raise KeyboardInterrupt


def _link(parent: threading.Event, child: Agent, finished: threading.Event) -> None:
    """Set the child's cancel event while the parent's is set, until the child finishes (its run
    clears its own event when it starts, so it is set again)."""
    while not finished.wait(0.05):
        if parent.is_set():
            child.cancel.set()


class _Shared:
    """The parent's checkpoint as a child sees it: what a child's call may change is kept in the
    parent's turn (which begins and ends with the parent's prompt), one call at a time."""

    def __init__(self, checkpoint: Checkpoint, lock: threading.Lock) -> None:
        self.checkpoint = checkpoint
        self.lock = lock

    def begin(self) -> None:
        pass

    def before(self, tool: str, args: Mapping[str, object], approved: bool) -> None:
        with self.lock:
            self.checkpoint.before(tool, args, approved)

    def end(self) -> None:
        pass


def _problem(args: Mapping[str, object]) -> str | None:
    unknown = sorted(set(args) - set(_ARGUMENTS))
    if unknown:
        return f"error: task: unknown argument {unknown[0]!r}; nothing was run"
    if args.get("kind", TOOLS[TASK].default) not in TASK_KINDS:
        return f"error: task: `kind` must be {' or '.join(TASK_KINDS)}; nothing was run"
    prompt = args.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return "error: task: `prompt` must be the task, as text; nothing was run"
    return None


class Subagents:
    """Runs the task calls of one session: `tools` are the built-in ones (never `task`), `gate`
    the parent's gatekeeper, `system(specs)` the system prompt for the tools a child's turn
    offers, `sink` the
    session its lines go to, `checkpoint` the parent's, `compaction` each child's (None: a
    child's conversation is never compacted). `attach` the parent agent before its first run: a
    child's usage and denials are added to the parent's run."""

    def __init__(
        self,
        tools: Tools,
        gate: Gatekeeper,
        console: Console,
        choose_model: ModelChoice,
        system: Callable[[Sequence[ToolSpec]], str],
        sink: Sink,
        *,
        checkpoint: Checkpoint | None = None,
        compaction: ChildCompaction | None = None,
        first: int = 1,
    ) -> None:
        self.compaction = compaction
        self.tools = tools
        self.gate = gate
        self.console = console
        self.choose_model = choose_model
        self.system = system
        self.sink = sink
        self.checkpoint = checkpoint
        self.parent: Agent | None = None
        self._next = first
        self._guard = threading.Lock()
        self._asking = threading.RLock()
        self._keeping = threading.Lock()

    def attach(self, parent: Agent) -> None:
        self.parent = parent

    def _answerer(self, label: str) -> Answerer:
        answer = self.console.answer_for(label)

        def ask(call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> Answer:
            with self._asking:  # one question at a time; no child's line is printed over it
                self.console.quiet()
                try:
                    return answer(call, args, verdict)
                except KeyboardInterrupt:  # Ctrl-C at a child's question ends the parent's turn too
                    if self.parent is not None:
                        self.parent.cancel.set()
                    raise

        return ask

    def run(self, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        """Run one task call to its child's last answer: (the answer, whether it failed)."""
        problem = _problem(args)
        if problem is not None:
            return problem, True
        if cancel.is_set():
            return INTERRUPTED, True
        kind, prompt = str(args.get("kind", TOOLS[TASK].default)), str(args["prompt"])
        call = running_call()
        parent_id = call.id if call is not None else ""
        with self._guard:
            number, self._next = self._next, self._next + 1
        label = task_label(number, kind)
        tools = Only(self.tools, EXPLORE_TOOLS) if kind == "explore" else self.tools
        try:
            model = self.choose_model(kind)
        except Exception as err:  # a choice that fails runs nothing
            return f"error: no model for the sub-agent: {type(err).__name__}: {err}", True
        record = _ChildRecord(self.sink, parent_id, number)
        record.record("start", kind=kind, model=model.options.model, prompt=prompt)
        checkpoint = _Shared(self.checkpoint, self._keeping) if self.checkpoint is not None else None
        compaction = self.compaction(record.compaction, label) if self.compaction else None
        parent = self.parent
        running = parent.slots if parent is not None else None
        child = Agent(
            model,
            self.gate,
            tools,
            self._answerer(label),
            lambda offered: self.system(offered) + "\n\n" + _NOTE,
            harness=parent.harness if parent is not None else None,
            subagent=AsSubagent(kind, running.snapshot if running is not None else None),
            compaction=compaction,
        )
        child.checkpoint = checkpoint
        if parent is not None:  # the parent's workspace is the child's: lost for one, lost for both
            child.workspace_lost = parent.workspace_lost
        shown = _Shown(self.console.display, label, parent_id or label, self._asking)
        origin = TaskOrigin(number, kind, parent_id)
        traced = parent.events.subtask(origin) if parent is not None else Events()
        child.events = Fanout(_Watch(child.cancel), record, shown, traced)
        finished = threading.Event()
        threading.Thread(target=_link, args=(cancel, child, finished), daemon=True).start()
        status, text, failed = "error", "error: the sub-agent stopped", True
        try:
            result = child.run(prompt)
            status, text, failed = "completed", result.text or "(the sub-agent gave no answer)", False
        except (Cancelled, KeyboardInterrupt):
            status, text = "cancelled", INTERRUPTED
        except AgentError as err:
            text = f"error: the sub-agent failed ({err.kind}): {err}"
        finally:
            finished.set()
            self._settle(child, record, status, origin)
        return text, failed

    def _settle(self, child: Agent, record: _ChildRecord, status: str, origin: TaskOrigin) -> None:
        """The child's end in the record; its usage and denials (each naming the task) added to
        the parent's run."""
        usage = child.usage
        replies = record.replies
        record.record("end", status=status, replies=replies, usage=dataclasses.asdict(usage))
        parent = self.parent
        if parent is None:
            return
        with self._guard:
            parent.usage.add(usage)
            parent.denials.extend(dataclasses.replace(d, task=origin) for d in child.denials)
        parent.events.spent(usage, replies)
