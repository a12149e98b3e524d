"""Words for people at the agent's screen, made here from the fields: what a call that asks would
do, in plain words first (`rm -f README.md` deletes a file), then the policy's detail (the rule
that asked and where it comes from, or that none allows it), wrapped at word boundaries to the
terminal's width; the answers a question takes, the rule `r` would remember (as the config lines
that hold it) and what became of it; what bastion says of an error, wrapped the same way. No word
of the policy's own vocabulary ("the subset", "vouch") reaches a question.
"""

from __future__ import annotations

import json
import shlex
import textwrap
from collections.abc import Callable, Mapping, Sequence

from ..._safe import safe_line
from ...policy import Decision, Offer, Verdict, cited, source_words

__all__ = [
    "choices",
    "detail",
    "headline",
    "not_saved",
    "offer_line",
    "offer_lines",
    "said",
    "saved_line",
    "why",
    "wrapped",
]

# What a command a person is asked about does, by its name: a phrase after the command's line.
# Anything not here is "a program bastion does not know to be harmless".
_DOES: dict[str, str] = {
    "rmdir": "removes a directory",
    "mv": "moves or renames files",
    "cp": "copies files (over any already there)",
    "mkdir": "creates a directory",
    "touch": "creates a file or changes its time",
    "chmod": "changes files' permissions",
    "chown": "changes files' owner",
    "ln": "makes a link",
    "tee": "writes to a file",
    "truncate": "cuts a file's length",
    "dd": "copies raw data, perhaps over a file",
    "curl": "reaches the network",
    "wget": "downloads from the network",
    "ssh": "connects to another machine",
    "scp": "copies to or from another machine",
    "rsync": "copies files, perhaps to another machine",
    "sudo": "runs a command as root",
    "kill": "signals (stops) a process",
    "pkill": "signals (stops) processes by name",
    "killall": "signals (stops) processes by name",
    "make": "runs the project's build (its Makefile can run anything)",
    "docker": "drives containers",
}
for _name in ("python", "python3", "node", "ruby", "perl", "bash", "sh", "zsh", "deno", "bun"):
    _DOES[_name] = "runs a program (which can do anything)"
_GIT_DOES: dict[str, str] = {
    "push": "sends commits to a remote",
    "commit": "records a commit",
    "add": "stages changes for a commit",
    "checkout": "changes the files checked out",
    "switch": "changes the branch checked out",
    "restore": "puts files back, discarding changes",
    "reset": "moves the branch, perhaps discarding changes",
    "clean": "deletes files git does not track",
    "rebase": "rewrites history",
    "merge": "joins histories",
    "cherry-pick": "copies commits onto the branch",
    "pull": "fetches from a remote and merges",
    "fetch": "fetches from a remote",
    "stash": "puts changes aside",
    "tag": "makes or removes a tag",
    "branch": "makes, renames or removes branches",
    "config": "changes git's settings",
    "rm": "deletes tracked files",
    "mv": "moves tracked files",
}
_INSTALLERS = frozenset({"pip", "pip3", "npm", "pnpm", "yarn", "cargo", "go", "uv", "gem", "bundle"})
# What the part of a line bastion does not read does, by the grammar's name for it.
_OUTSIDE_DOES: dict[str, str] = {
    "command substitution": "runs another command inside the line",
    "process substitution": "runs another command inside the line",
    "variable expansion": "uses a variable, whose value bastion cannot see ahead",
    "parameter expansion": "uses a variable, whose value bastion cannot see ahead",
    "an output redirect": "writes its output to a file",
    "an appending redirect": "adds its output to a file",
    "a redirect of both outputs": "writes its output to a file",
    "a redirect to a file or descriptor": "writes its output to a file",
    "an input redirect": "reads a file given by a redirect",
    "a here-document": "feeds text to a command",
    "a here-string": "feeds text to a command",
    "a subshell or grouping": "runs commands in a subshell",
    "tilde expansion at the start of a word": "names a home directory (`~`)",
}
_TOOL_DOES: dict[str, str] = {
    "read": "reads",
    "write": "writes",
    "edit": "changes",
    "ls": "lists",
    "glob": "searches the names below",
    "grep": "searches the files below",
}
# How much of a command line a question's first words quote (the whole line is shown below them).
_CODE = 80


def why(verdict: Verdict) -> str:
    """The verdict's reason with what decided it: the rule as written and where it came from."""
    parts = [verdict.reason]
    if verdict.rule:
        parts.append(f"rule {verdict.rule.text} ({cited(verdict.rule, verdict.source)})")
    return "; ".join(p for p in parts if p)


def detail(verdict: Verdict) -> str:
    """The policy's part of a question: the rule that asked and where it is from, or that no rule
    allows the call (asking is what bastion does then)."""
    if verdict.rule:
        return f"asked by the rule {verdict.rule.text} ({source_words(verdict.rule, verdict.source)})"
    if verdict.decision is Decision.ASK:
        return "no rule of yours or bastion's allows it, so bastion asks"
    return verdict.reason


def _files(words: Sequence[str]) -> list[str]:
    return [w for w in words if not w.startswith("-")]


def _rm(words: Sequence[str]) -> str:
    flags = [w for w in words if w.startswith("-") and not w.startswith("--")]
    if "--recursive" in words or any("r" in w.lower() for w in flags):
        return "deletes directories and everything in them"
    count = len(_files(words))
    return "deletes a file" if count <= 1 else f"deletes {count} files"


