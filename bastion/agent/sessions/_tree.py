"""A session as a tree of branches, read from its record's lines.

The record stays one append-only file. Its first line (the header) starts branch 1. A `branch`
event moves the head: {"type": "branch", "branch": B, "parent": P, "at": L} says that from this
line on, the conversation goes on from line L (the header, or a `message` line), on branch B, which
left branch P there. B is a new branch (the next number, P the branch of line L), or an existing
one whose tip is L (the head goes back to where B stopped). Every line after it, until the next
`branch` event, is B's. A record with no `branch` event (every record written before branches) is
branch 1 alone.

The conversation at a line is rebuilt from its path: the lines of its branch up to it, after the
path of the line its branch left from. Line numbers are the record's own, from 1, as `sessions
verify` names them: an export of the whole record and an import keep them; a repair keeps the lines
before the first bad one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["BRANCH", "Branch", "Branches", "Entry", "Tree", "read_tree", "tree_lines"]

BRANCH = "branch"


class Start(NamedTuple):
    """Where a branch begins: its parent, the line index it left the parent at (-1: branch 1, which
    begins the record), and the index of its first `branch` event (0 for branch 1)."""

    parent: int
    at: int
    line: int


class Branches:
    """Which branch each line of a record is on, fed one line at a time (the record's order)."""

    def __init__(self) -> None:
        self.of: list[int] = []
        self.starts: dict[int, Start] = {1: Start(0, -1, 0)}
        self.current = 1
        # The last `message` line (index) of each branch; a branch with none ends where it began.
        self.tips: dict[int, int] = {}
        self.messages: set[int] = set()

    def tip(self, branch: int) -> int:
        """The index a branch stops at: its last message line, else the line it left its parent
        at (branch 1: its header, index 0)."""
        if branch in self.tips:
            return self.tips[branch]
        return max(self.starts[branch].at, 0)

    def problem(self, index: int, event: Mapping[str, Any]) -> str | None:
        """What is wrong with a `branch` event at `index` (None: it may stand there)."""
        at, number, parent = event.get("at"), event.get(BRANCH), event.get("parent")
        if type(at) is not int or not 1 <= at <= index:
            return f"a branch event names no earlier line to continue from ({at!r})"
        if at - 1 != 0 and at - 1 not in self.messages:
            return f"a branch event continues from line {at}, which is no entry of the conversation"
        if type(number) is not int or type(parent) is not int:
            return "a branch event names no branch or parent"
        if number == len(self.starts) + 1:
            if parent != self.of[at - 1]:
                return (
                    f"branch {number} says it left branch {parent}, but line {at} is on branch "
                    f"{self.of[at - 1]}"
                )
            return None
        if number not in self.starts:
            return f"a branch event names branch {number}, which is neither the next nor an existing one"
        if parent != self.starts[number].parent or at - 1 != self.tip(number):
            return f"branch {number} is taken up again at line {at}, which is not where it stopped"
        return None

    def feed(self, index: int, event: Mapping[str, Any]) -> int | None:
        """Take the line at `index`; for a `branch` event (checked first: `problem`), the index of
        the line the conversation goes on from (its path rebuilds the conversation), else None."""
        moved = None
        if event.get("type") == BRANCH:
            number = int(event[BRANCH])
            moved = int(event["at"]) - 1
            if number not in self.starts:
                self.starts[number] = Start(int(event["parent"]), moved, index)
            self.current = number
        self.of.append(self.current)
        if event.get("type") == "message":
            self.messages.add(index)
            self.tips[self.current] = index
        return moved

    def continuing(self, line: int) -> dict[str, Any]:
        """The `branch` event that goes on from `line` (from 1; the header or a message line, read
        already): the branch `line` ends taken up again where it stops there, else a new branch."""
        branch = self.of[line - 1]
        if self.tip(branch) == line - 1:
            return {"type": BRANCH, BRANCH: branch, "parent": self.starts[branch].parent, "at": line}
        return {"type": BRANCH, BRANCH: len(self.starts) + 1, "parent": branch, "at": line}

    def last(self, branch: int) -> int:
        """The index of a branch's last line."""
        return max(k for k, b in enumerate(self.of) if b == branch)

    def path(self, at: int) -> list[int]:
        """The indices of the lines whose events rebuild the conversation at line index `at`, in order."""
        parts: list[list[int]] = []
        while at >= 0:
            branch = self.of[at]
            start = self.starts[branch]
            parts.append([k for k in range(start.line, at + 1) if self.of[k] == branch])
            at = start.at
        return [k for part in reversed(parts) for k in part]


@dataclass(frozen=True, slots=True)
class Entry:
    """One message of the conversation, as the tree shows it: its line (from 1), who it is from
    ("you", "model", "result", or "bastion" for what a front told the model), and a line of it."""

    line: int
    who: str
    text: str


@dataclass(slots=True)
class Branch:
    number: int
    parent: int
    at: int  # the line it left its parent at (from 1; 0 for branch 1)
    entries: list[Entry] = field(default_factory=list)


@dataclass(slots=True)
class Tree:
    """A session's branches, and where its head is (the branch, and the line the next message
    follows: its tip)."""

    branches: dict[int, Branch]
    head_branch: int
    head: int


_WHO = {"user": "you", "assistant": "model", "tool_result": "result"}
_TOLD = "[bastion: "  # what a front tells the model begins so (/undo-turn, a rewind)


def _entry(line: int, message: Mapping[str, Any]) -> Entry:
    role = str(message.get("role", ""))
    text = str(message.get("text") or message.get("content") or "")
    who = "bastion" if role == "user" and text.startswith(_TOLD) else _WHO.get(role, role)
    if role == "assistant" and not text.strip():
        calls = message.get("calls") or []
        text = ", ".join(str(c.get("name", "?")) for c in calls if isinstance(c, dict))
    elif role == "tool_result":
        text = f"{message.get('name', '')}: {text}"
    first = next((part for part in text.splitlines() if part.strip()), "")
    return Entry(line, who, first[:120])


def read_tree(events: Sequence[Mapping[str, Any]]) -> Tree:
    """The tree of a record's events (read up to the first `branch` event that cannot stand, as a
    rebuild stops there: verify names it)."""
    branches = Branches()
    tree = {1: Branch(1, 0, 0)}
    for index, event in enumerate(events):
        if event.get("type") == BRANCH:
            if branches.problem(index, event) is not None:
                break
            number = int(event[BRANCH])
            if number not in tree:
                tree[number] = Branch(number, int(event["parent"]), int(event["at"]))
        branches.feed(index, event)
        message = event.get("message")
        if event.get("type") == "message" and isinstance(message, dict):
            tree[branches.current].entries.append(_entry(index + 1, message))
    return Tree(tree, branches.current, branches.tip(branches.current) + 1)


def tree_lines(tree: Tree) -> list[str]:
    """The tree for a person: each branch's entries in order, a branch that left it drawn under the
    entry it left from, indented; the head marked."""
    children: dict[tuple[int, int], list[int]] = {}
    for b in tree.branches.values():
        if b.number != 1:
            children.setdefault((b.parent, b.at), []).append(b.number)
    width = len(str(max((e.line for b in tree.branches.values() for e in b.entries), default=1)))
    lines: list[str] = []

    def draw(number: int, depth: int) -> None:
        branch = tree.branches[number]
        pad = "  " * depth
        said = "" if number == 1 else f" (left branch {branch.parent} at line {branch.at})"
        lines.append(f"{pad}branch {number}{said}" + ("  <- head" if _empty_head(tree, branch) else ""))
        for child in children.get((number, 1), []) if number == 1 else []:
            draw(child, depth + 1)  # a branch from the header: a conversation begun anew
        for e in branch.entries:
            head = "  <- head" if e.line == tree.head and number == tree.head_branch else ""
            lines.append(f"{pad}  {e.line:>{width}}  {e.who:<7} {e.text}{head}")
            for child in children.get((number, e.line), []):
                draw(child, depth + 1)

    draw(1, 0)
    return lines


def _empty_head(tree: Tree, branch: Branch) -> bool:
    return branch.number == tree.head_branch and not branch.entries
