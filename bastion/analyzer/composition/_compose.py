"""Composition: a reader run on names another command hands it (design rule 65).

    find ... -exec CMD ... {} ;      find ... -exec CMD ... {} +
    find ... | xargs [-0|-d D] [-r] [-n N] [-P N] [-I R] CMD ...
    grep -l ... | xargs CMD ...       (and a chain: ... | xargs grep -l ... | xargs CMD ...)

CMD is one of the readers (cat, grep, head, tail, wc), decided by the same checker as on its own
with the names as its file operands: every name the producer can hand on, found now, is given to
it (20 at a time, as a line names them), so each is a read subject, inside the working directory,
a regular file under the read bound. What makes that enough is the plan, which holds whatever the
names are:
- the producer's names are provably safe: a find whose walk the plan controls (bastion/analyzer/
  _find_names.py: `-P`, secret directories pruned, only regular files of no secret-looking name
  handed on), or a `grep -l`/`-L` whose files were checked (its operands, or the files its `-r`
  reads with the secret excludes), or an xargs `grep -l` of such names;
- they go on NUL-separated: the producer's plan ends its names with NUL (find `-print0`, grep `-Z`)
  and xargs runs with `-0`, so blanks, quotes, backslashes and newlines in a name are the name's
  (without it `notes .env x.py` would reach CMD as three names, `.env` among them);
- CMD runs by its absolute path with its options first and `--` before its operands, so a name
  that starts with `-` is a file; xargs runs with `-r`, so CMD never runs without names (it would
  read standard input).
`-execdir`, `-ok`, `-okdir`, any other CMD (a writer, a shell), xargs reading a stream of any other
stage, and xargs options that read a file or a terminal (`-a`, `-o`, `-p`) ask.
"""

from __future__ import annotations

import posixpath
import re
import stat
from collections.abc import Sequence
from typing import NamedTuple

from ...grammar import Redirect, Stage, Word
from .._result import Check, Context
from ..commands import FILE_COMMANDS, MAX_FILES, TABLES, grep_words, options_first, parse_args
from ._find_names import Found, found_names, planned_find, split_find
from ._tracked import tracked_names

__all__ = ["INNER", "check_find_exec", "compose", "inner_command"]

# The commands that may read what a producer hands on.
INNER = ("cat", "grep", "head", "tail", "wc")
_LISTS = frozenset({"-l", "-L"})


class Inner(NamedTuple):
    """A reader run on handed-on names: its planned words (command, options, `--`, operands; the
    names come after), what it reads, or why not."""

    words: tuple[Word, ...] = ()
    reads: tuple[str, ...] = ()
    why: str = ""


def inner(ctx: Context, words: tuple[Word, ...], names: Sequence[str], how: str) -> Inner:
    """`words` (the command and its arguments, without the names' place) as its own checker
    decides it with `names` as its file operands."""
    command = words[0].text
    if command not in INNER:
        return Inner(
            why=f"{how} runs {command!r} on the names, and only the readers {', '.join(INNER)} may run "
            "on them unasked"
        )
    if any("{}" in w.text for w in words) and how.startswith("find"):
        return Inner(why=f"{how}: find puts the name wherever `{{}}` stands; it may stand only last")
    if command == "grep":
        split = grep_words(words[1:])
        if isinstance(split, str):
            return Inner(why=split)
        options, operands = split.options, split.operands
        if {"-r", "--recursive"} & _grep_flags(words):
            return Inner(why=f"{how}: grep -r on handed-on names would walk below each, which is not checked")
    else:
        found = options_first(TABLES[command], words[1:])
        if isinstance(found, str):
            return Inner(why=f"{command}: {found}")
        options, operands = found
    if any(w.glob for w in operands):
        return Inner(why=f"{how}: a glob beside the names is expanded to names this check never saw")
    planned = (words[0], *options, Word("--"), *operands)
    checker = FILE_COMMANDS[command]
    sub = ctx._replace(after_pipe=False)
    # The form as typed, with a stand-in for the names (so that its options are judged even when
    # there are none to hand on now), then the names, as many at a time as a line may name.
    typed = checker(sub, Stage((*planned, Word(posixpath.join(".", "{}")))))
    if not typed.ok:
        return Inner(why=typed.why)
    reads: dict[str, None] = {}
    for i in range(0, len(names), MAX_FILES):
        check = checker(sub, Stage((*planned, *(Word(n) for n in names[i : i + MAX_FILES]))))
        if not check.ok:
            return Inner(why=f"{how}: {check.why}")
        reads.update(dict.fromkeys(check.reads))
    return Inner(planned, tuple(reads))