def _does(words: Sequence[str]) -> str:
    """What a command (its words) does, in a phrase."""
    if not words:
        return "runs nothing bastion can name"
    name, rest = words[0].rsplit("/", 1)[-1], words[1:]
    if name == "rm":
        return _rm(rest)
    if name == "git":
        sub = next((w for w in rest if not w.startswith("-")), "")
        return _GIT_DOES.get(sub, f"runs git{' ' + sub if sub else ''}, which may change the repository")
    if name in _INSTALLERS and {"install", "add", "i", "get"} & set(rest[:2]):
        return "installs packages (their install scripts can run anything)"
    if name in _INSTALLERS and {"run", "test", "exec", "build"} & set(rest[:2]):
        return "runs the project's own scripts (which can do anything)"
    if name == "sed" and any(w.startswith("-i") or w == "--in-place" for w in rest):
        return "edits files in place"
    return _DOES.get(name, f"runs {name}, which bastion does not know to be harmless")


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _code(text: str) -> str:
    line = " ".join(text.split())
    return f"`{line if len(line) <= _CODE else line[:_CODE].rsplit(' ', 1)[0] + ' …'}`"


def _bash(command: str, verdict: Verdict, analysis: object) -> str:
    subject = verdict.subject
    outside = getattr(analysis, "outside", None)
    if outside is not None:
        kind = outside.kind or ""
        does = _OUTSIDE_DOES.get(kind, f"uses {kind or 'a form'} that bastion cannot follow ahead")
        return f"{_code(command)} {does}"
    if subject is not None and subject.tool != "bash":  # a file the line reads, a path it names
        secret = " (a secret-looking name)" if verdict.shipped else ""
        verb = _TOOL_DOES.get(subject.tool, f"uses {subject.tool} on")
        return f"{_code(command)} {verb} {subject.value}{secret}"
    part = subject.value if subject is not None else command
    stages = getattr(analysis, "stages", ())
    check = next((r.check for r in stages if r.stage.text == part), None)
    where = f" ({subject.about})" if subject is not None and subject.about.startswith("part ") else ""
    if check is not None and check.why:
        return f"{_code(part)}{where}: {check.why}"
    return f"{_code(part)}{where} {_does(_words(part))}"


def headline(tool: str, args: Mapping[str, object], verdict: Verdict, analysis: object) -> str:
    """What the call would do, in plain words: the first thing a question says."""
    command = args.get("command")
    if tool == "bash" and isinstance(command, str):
        return _bash(command, verdict, analysis)
    path = args.get("path")
    if tool in _TOOL_DOES and isinstance(path, str):
        secret = ", a secret-looking name" if verdict.shipped else ""
        subject = verdict.subject
        found = f": {subject.why}" if subject is not None and subject.why else ""  # hard links, say
        return f"{_TOOL_DOES[tool]} {path}{secret}{found}"
    if tool == "task":
        kind = args.get("kind") if isinstance(args.get("kind"), str) else "explore"
        return f"hands a {kind} task to a sub-agent, whose every call is decided as yours are"
    return f"{tool} is a tool bastion does not run without asking"


def choices(always: bool, offered: bool) -> str:
    """The answers a question takes, after "allow CALL?" (with a rule offered, what each does is
    said above the prompt: `offer_lines`, so the prompt stays short)."""
    if offered:
        return "[y/n/a/r]" if always else "[y/n/r]"
    return "[y/n/a] (a: allow this exact call for the rest of the session)" if always else "[y/N]"


def offer_lines(offer: Offer, width: int, always: bool) -> list[str]:
    """What `r` would remember, shown under a question: the rules as the config lines that hold
    them (never wrapped), the file they go to, what they let through besides this call; and what
    `a` does, where it is offered too."""
    rules = ", ".join(offer.rules)
    said = wrapped(f"r remembers {rules} for this project only, in {offer.path}:", width - 2, indent="")
    notes = [line for w in offer.warnings for line in wrapped(f"(note: {w})", width - 4, indent=" ")]
    also = wrapped("a allows this exact call for the rest of the session", width - 2, indent="")
    return [
        *(f"  {line}" for line in said),
        f"      [projects.{json.dumps(offer.root, ensure_ascii=False)}.policy]",
        f"      allow = {json.dumps(list(offer.rules), ensure_ascii=False)}",
        *(f"    {line}" for line in notes),
        *(f"  {line}" for line in (also if always else [])),
    ]


def offer_line(offer: Offer) -> str:
    """The rules offered as one line of TOML that means what is written (the scope's list, by its
    dotted name), for a front that shows one line (the terminal client's panel)."""
    rules = json.dumps(list(offer.rules), ensure_ascii=False)
    return f"projects.{json.dumps(offer.root, ensure_ascii=False)}.policy.allow = {rules}"


def saved_line(offer: Offer) -> str:
    """What was done with a rule a person asked to remember."""
    return (
        f"remembered {', '.join(offer.rules)} in {offer.path} for {offer.root}: "
        "calls it allows run unasked here from now on"
    )


def not_saved(error: Exception) -> str:
    """Why a rule a person asked to remember was not, and what became of the call."""
    return f"not remembered: {error}; this call is allowed once"


def wrapped(text: str, width: int, indent: str = "  ", paint: Callable[[str], str] = str) -> list[str]:
    """`text` in lines of at most `width` columns, broken between words (a word longer than a
    line stays whole), the lines after the first indented; each line painted."""
    lines = textwrap.wrap(
        text,
        max(20, width),
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [paint(line) for line in lines or [""]]


def said(text: str, columns: int) -> str:
    """What bastion says (an error, a hint) made safe, in lines wrapped between words to `columns`."""
    return "\n".join(wrapped(safe_line(text), columns))
