"""Which files a walking tool may open, and which directories it may enter: those the policy would
let a read (or a grep) of run unasked. A directory is asked by the same question, as a lister's
directory is a read subject of a bash line (design rule 41): glob and grep do not enter `.ssh`.

grep is decided on its path; the files below that path are no subject of the decision, so the walk
puts each file it would open to the same policy: a read and a grep of every name the file goes by
(its name under the path and, for a link, where it leads). The file is skipped when

* a deny rule names it, or an ask rule that is not the shipped secret list (yours, the project's);
* the shipped secret-path asks (`Read(ci:.env*)`, ...) name it for read and for grep alike: a rule of
  yours that lifts them for either tool (`allow read(.env)`) lets the walk open it.

A bare `ask grep` is about the call, which was decided already: it counts as the shipped asks do (it
ranks above them, so it may be what hides one), closing a file only if read is not open either. The
fallback says nothing about one file and skips none. A bare `ask read` or `deny read` skips all.

This is the one seam between the tools and the policy: the walk asks the policy of the gate the
tool context holds (a gate built on `Policy()` has the shipped rules).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ...policy import Decision, Policy, Subject

__all__ = ["Readable", "readable_by"]

# Whether a file may be opened by a walk, given the root-relative names it goes by.
Readable = Callable[[tuple[str, ...]], bool]

_OPEN, _SHIPPED_ASK, _RESTRICTED = 0, 1, 2


def _restriction(policy: Policy, tool: str, name: str) -> int:
    verdict = policy.decide([Subject(tool, name, about=f"a file {tool} opens below its path")])
    if verdict.decision is Decision.ALLOW or verdict.rule is None:
        return _OPEN
    bare = verdict.rule.specifier is None and not verdict.rule.tool_glob and tool == "grep"
    if verdict.decision is Decision.ASK and (verdict.shipped or bare):
        return _SHIPPED_ASK  # a bare `ask grep` ranks above the shipped asks: it may hide one
    return _RESTRICTED


def readable_by(policy: Policy) -> Readable:
    """The walk's question, put to `policy`."""

    def readable(names: tuple[str, ...]) -> bool:
        read = max(_restriction(policy, "read", n) for n in names)
        grep = max(_restriction(policy, "grep", n) for n in names)
        if _RESTRICTED in (read, grep):
            return False
        return not (read == _SHIPPED_ASK and grep == _SHIPPED_ASK)

    return readable


@functools.cache
def shipped_readable() -> Readable:
    """The question put to the shipped rules alone (a tool context built without a policy)."""
    return readable_by(Policy())