def _grep_flags(words: tuple[Word, ...]) -> frozenset[str]:
    """The flags of a grep stage's words (letters of a cluster each one), none if unreadable."""
    split = grep_words(words[1:])
    if isinstance(split, str):
        return frozenset()
    return frozenset(f for f, _ in parse_args("grep", TABLES["grep"], (*split.options, Word("--"))).flags)


def _lists_names(words: tuple[Word, ...]) -> bool:
    """Whether a grep prints file names only (`-l` or `-L`, without -c or -o)."""
    flags = _grep_flags(words)
    return bool(_LISTS & flags) and not {"-c", "-o"} & flags


def check_find_exec(ctx: Context, stage: Stage) -> Check:
    """find ... -exec CMD ... {} ; (or {} +): the walk guarded, CMD judged on every name it can get."""
    return _find_exec(ctx, stage, nul=False)[0]


def _find_exec(ctx: Context, stage: Stage, nul: bool) -> tuple[Check, tuple[str, ...]]:
    """The check of a find -exec, and the names it hands on; with `nul`, its CMD is a `grep -l`
    whose names go on to xargs, NUL-ended (`-Z`)."""
    parts = split_find(stage)
    if isinstance(parts, str):
        return Check.refuse(parts), ()
    words = parts.inner
    if not words or words[-1].text != "{}":
        return Check.refuse(
            "find -exec without `{}` last runs its command on no name: it reads standard input"
        ), ()
    typed = words[:-1]
    # Narrower than xargs, on purpose: -exec hands names to a search only, and a walk whose errors
    # are sent away asks (a person reading the result cannot tell what the walk could not read).
    if typed[0].text != "grep":
        return Check.refuse(
            f"find -exec {typed[0].text}: -exec runs unasked only with grep (xargs takes the other readers)"
        ), ()
    if any(";" in w.text for w in typed[1:]):
        return Check.refuse(
            "a `;` inside find -exec's command reads like the end of the -exec: which words are grep's is"
            " not plain to a person reading the line"
        ), ()
    if stage.redirects:
        return Check.refuse("find -exec with its errors redirected hides what the walk could not read"), ()
    if nul and not (typed[0].text == "grep" and _lists_names(typed)):
        return Check.refuse("find -exec's output goes on as names only when its command is grep -l"), ()
    if nul and any(w in ("-print", "-print0", "-ls") for w in parts.expression):
        return Check.refuse(
            "find prints names beside its -exec's, so the stream is not only grep's names"
        ), ()

    def action(guarded: tuple[str, ...]) -> tuple[str, ...]:
        return (*guarded, "-exec", "\x00inner", "{}", parts.terminator)

    found = planned_find(ctx, stage, parts, action)
    if found.why:
        return Check.refuse(found.why), ()
    judged = inner(ctx, typed, found.names, f"find -exec {typed[0].text}")
    if judged.why:
        return Check.refuse(judged.why), ()
    run = (judged.words[0], Word("-Z"), *judged.words[1:]) if nul else judged.words
    at = next(i for i, w in enumerate(found.words) if w.text == "\x00inner")
    plan = (*found.words[:at], *run, *found.words[at + 1 :])
    return Check(ok=True, reads=judged.reads, lists=found.lists, words=plan, inner=(at,)), found.names


# --- xargs -----------------------------------------------------------------------------------

_XARGS_REFUSED = {
    "-a": "xargs -a reads the names from a file that is not checked",
    "--arg-file": "xargs --arg-file reads the names from a file that is not checked",
    "-o": "xargs -o gives the command the terminal as its input",
    "--open-tty": "xargs --open-tty gives the command the terminal as its input",
    "-p": "xargs -p asks on the terminal before each command",
    "--interactive": "xargs --interactive asks on the terminal before each command",
    "-E": "xargs -E stops at a word of the input, which the check does not follow",
    "-e": "xargs -e stops at a word of the input, which the check does not follow",
    "-L": "xargs -L reads lines, and a line ending in a blank goes on with the next",
    "-l": "xargs -l reads lines, and a line ending in a blank goes on with the next",
    "--process-slot-var": "xargs --process-slot-var sets a variable in the command's environment",
}
_NUMBER = re.compile(r"[1-9][0-9]{0,5}")


