"""What a one-shot run reports for machines: the JSON document (--output-format json) and the
transcript (--transcript FILE), which share their outcome, usage and denials.

The transcript is checkpointed after every model round and every batch of tool results with
`outcome.status: "running"`, each time written whole to a new 0600 file that then replaces the
old one, so a reader never sees half a file; the last write carries the final outcome.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from ..._files import open_replacing
from ..._safe import redact_data
from ...policy import READ_TOOLS, Decision, Verdict
from ..providers import ModelLimits
from ..runtime import (
    Agent,
    AgentError,
    Answer,
    Assistant,
    Denial,
    Events,
    Message,
    ModelError,
    RunResult,
    TaskOrigin,
    ToolCall,
    ToolResult,
    Usage,
    message_to_dict,
)
from ..runtime.harness import decider

__all__ = ["SCHEMA_VERSION", "TRANSCRIPT_VERSION", "Transcript", "document", "outcome"]

SCHEMA_VERSION = 1
TRANSCRIPT_VERSION = 1


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_creation_tokens": usage.cache_creation_tokens,
        "cost_usd": None if usage.cost_usd is None else round(usage.cost_usd, 8),
    }


def _origin(task: TaskOrigin | None) -> dict[str, Any] | None:
    """The sub-agent a call came from (None: the agent's own call)."""
    if task is None:
        return None
    return {"number": task.number, "kind": task.kind, "parent_call_id": task.parent_call_id}


def _denial(d: Denial) -> dict[str, Any]:
    return {
        "tool": d.tool,
        "tool_use_id": d.call_id,
        "arguments": dict(d.arguments),
        "verdict": d.verdict,
        "reason": d.reason,
        "rule": d.rule,
        "source": d.source,
        "decided_by": d.decided_by,
        "task": _origin(d.task),
    }


def _failure(error: AgentError) -> dict[str, Any]:
    return {
        "kind": str(error.kind),
        "retryable": error.retryable,
        "http_status": error.http_status,
        "retry_after_ms": None if error.retry_after is None else round(error.retry_after * 1000),
        "attempts": error.attempts,
    }


def outcome(
    result: RunResult | None, error: AgentError | None, warnings: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    """How the run ended, and `warnings`: what went wrong beside it, each {"kind", "message"}
    (`session_not_recorded`: the store could not be written, so the run was not recorded;
    `session_incomplete`: the disk refused some of its events)."""
    said = [{"kind": kind, "message": message} for kind, message in warnings]
    if error is None and result is not None:
        return {"status": "completed", "result": result.text, "warnings": said}
    assert error is not None
    return {"status": "error", "message": str(error), "failure": _failure(error), "warnings": said}


def document(
    model: str,
    result: RunResult | None,
    error: AgentError | None,
    usage: Usage,
    denials: list[Denial],
    warnings: Sequence[tuple[str, str]] = (),
    *,
    session_id: str | None = None,
    duration_ms: int = 0,
) -> dict[str, Any]:
    """The one-shot JSON: `result` is the model's last text when the run completed (a run that went on
    after a denied or refused call completes too); every such call is in `permission_denials`;
    `session_id` the session to --resume (None: the run was not recorded, or never began);
    `duration_ms` the run's wall time, from the command's start to this report."""
    done = error is None and result is not None
    return {
        "schema_version": SCHEMA_VERSION,
        "result": result.text if done and result is not None else None,
        "session_id": session_id,
        "duration_ms": duration_ms,
        "model": model,
        "usage": _usage(usage),
        "permission_denials": [_denial(d) for d in denials],
        "outcome": outcome(result, error, warnings),
    }


def _arguments(call: ToolCall) -> object:
    try:
        return json.loads(call.arguments or "{}")
    except (json.JSONDecodeError, RecursionError):
        return call.arguments  # as the model sent it: the call was refused for it


class Transcript(Events):
    """The --transcript artifact of one run: the conversation, each model round, and an ordered tool
    trace (each call with its verdict, rule, source, who decided, start offset and duration; a
    sub-agent's calls among them, each naming its task)."""

    def __init__(self, path: str, agent: Agent, provider: str, model: str, limits: ModelLimits) -> None:
        self.path = path
        self._agent = agent
        self._head = {
            "transcript_version": TRANSCRIPT_VERSION,
            "provider": provider,
            "model": model,
            "model_limits": {
                "context_window": limits.context_window,
                "max_output_tokens": limits.max_output_tokens,
            },
        }
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._asked_at = self._start
        self._rounds: list[dict[str, Any]] = []
        self._trace: list[dict[str, Any]] = []
        # A call's entry by the task it came from (0: the agent's own) and its id.
        self._by_id: dict[tuple[int, str], dict[str, Any]] = {}
        self._waiting: set[str] = set()
        self.write_error: OSError | None = None

    def _ms(self, at: float | None = None) -> int:
        return round(((time.monotonic() if at is None else at) - self._start) * 1000)

    def request(self, messages: int) -> None:
        self._asked_at = time.monotonic()

    def message(self, message: Message, usage: Usage | None = None) -> None:
        with self._lock:
            if isinstance(message, Assistant):
                self._rounds.append(
                    {
                        "status": "ok",
                        "start_ms": self._ms(self._asked_at),
                        "duration_ms": self._ms() - self._ms(self._asked_at),
                        "usage": _usage(usage or Usage(cost_usd=None)),
                        "calls": len(message.calls),
                    }
                )
                self._waiting = {c.id for c in message.calls}
            elif isinstance(message, ToolResult):
                self._result(None, message)
                self._waiting.discard(message.call_id)
            else:
                return
            if self._waiting:
                return
        self.checkpoint()

    def retried(self, failure: ModelError, wait: float) -> None:
        """A request failed and is sent again after `wait` seconds: a round of its own."""
        with self._lock:
            self._rounds.append(
                {
                    "status": "retry",
                    "start_ms": self._ms(self._asked_at),
                    "duration_ms": self._ms() - self._ms(self._asked_at),
                    "failure": _failure(failure),
                    "wait_ms": round(wait * 1000),
                }
            )
            self._asked_at = time.monotonic() + wait
        self.checkpoint()

    def task_result(self, task: TaskOrigin, message: ToolResult) -> None:
        """A sub-agent's call ended with `message`."""
        with self._lock:
            self._result(task, message)

    def _result(self, task: TaskOrigin | None, message: ToolResult) -> None:
        entry = self._by_id.get((task.number if task else 0, message.call_id))
        if entry is not None:
            entry["is_error"] = message.is_error

    def _entry(self, task: TaskOrigin | None, call: ToolCall, **fields: Any) -> None:
        entry = {
            "call_id": call.id,
            "tool": call.name,
            "arguments": _arguments(call),
            "read_only": call.name in READ_TOOLS,
            "ran": False,
            "start_ms": None,
            "duration_ms": None,
            "is_error": None,
            **fields,
            "task": _origin(task),
        }
        with self._lock:
            self._trace.append(entry)
            self._by_id[(task.number if task else 0, call.id)] = entry

    def verdict(
        self, call: ToolCall, verdict: Verdict, answer: Answer | None, task: TaskOrigin | None = None
    ) -> None:
        self._entry(
            task,
            call,
            verdict=str(verdict.decision),
            reason=verdict.reason,
            rule=verdict.rule.text if verdict.rule is not None else None,
            source=verdict.source.tag if verdict.source is not None else None,
            decided_by=answer.by if answer else decider(verdict),
            allowed=answer.allow if answer else verdict.decision is Decision.ALLOW,
        )

    def error(self, call: ToolCall, reason: str, task: TaskOrigin | None = None) -> None:
        self._entry(
            task,
            call,
            verdict="error",
            reason=reason,
            rule=None,
            source=None,
            decided_by="bastion",
            allowed=False,
        )

    def started(self, call: ToolCall, task: TaskOrigin | None = None) -> None:
        with self._lock:
            entry = self._by_id.get((task.number if task else 0, call.id))
            if entry is not None:
                entry.update(ran=True, start_ms=self._ms())

    def finished(self, call: ToolCall, task: TaskOrigin | None = None) -> None:
        with self._lock:
            entry = self._by_id.get((task.number if task else 0, call.id))
            if entry is not None and entry["start_ms"] is not None:
                entry["duration_ms"] = self._ms() - entry["start_ms"]

    def subtask(self, origin: TaskOrigin) -> Events:
        return _TaskTrace(self, origin)

    def checkpoint(self, final: dict[str, Any] | None = None) -> None:
        """Write the transcript as it is now: `final` is the outcome once the run has ended."""
        with self._lock:
            doc = {
                **self._head,
                "outcome": final or {"status": "running"},
                "duration_ms": self._ms(),
                "usage": _usage(self._agent.usage),
                "permission_denials": [_denial(d) for d in self._agent.denials],
                "rounds": list(self._rounds),
                "tool_trace": [dict(e) for e in self._trace],
                "messages": [message_to_dict(m) for m in self._agent.messages],
            }
        try:
            _write_private(self.path, json.dumps(redact_data(doc), ensure_ascii=False, indent=1) + "\n")
        except OSError as err:
            self.write_error = err


class _TaskTrace(Events):
    """A sub-agent's calls into its parent's transcript, each naming the task."""

    def __init__(self, transcript: Transcript, origin: TaskOrigin) -> None:
        self.transcript = transcript
        self.origin = origin

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        self.transcript.verdict(call, verdict, answer, self.origin)

    def error(self, call: ToolCall, reason: str) -> None:
        self.transcript.error(call, reason, self.origin)

    def started(self, call: ToolCall) -> None:
        self.transcript.started(call, self.origin)

    def finished(self, call: ToolCall) -> None:
        self.transcript.finished(call, self.origin)

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if isinstance(message, ToolResult):
            self.transcript.task_result(self.origin, message)


def _write_private(path: str, text: str) -> None:
    """`text` into `path` at once: a new 0600 file in the same directory replaces the old one."""
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = open_replacing(tmp)
    try:
        os.fchmod(fd, 0o600)  # a file left from an earlier run keeps its mode otherwise
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
