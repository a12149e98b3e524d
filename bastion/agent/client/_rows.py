"""A tool call as the client draws it: one line saying what it does, a short body under it, the
whole of it on request (Ctrl-O), and its detail (what the policy decided, who decided, the plan that
ran, the stamp's check). Each tool is drawn by what it does:

    tool            the line                               collapsed body                  Ctrl-O
    edit            path, the lines it adds and removes    the diff, up to 8 lines         the whole diff
    write           path, the content's lines              -                               the content
    bash            $ and the first line, its timeout      lines printed; a failure's      the output
                                                           exit and last 3 lines
    read            path and the lines asked for           how many lines it read          the output
    grep, glob, ls  pattern, where                         matches and files, entries      the output
    task            the brief's first line                 the report's first 2 lines      the report
    any other       its name and arguments                 its output's first line         the output

A call that failed shows its error in place of the body; a running command its last line; a call
waiting on a question what it would do (an edit's diff, a command's other lines).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Literal

from ..._safe import safe_line
from ...analyzer import CHANGED_COMMAND, CHANGED_PATHS
from ...policy import STAMP_ARG, Decided, Decision, Verdict, load_json, source_words
from ..runtime import INTERRUPTED, NOT_RUN, Answer, ToolCall, ToolResult

__all__ = ["DIFF_SHOWN", "Row", "State", "body", "detail", "head"]

# How many lines of an edit's diff a collapsed row shows; of a failed command's output; of a report.
DIFF_SHOWN = 8
FAILED_TAIL = 3
REPORT_HEAD = 2
# How long a row's line may be before it is cut (the screen wraps nothing on a row's line).
LINE = 160

State = Literal[
    "decided", "asked", "running", "done", "failed", "denied", "refused", "interrupted", "unusable"
]
_EXIT = re.compile(r"\[(exit (\d+)|killed after \d+s|killed by signal \d+|interrupted: [^\]]*)\]\s*\Z")


@dataclass(slots=True)
class Row:
    """One call and what became of it, as far as the run has told: `label` is a sub-agent's
    ("task 1": its calls are drawn under the task's), `decided` the gate's decision where the
    client saw it made (the plan, the analysis), `tail` a running command's last line."""

    call: ToolCall
    label: str = ""
    state: State = "decided"
    verdict: Verdict | None = None
    answer: Answer | None = None
    decided: Decided | None = None
    result: ToolResult | None = None
    tail: str = ""
    error: str = ""

    @property
    def args(self) -> dict[str, object]:
        try:
            value = load_json(self.call.arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def ended(self, result: ToolResult) -> None:
        """Its result came: done, or failed (an interrupted or never-run one says so)."""
        self.result = result
        if result.content.startswith((INTERRUPTED, NOT_RUN)) or result.content.startswith("interrupted"):
            self.state = "interrupted"
        elif self.state in ("denied", "refused", "unusable"):
            return
        else:
            self.state = "failed" if result.is_error or _failed_command(result.content) else "done"


def _text(args: dict[str, object], name: str) -> str:
    value = args.get(name)
    return value if isinstance(value, str) else ""


def _first(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _failed_command(content: str) -> bool:
    found = _EXIT.search(content)
    return found is not None and found.group(2) != "0"


def _diff(old: str, new: str) -> list[str]:
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1)
    return [line for line in lines if not line.startswith(("---", "+++"))]


def _counted(diff: list[str]) -> str:
    added = sum(1 for line in diff if line.startswith("+"))
    removed = sum(1 for line in diff if line.startswith("-"))
    return f"+{added} −{removed}"


def _plural(count: int, one: str, many: str = "") -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def head(row: Row) -> str:
    """What the call does, in one line."""
    name, args = row.call.name, row.args
    path = _text(args, "path")
    if name == "edit" and path:
        return f"edit {path} {_counted(_diff(_text(args, 'old_string'), _text(args, 'new_string')))}"
    if name == "write" and path:
        return f"write {path} ({_plural(len(_text(args, 'content').splitlines()), 'line')})"
    if name == "bash" and "command" in args:
        timeout = args.get("timeout_seconds")
        said = f"$ {_first(_text(args, 'command'))}" + (f"  (timeout {timeout} s)" if timeout else "")
        return safe_line(said)[:LINE]
    if name == "read" and path:
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"{start + limit - 1}" if isinstance(limit, int) else ""
            path = f"{path}:{start}-{end}"
        return safe_line(f"read {path}")[:LINE]
    if name in ("grep", "glob") and "pattern" in args:
        where = path or "."
        include = f" ({_text(args, 'include')})" if _text(args, "include") else ""
        return safe_line(f"{name} {_text(args, 'pattern')} in {where}{include}")[:LINE]
    if name == "ls":
        return safe_line(f"ls {path or '.'}")[:LINE]
    if name == "task":
        kind = _text(args, "kind") or "explore"
        return safe_line(f"task ({kind}): {_first(_text(args, 'prompt'))}")[:LINE]
    shown = {k: v for k, v in args.items() if k != STAMP_ARG}
    return safe_line(f"{name} {json.dumps(shown, ensure_ascii=False)}")[:LINE]


def body(row: Row, full: bool = False) -> list[str]:
    """The lines under the call's line: collapsed, or (`full`) the whole of it."""
    if row.state in ("denied", "refused", "unusable"):
        return [_refusal(row)]
    if row.state == "running":
        return [f"│ {row.tail}"] if row.tail else []
    if row.state == "asked" or row.result is None:
        return _would(row, full)
    content = row.result.content.rstrip("\n")
    lines = content.splitlines()
    if full:
        return _would(row, True) + lines if row.call.name in ("edit", "write") else lines
    if row.state in ("failed", "interrupted") and row.call.name != "bash":
        return [f"✗ {_first(content)}"]
    return _collapsed(row, lines)


def _refusal(row: Row) -> str:
    if row.state == "unusable":
        return f"✗ {row.error}"
    if row.state == "refused":
        note = row.answer.note if row.answer is not None else ""
        return "✗ refused" + (f": {note}" if note else "")
    return f"✗ denied: {row.verdict.reason if row.verdict is not None else ''}"


def _would(row: Row, full: bool) -> list[str]:
    """What the call would do, before it ran: an edit's diff, a command's other lines."""
    args = row.args
    if row.call.name == "edit":
        diff = _diff(_text(args, "old_string"), _text(args, "new_string"))
        if full or len(diff) <= DIFF_SHOWN:
            return diff
        return [*diff[:DIFF_SHOWN], f"… {_plural(len(diff) - DIFF_SHOWN, 'more line')} (Ctrl-O)"]
    if row.call.name == "write" and full:
        return _text(args, "content").splitlines()
    if row.call.name == "bash":
        return [safe_line(line) for line in _text(args, "command").strip().splitlines()[1:]]
    return []


def _collapsed(row: Row, lines: list[str]) -> list[str]:
    name = row.call.name
    if name == "bash":
        printed = [line for line in lines if not _EXIT.fullmatch(line)]
        status = lines[-1] if lines and _EXIT.fullmatch(lines[-1]) else ""
        if row.state == "failed":
            return [f"✗ {status or 'failed'}", *printed[-FAILED_TAIL:]]
        return [f"{_plural(len(printed), 'line')} printed"]
    if name == "edit":
        return _would(row, False)
    if name == "write":
        return []
    if name == "read":
        return [f"{_plural(sum(1 for line in lines if not line.startswith('...')), 'line')} read"]
    if name == "grep":
        found = [line for line in lines if line.count(":") >= 2 and not line.startswith("no matches")]
        files = {line.split(":", 1)[0] for line in found}
        return [f"{_plural(len(found), 'match', 'matches')} in {_plural(len(files), 'file')}"]
    if name == "glob":
        found = [line for line in lines if not line.startswith(("no names", "..."))]
        return [_plural(len(found), "file")]
    if name == "ls":
        return [_plural(len(lines), "entry", "entries")]
    if name == "task":
        return lines[:REPORT_HEAD]
    return lines[:1]


def detail(row: Row) -> list[str]:
    """The call's detail: what the policy decided and why, who decided (the rule as written and
    where it is from, or the person's answer), the plan that ran, and the stamp's check before it ran."""
    verdict = row.verdict
    lines = [f"call: {head(row)}", f"id: {row.call.id}" + (f" ({row.label})" if row.label else "")]
    if verdict is None:
        lines.append(f"decision: none ({row.error or 'it was never decided'})")
        return lines
    lines.append(f"decision: {verdict.decision} — {verdict.reason}")
    if verdict.rule is not None:
        lines.append(f"rule: {verdict.rule.text} ({source_words(verdict.rule, verdict.source)})")
    else:
        lines.append("rule: none (what no rule names is decided by the fallback)")
    if row.answer is not None:
        said = "allowed" if row.answer.allow else "refused"
        note = f": {row.answer.note}" if row.answer.note else ""
        lines.append(f"answered: {said} by {row.answer.by}{note}")
    decided = row.decided
    analysis = decided.analysis if decided is not None else None
    if analysis is not None and analysis.rendered is not None:
        lines.append(f"plan: {analysis.rendered}")
        lines += [f"  runs {program}" for program in analysis.programs]
    elif analysis is not None and analysis.outside is not None:
        lines.append(
            f"plan: none (bastion stops reading at {analysis.outside.kind or analysis.outside.reason})"
        )
    lines.append(_stamp(row, decided))
    return [safe_line(line) for line in lines]


def _stamp(row: Row, decided: Decided | None) -> str:
    if decided is None or row.verdict is None or row.verdict.decision is Decision.DENY:
        return "stamp: none (the call did not run unasked)"
    if STAMP_ARG not in decided.args:
        return "stamp: none (nothing to re-check before it ran)"
    if row.result is None:
        return "stamp: made; checked again right before the call runs"
    if CHANGED_COMMAND in row.result.content or CHANGED_PATHS in row.result.content:
        return "stamp: did NOT verify before it ran (what it touches changed): the call was refused"
    if row.state == "interrupted":
        return "stamp: made; the run was stopped before it was checked"
    return "stamp: verified right before it ran (the same line, paths and facts it was decided on)"