class _Xargs(NamedTuple):
    """xargs read as GNU xargs reads it (options until the first other word): the options the plan
    keeps, the replace-string of -I ("" for none) and the command's words."""

    kept: tuple[str, ...]
    replace: str
    command: tuple[Word, ...]


def _xargs_words(stage: Stage) -> _Xargs | str:
    words = [w.text for w in stage.args]
    kept: list[str] = []
    replace = ""
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        word = words[i]
        i += 1
        if word == "--":
            break
        name, eq, attached = word.partition("=") if word.startswith("--") else (word[:2], "", word[2:])
        if word in ("-0", "--null", "-r", "--no-run-if-empty", "-0r", "-r0"):
            continue  # the plan says both
        if word in ("-t", "--verbose"):
            kept.append("-t")
            continue
        if word in ("-i", "--replace"):
            replace = "{}"
            continue
        if name in ("-n", "--max-args", "-P", "--max-procs", "-d", "--delimiter", "-I"):
            value = attached if (attached or eq) else (words[i] if i < len(words) else None)
            if value is None:
                return f"xargs {word} needs a value"
            if not (attached or eq):
                i += 1
            if name in ("-d", "--delimiter"):
                continue  # the plan hands names on NUL-separated (-0) instead
            if name == "-I":
                replace = value
                continue
            if not _NUMBER.fullmatch(value):
                return f"xargs {word} {value!r}: a count of 1 to 999999 is expected"
            kept += ["-n" if name in ("-n", "--max-args") else "-P", value]
            continue
        if name in _XARGS_REFUSED:
            return _XARGS_REFUSED[name]
        return (
            f"xargs {word!r} is not an option bastion knows, and an unknown one could read or run something"
        )
    if i >= len(words):
        return "xargs without a command runs echo on the names; name the command"
    return _Xargs(tuple(kept), replace, tuple(stage.args[i:]))


class _Stream(NamedTuple):
    """A stage whose names go on to xargs: its check (plan ending names with NUL), and the names
    it can hand on now (from the stage's directory)."""

    check: Check
    names: tuple[str, ...]
    hands_on: bool = True


def _grep_lists(ctx: Context, stage: Stage, checker_check: Check) -> _Stream:
    """grep -l/-L as the first stage: its names are files its check read-checked."""
    if not _lists_names(stage.words):
        return _Stream(
            Check.refuse("xargs is given grep's output, which is names only with -l or -L (and no -c or -o)"),
            (),
        )
    words = checker_check.words or stage.words
    names = tuple(dict.fromkeys(_from(ctx, n) for n in checker_check.reads if _regular(ctx, n)))
    return _Stream(checker_check._replace(words=(words[0], Word("-Z"), *words[1:])), names)


def _regular(ctx: Context, name: str) -> bool:
    try:
        return stat.S_ISREG(ctx.ws.lstat(name).st_mode)
    except OSError:
        return False


def _from(ctx: Context, name: str) -> str:
    """A root-relative name as written from the stage's directory."""
    return name if ctx.cwd == "." else posixpath.relpath(name, ctx.cwd)


def _stream(ctx: Context, stage: Stage, position: int, before: dict[int, _Stream]) -> _Stream:
    """What the stage before an xargs hands on, or a refusal saying why it cannot."""
    command = stage.command
    if Redirect.ERR_TO_OUT in stage.redirects:
        return _Stream(
            Check.refuse(f"{command} 2>&1 mixes its error messages into the names xargs reads"), ()
        )
    if position > 0 and command == "xargs" and position in before:
        prior = before[position]
        if prior.check.ok and not prior.hands_on:
            return _Stream(
                Check.refuse("xargs reads the output of an xargs whose command is not grep -l: not names"), ()
            )
        return prior
    if position > 0:
        return _Stream(
            Check.refuse(f"xargs reads names from {command} after a pipe, a stream bastion did not check"), ()
        )
    if command == "find":
        parts = split_find(stage)
        if isinstance(parts, str):
            return _Stream(Check.refuse(parts), ())
        if parts.inner:
            check, names = _find_exec(ctx, stage, nul=True)
            return _Stream(check, names if check.ok else ())
        found = found_names(ctx, stage, parts)
        return _found_stream(found)
    if command == "git":
        from ..git import check_git

        tracked = tracked_names(ctx, stage, check_git(ctx, stage))
        return _Stream(tracked.check, tracked.names)
    if command == "grep":
        own = FILE_COMMANDS["grep"](ctx, stage)
        if not own.ok:
            return _Stream(own, ())
        return _grep_lists(ctx, stage, own)
    return _Stream(
        Check.refuse(f"xargs reads names from {command}, which is not a stream of names bastion checked"), ()
    )


