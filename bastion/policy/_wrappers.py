"""Exec wrappers: the commands a command runs for it (timeout, env, sudo, xargs, find -exec...).

The second step of a bash call's subjects (the gate's `bash_subjects`: cut, unwrap, subjects):
`unwrap` gives, for each stage of a parsed line or each part of a cut one, what its words run
(`Runs`): the commands through exec wrappers, and the lines handed to a shell, each cut and
unwrapped in turn. What words run is a function of the words alone, so it is remembered.
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import TYPE_CHECKING, NamedTuple

from ._written import ASSIGNMENT, joined

if TYPE_CHECKING:
    from ..analyzer import Analysis
    from ._cut import Cut

__all__ = ["Handed", "Runs", "unwrap"]

# Exec wrappers, with how many words that are not options come before the command they run
# (timeout's DURATION, chroot's NEWROOT...). Words spelled NAME=VALUE are skipped (env, sudo).
_WRAPPERS: dict[str, int] = {
    **dict.fromkeys(
        [
            *("env", "nice", "nohup", "command", "builtin", "exec", "xargs", "sudo", "doas", "time"),
            *("stdbuf", "ionice", "setsid", "unbuffer", "watch", "strace", "ltrace", "busybox"),
            *("fakeroot", "firejail", "torsocks", "proxychains", "proxychains4", "nsenter", "unshare"),
            *("systemd-run", "catchsegv", "valgrind", "caffeinate", "parallel", "nocache", "numactl"),
            *("dbus-run-session", "xvfb-run", "eatmydata", "cgexec", "prlimit"),
        ],
        0,
    ),
    **dict.fromkeys(["timeout", "chrt", "taskset", "flock", "chroot", "sg"], 1),
}
# Options whose value is a line the wrapper hands to a shell.
_STRING_OPTIONS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("su", "runuser", "script", "flock"), frozenset({"-c", "--command"})),
    "env": frozenset({"-S", "--split-string"}),
}
_SHELLS = frozenset(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish"])
_SHELL_C = re.compile(r"-[a-zA-Z]*c[a-zA-Z]*")
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_MAX_INNER = 256
# How many lines deep the lines handed to a shell are cut (`bash -c "bash -c '...'"`).
_MAX_DEPTH = 3


class Handed(NamedTuple):
    """A line a command hands to a shell: its cut, and what each part of the cut runs (`runs`, one
    `Runs` per part)."""

    cut: Cut
    runs: tuple[Runs, ...]


class Runs(NamedTuple):
    """What one command's words run: `commands`, through exec wrappers (nested), each as one subject
    value (`joined`), and `handed`, the
    lines it hands to a shell (`bash -c LINE`, `eval`, `su -c`), cut while fewer than _MAX_DEPTH
    lines deep. Where a wrapper's options are unsure (does this flag take a value?), every word that
    could start the command does: these only ever deny or ask."""

    commands: tuple[str, ...]
    handed: tuple[Handed, ...]


def unwrap(analysis: Analysis, cut: Cut | None) -> tuple[Runs, ...]:
    """What each stage of a parsed line runs; for a line outside the subset (`cut`, its cut), what
    each of its parts runs."""
    if cut is None:
        return tuple(_runs(tuple(w.text for w in r.stage.words), 0) for r in analysis.stages)
    return tuple(_runs(part.words, 0) for part in cut.parts)


@functools.lru_cache(maxsize=1024)
def _runs(words: tuple[str, ...], depth: int) -> Runs:
    found, lines = _wrapped(words)
    commands = tuple(joined(c) for c in found)
    if depth >= _MAX_DEPTH or not lines:
        return Runs(commands, ())
    from ._cut import cut  # the dry-run path's weight: a line inside the subset is never cut

    handed = []
    for line in lines:
        inner = cut(line)
        handed.append(Handed(inner, tuple(_runs(part.words, depth + 1) for part in inner.parts)))
    return Runs(commands, tuple(handed))


def _wrapped(words: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """The commands `words` run through exec wrappers (nested), and the lines they hand to a shell."""
    commands: list[tuple[str, ...]] = []
    lines: list[str] = []
    todo = [words]
    seen: set[tuple[str, ...]] = set()
    while todo and len(seen) < _MAX_INNER:
        current = todo.pop()
        if not current or current in seen:
            continue
        seen.add(current)
        name = posixpath.basename(current[0])
        inner = [(name, *current[1:])] if name and name != current[0] else []
        if name in _WRAPPERS:
            inner += [current[s:] for s in sorted(_starts(current, _WRAPPERS[name]))]
        if name == "find":
            inner += _find_exec(current)
        lines += _strings(name, current)
        for command in inner:
            if command and command not in commands:
                commands.append(command)
                todo.append(command)
    return tuple(commands), tuple(lines)


def _starts(words: tuple[str, ...], positionals: int) -> set[int]:
    """Every index where the wrapped command could start."""
    starts: set[int] = set()
    todo = [(1, positionals, False)]
    seen: set[tuple[int, int, bool]] = set()
    while todo:
        state = todo.pop()
        at, left, ended = state
        if state in seen or at >= len(words):
            continue
        seen.add(state)
        word = words[at]
        if not ended and word == "--":
            todo.append((at + 1, left, True))
        elif not ended and word.startswith("-") and len(word) > 1:
            todo.append((at + 1, left, False))
            if "=" not in word:  # the option may take the next word as its value
                todo.append((at + 2, left, False))
        elif ASSIGNMENT.match(word):
            todo.append((at + 1, left, ended))
        elif left:
            todo.append((at + 1, left - 1, ended))
        else:
            starts.add(at)
    return starts


def _find_exec(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    found = []
    for i, word in enumerate(words):
        if word in _FIND_EXEC:
            end = next((j for j in range(i + 1, len(words)) if words[j] in (";", "+")), len(words))
            found.append(words[i + 1 : end])
    return found


def _strings(name: str, words: tuple[str, ...]) -> list[str]:
    if name == "eval":  # eval itself joins its words with spaces and reads them as a line
        return [" ".join(words[1:])] if len(words) > 1 else []
    options = _STRING_OPTIONS.get(name, frozenset())
    found = []
    for i, word in enumerate(words[1:-1], 1):
        if word in options or (name in _SHELLS and _SHELL_C.fullmatch(word)):
            found.append(words[i + 1])
        elif word.startswith("--command="):
            found.append(word.partition("=")[2])
    if words and words[-1].startswith("--command="):
        found.append(words[-1].partition("=")[2])
    return found
