"""Questions a person can answer: what a call would do (a diff of a write or edit, a command line
with a caret where it leaves the subset), whether asking makes sense at all, the session rules
that `a` (allow this exact call again) adds, and the answers (`r` remembers a rule: _learn.py)."""

from __future__ import annotations

import difflib
import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import NamedTuple

from ..._files import read_regular
from ..._safe import safe_line
from ...policy import PATH_TOOLS, STAMP_ARG, TOOLS, Decided, Gate, Kind, Verdict
from ..runtime import Answer, ToolCall
from ._colour import Colour

__all__ = [
    "AGAIN",
    "ONCE",
    "PROJECT",
    "SESSION",
    "CallKey",
    "Recorder",
    "SessionRules",
    "TextNow",
    "cannot_work",
    "current_text",
    "describe",
    "may_always",
    "parse_reply",
]

# A question shows at most this many lines of a diff or of a new file's start.
SHOWN_LINES = 40
_EDIT_ARGS = ("path", "old_string", "new_string")
# A file bigger than this is not read to make a diff (its size is said instead).
DIFF_LIMIT = 1 << 20


class Recorder:
    """A gate that remembers what it decided last on each thread, so a question can show the
    analysis (the loop asks right after it decides, with the same arguments, on the same thread: a
    sub-agent's loop deciding on its own thread does not take the place of its parent's)."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self._here = threading.local()

    def decide(self, tool: str, args: object) -> Decided:
        decided = self.gate.decide(tool, args)
        self._here.last = (args, decided)
        return decided

    def decided(self, args: object) -> Decided | None:
        """What was decided for exactly these arguments (the same object), if it was this thread's
        last call."""
        last = self.last_here()
        return last[1] if last is not None and last[0] is args else None

    def last_here(self) -> tuple[object, Decided] | None:
        """This thread's last decision and the arguments it was made on (None: none yet)."""
        last: tuple[object, Decided] | None = getattr(self._here, "last", None)
        return last


def cannot_work(call: ToolCall, verdict: Verdict) -> str | None:
    """Why a "yes" could not make this call work, so it is refused without asking: a file tool
    never reaches outside the working directory, whatever a person answers, nor does a skill's load
    (a held tool) read a file that leads out."""
    subject = verdict.subject
    held = call.name in TOOLS and TOOLS[call.name].held_to is not None
    if (call.name in PATH_TOOLS or held) and subject is not None and subject.kind is Kind.OUTSIDE:
        return f"{subject.why or repr(subject.value) + ' is outside the working directory'}; " + (
            f"{call.name} only works inside the working directory, so it was not asked"
        )
    return None


def may_always(verdict: Verdict) -> bool:
    """Whether `a` (allow this exact call again this session) is offered: only for a call bastion
    read whole (not a line outside the subset, nor a path it cannot judge) and never for a
    secret-looking path (the shipped asks: each read of a secret is asked anew)."""
    subject = verdict.subject
    return subject is not None and subject.kind is Kind.PLAIN and not verdict.shipped


class CallKey(NamedTuple):
    """One exact call: the tool and its arguments (without the stamp), as canonical JSON."""

    tool: str
    arguments: str

    @classmethod
    def of(cls, call: ToolCall, args: Mapping[str, object]) -> CallKey:
        shown = {k: v for k, v in args.items() if k != STAMP_ARG}
        return cls(call.name, json.dumps(shown, sort_keys=True, ensure_ascii=False))


class SessionRules:
    """The calls a person allowed for the rest of the session with `a`."""

    def __init__(self) -> None:
        self.keys: list[CallKey] = []

    def add(self, key: CallKey) -> None:
        if key not in self.keys:
            self.keys.append(key)

    def allows(self, key: CallKey) -> bool:
        return key in self.keys

    def drop(self, index: int) -> CallKey | None:
        return self.keys.pop(index) if 0 <= index < len(self.keys) else None


# What an answer keeps allowing besides this call: nothing, this exact call for the session (`a`),
# the offered rules for this project (`r`); or AGAIN: the answer was one this question does not
# offer (`a` where the call may not be allowed for the session, `r` where no rule is offered), and
# the question is put again rather than read as a refusal whose reason is "a".
ONCE, SESSION, PROJECT, AGAIN = "", "session", "project", "again"