def _found_stream(found: Found) -> _Stream:
    if found.why:
        return _Stream(Check.refuse(found.why), ())
    return _Stream(Check(ok=True, lists=found.lists, words=found.words), found.names)


def _check_xargs(ctx: Context, stage: Stage, given: _Stream, feeds: bool) -> _Stream:
    """xargs CMD on a checked stream: CMD judged on every name; the plan `xargs -0 -r ... CMD
    OPTIONS -- OPERANDS [R]`. When it `feeds` another xargs, what it hands on: its `grep -l`'s
    names, NUL-ended (`-Z`)."""
    if not given.check.ok:
        return _Stream(
            Check.refuse(f"xargs reads the names of a stage that is not run unasked: {given.check.why}"), ()
        )
    read = _xargs_words(stage)
    if isinstance(read, str):
        return _Stream(Check.refuse(read), ())
    words = read.command
    if read.replace:
        if words[-1].text != read.replace or any(read.replace in w.text for w in words[:-1]):
            return _Stream(
                Check.refuse(
                    f"xargs -I {read.replace} puts the name wherever {read.replace!r} stands; it may "
                    "stand only last"
                ),
                (),
            )
        words = words[:-1]
    judged = inner(ctx, words, given.names, f"xargs {words[0].text}")
    if judged.why:
        return _Stream(Check.refuse(judged.why), ())
    run = judged.words
    hands_on = feeds and words[0].text == "grep" and _lists_names(words)
    if hands_on:
        run = (run[0], Word("-Z"), *run[1:])
    options = ("-0", "-r", *read.kept, *(("-I", read.replace) if read.replace else ()))
    plan = (
        stage.words[0],
        *(Word(o) for o in options),
        *run,
        *((Word(read.replace),) if read.replace else ()),
    )
    check = Check(ok=True, reads=judged.reads, words=plan, inner=(1 + len(options),))
    return _Stream(check, given.names if hands_on else (), hands_on)


def compose(ctx: Context, stages: Sequence[Stage]) -> dict[int, Check]:
    """The checks of a pipeline's xargs stages and of the stages whose names they read, by
    position (each stage's context is `ctx`, after a pipe past the first)."""
    out: dict[int, Check] = {}
    streams: dict[int, _Stream] = {}
    for position, stage in enumerate(stages):
        if stage.command != "xargs":
            continue
        here = ctx._replace(after_pipe=position > 0)
        if position == 0:
            out[0] = Check.refuse(
                "xargs reads names from standard input, which here is not a stream bastion checked"
            )
            continue
        try:
            before = ctx._replace(after_pipe=position > 1)
            given = _stream(before, stages[position - 1], position - 1, streams)
            out.setdefault(position - 1, given.check)
            feeds = position + 1 < len(stages) and stages[position + 1].command == "xargs"
            made = _check_xargs(here, stage, given, feeds)
        except Exception as err:  # a failure asks
            made = _Stream(Check.refuse(f"the xargs checker failed: {type(err).__name__}: {err}"), ())
        streams[position] = made
        out[position] = made.check
    return out


def inner_command(stage: Stage) -> str:
    """The command a find -exec or an xargs stage runs on the names ("" for none or unreadable):
    the one other program its plan may start (fuzz/execution.py's property allows it)."""
    if stage.command == "find":
        parts = split_find(stage)
        return parts.inner[0].text if not isinstance(parts, str) and parts.inner else ""
    if stage.command == "xargs":
        read = _xargs_words(stage)
        return read.command[0].text if not isinstance(read, str) else ""
    return ""
