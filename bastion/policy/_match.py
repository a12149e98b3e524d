"""Matchers: how a rule's specifier meets a subject's value, compiled once when a policy is built.

Both bash commands and paths use one glob: `*` (or `**`) is any run of characters, spaces, quotes and `/`
included; a trailing `:*` means "the rest or nothing, after a word boundary" (`go test:*` matches
`go test` and `go test ./...`, not `go testing`); `:*` alone and `*` match everything; anything
else is literal and matched exactly, with no case folding. A shipped path pattern may start with
`ci:`, which folds case on both sides. The specifier of a rule for a named tool (`task(explore)`,
`skill(review)`, `memory(write)`) is the same glob over the name its call gives.

A bash command is matched as bastion writes it (each word that needs quoting single-quoted, one
word never two), and a pattern whose first word is written for a name (it starts with a literal
character and holds no `/`, quote or backslash) matches only a command whose first word is a name
too: shown bare and without `/`. So `ls:*`, `ls*` and `git *` never match `'ls /../x'` (a program
named "ls /../x", a path) nor `ls/../x` nor `/bin/ls`; `./script.sh:*` and `*` may.

A matcher holds its regular expression's source and compiles it when first used: a policy builds
one per rule (about 60 shipped), and a call meets few of them.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Sequence

from ._tools import COMMAND_TOOLS, MCP_TOOL, NAMED_TOOLS, PATH_TOOLS

__all__ = [
    "COMMAND_TOOLS",
    "PATH_TOOLS",
    "Matcher",
    "clean_path_pattern",
    "compile_command",
    "compile_glob",
    "matcher_for",
    "names_a_root",
]

_FOLD_CASE_PREFIX = "ci:"
# What keeps a first word from being a name: in a pattern, and (with the space) in a subject.
_NOT_A_NAME = "/'\"\\"
# The subject's first word is a name: bare (a quoted word starts with a quote) and without `/`.
_NAME_FIRST = rf"(?=[^ {re.escape(_NOT_A_NAME)}]+(?: |\Z))"


class Matcher:
    """A compiled specifier. `everything` is true for a pattern that matches any value at all;
    `source` is the regular expression a value must match in full (lowered first, if `fold_case`);
    `word_stem`: a trailing `:*` of the pattern means "this, or this, a space and anything" (every
    glob's; not an MCP rule's, whose `:` parts a server from its tool)."""

    __slots__ = ("_regex", "everything", "fold_case", "pattern", "source", "word_stem")

    def __init__(
        self, pattern: str, source: str, everything: bool, fold_case: bool = False, word_stem: bool = True
    ) -> None:
        self.pattern = pattern
        self.source = source
        self.everything = everything
        self.fold_case = fold_case
        self.word_stem = word_stem
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(self.source, re.DOTALL)
        return self._regex

    def __call__(self, value: str) -> bool:
        if self.fold_case:
            value = value.lower()
        return self.regex.fullmatch(value) is not None

    def __repr__(self) -> str:
        flags = f"everything={self.everything}, fold_case={self.fold_case}"
        return f"Matcher({self.pattern!r}, {self.source!r}, {flags})"


def _glob(pattern: str) -> str:
    return ".*".join(re.escape(part) for part in re.split(r"\*+", pattern))


@functools.lru_cache(maxsize=4096)
def compile_glob(pattern: str, *, fold_case: bool = False) -> Matcher:
    """The glob of the module docstring."""
    if pattern.endswith(":*"):
        stem = pattern[:-2]
        if stem.strip("*") == "":
            return Matcher(pattern, ".*", True, fold_case)
        return Matcher(pattern, f"{_glob(stem)}(?: .*)?", False, fold_case)
    everything = pattern.strip("*") == ""
    return Matcher(pattern, _glob(pattern), everything, fold_case)


@functools.lru_cache(maxsize=4096)
def compile_command(pattern: str) -> Matcher:
    """The glob of a bash rule: `compile_glob`'s, held to a name for a pattern written for one."""
    glob = compile_glob(pattern)
    first = pattern.removesuffix(":*").split(" ", 1)[0]
    if glob.everything or first == "" or first.startswith("*") or any(c in _NOT_A_NAME for c in first):
        return glob
    return Matcher(pattern, _NAME_FIRST + glob.source, False)


def names_a_root(pattern: str) -> bool:
    """Whether `clean_path_pattern` may clean this pattern differently for other roots (it is
    absolute): a rule of any other pattern compiles the same in every workspace."""
    return posixpath.normpath(pattern).startswith("/")


def clean_path_pattern(pattern: str, roots: Sequence[str]) -> str:
    """A user's path pattern cleaned as subject paths are: `./x`, `a/../x` and an absolute path
    inside the workspace become the root-relative `x` (the root itself is `.`)."""
    cleaned = posixpath.normpath(pattern)
    if cleaned.startswith("/"):
        for root in roots:
            root = posixpath.normpath(root)
            if cleaned == root:
                return "."
            if cleaned.startswith(root.rstrip("/") + "/"):
                return cleaned[len(root.rstrip("/")) + 1 :]
    return cleaned


def matcher_for(
    tool: str, pattern: str, *, roots: Sequence[str] = (), shipped: bool = False
) -> Matcher | None:
    """The matcher of a rule `tool(pattern)`, or None when the tool has no matcher."""
    if tool in COMMAND_TOOLS:
        return compile_command(pattern)
    if tool == MCP_TOOL:
        from ._mcp import mcp_pattern_source  # json with it: loaded when a policy has an MCP rule

        source = mcp_pattern_source(pattern)
        return None if source is None else Matcher(pattern, source, False, word_stem=False)
    if tool in NAMED_TOOLS:
        return compile_glob(pattern)
    if tool not in PATH_TOOLS:
        return None
    if shipped and pattern.startswith(_FOLD_CASE_PREFIX):
        return compile_glob(pattern[len(_FOLD_CASE_PREFIX) :].lower(), fold_case=True)
    return compile_glob(clean_path_pattern(pattern, roots))