def parse_reply(line: str | None, *, always: bool, learn: bool = False) -> tuple[Answer, str]:
    """y / n / a (when `always` is offered) / r (when a rule to remember is offered: `learn`) with
    an optional note or reason after the first word; any other line refuses, the whole line its
    reason; no line (end of input) refuses. The second value says what is allowed besides this
    call: ONCE (nothing), SESSION (this exact call again), PROJECT (the offered rules); AGAIN for
    an `a` or `r` this question does not offer (ask again)."""
    if line is None:
        return Answer(False, "no answer (end of input)"), ONCE
    text = line.strip()
    word, _, rest = text.partition(" ")
    word = word.lower()
    if word in ("y", "yes"):
        return Answer(True, rest.strip()), ONCE
    if always and word in ("a", "always"):
        return Answer(True, rest.strip()), SESSION
    if learn and word in ("r", "remember"):
        return Answer(True, rest.strip()), PROJECT
    if word in ("n", "no", ""):
        return Answer(False, rest.strip()), ONCE
    if word in ("a", "always", "r", "remember"):
        return Answer(False, f"{word}: not an answer this question offers"), AGAIN
    return Answer(False, text), ONCE


# A file's text now, for a question's diff, by its path and the working directory (`current_text`;
# an editor's front reads its buffers).
TextNow = Callable[[str, str], "str | None | OSError"]


def describe(
    call: ToolCall,
    args: Mapping[str, object],
    decided: Decided | None,
    cwd: str,
    colour: Colour,
    now: TextNow | None = None,
) -> list[str]:
    """What the call would do, for a person: a diff for write and edit (of the file's text as `now`
    reads it), the line (and a caret where it leaves the subset) for bash, the arguments otherwise."""
    now = now or current_text
    if call.name == "bash" and isinstance(args.get("command"), str):
        return _bash(str(args["command"]), decided, colour)
    if call.name == "write" and isinstance(args.get("path"), str) and isinstance(args.get("content"), str):
        return _write(str(args["path"]), str(args["content"]), now(str(args["path"]), cwd), colour)
    if call.name == "edit" and all(
        isinstance(args.get(k), str) for k in ("path", "old_string", "new_string")
    ):
        path = str(args["path"])
        return _edit(path, str(args["old_string"]), str(args["new_string"]), now(path, cwd), colour)
    shown = {k: v for k, v in args.items() if k != STAMP_ARG}
    return [safe_line(f"  {k}: {v}") for k, v in shown.items()]


def _bash(command: str, decided: Decided | None, colour: Colour) -> list[str]:
    lines = [safe_line(f"  $ {line}") for line in command.splitlines() or [""]]
    outside = decided.analysis.outside if decided is not None and decided.analysis is not None else None
    if outside is not None and outside.column > 0 and "\n" not in command:
        caret = " " * (outside.column - 1 + 4) + "^"
        lines.append(colour.red(caret + safe_line(f" {outside.kind or outside.reason}")))
    return lines


def current_text(path: str, cwd: str) -> str | None | OSError:
    """The file's text now: None when there is none; an error when it cannot be shown (a question's
    diff, here and in the editor's: bastion/agent/acp)."""
    full = os.path.join(cwd, path)
    try:
        if os.path.getsize(full) > DIFF_LIMIT:
            return OSError(f"larger than {DIFF_LIMIT} bytes")
        return read_regular(full, DIFF_LIMIT + 1).decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        return OSError("not UTF-8 text")
    except OSError as err:
        return err


def _diff(path: str, old: str, new: str, colour: Colour) -> list[str]:
    diff = list(
        difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm="")
    )
    if not diff:
        return [safe_line(f"  {path}: no change")]
    shown = [colour.diff_line(safe_line(line)) for line in diff[:SHOWN_LINES]]
    if len(diff) > SHOWN_LINES:
        shown.append(f"  … {len(diff) - SHOWN_LINES} more diff lines")
    return shown


def _write(path: str, content: str, now: str | None | OSError, colour: Colour) -> list[str]:
    size = len(content.encode("utf-8", "replace"))
    if isinstance(now, OSError):
        return [safe_line(f"  replaces {path} ({now.strerror or now}) with {size} bytes")]
    if now is None:
        lines = content.splitlines()
        head = [safe_line(f"  new file {path} ({size} bytes, {len(lines)} lines)")]
        head += [colour.green(safe_line(f"+{line}")) for line in lines[: SHOWN_LINES // 2]]
        if len(lines) > SHOWN_LINES // 2:
            head.append(f"  … {len(lines) - SHOWN_LINES // 2} more lines")
        return head
    return _diff(path, now, content, colour)


def _edit(path: str, old: str, new: str, now: str | None | OSError, colour: Colour) -> list[str]:
    if isinstance(now, OSError) or now is None or now.count(old) != 1:
        # The edit will fail (or the file cannot be shown): show the change as the model gave it.
        return _diff(path, old, new, colour)
    return _diff(path, now, now.replace(old, new, 1), colour)
