"""The cut of a line outside the subset: its simple commands and the files its redirects write.

The first step of a bash call's subjects (the gate's `bash_subjects`: cut, unwrap, subjects), and
of the lines a command hands to a shell, which the wrappers' step cuts in turn.

bashlex reads the line as bash would (quotes and backslashes removed, `$(...)`, backticks and
`<(...)` opened), so a deny rule about a command reaches it however it is spelled; where bashlex
cannot read the line, a textual split is the best effort. The cut never allows anything: its
parts and targets only feed deny and ask rules and the question put to the person.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ._written import ASSIGNMENT, joined

__all__ = ["Cut", "Part", "Target", "cut"]


@dataclass(frozen=True, slots=True)
class Part:
    """A simple command: its words as bash sees them, leading assignments and redirects dropped.

    `cd` is the directory of a plain `cd DIR`; `moves` marks any other cd, pushd or popd; `text`
    is the words as one subject value, each word still one (`joined`), made with the cut."""

    words: tuple[str, ...]
    pos: int
    cd: str | None = None
    moves: bool = False
    text: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", joined(self.words))


@dataclass(frozen=True, slots=True)
class Target:
    """A file a redirect opens for writing. `raw` is the word after quote removal; `expands`
    says bash expands it (a parameter, a substitution, a glob, a tilde...), so it is unknown."""

    raw: str
    pos: int
    expands: bool


@dataclass(frozen=True, slots=True)
class Cut:
    """A line cut; `complete` is false when bashlex could not read it (a textual best effort)."""

    line: str
    parts: tuple[Part, ...]
    targets: tuple[Target, ...]
    complete: bool


_MAX_DEPTH = 4
_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>"})
_EXPANDS = frozenset("$`*?~\\{[")
_CD_UNSAFE = frozenset("$`'\"\\~*?[]{}()")
_KEYWORDS = frozenset({"!", "if", "then", "elif", "else", "do", "while", "until", "time", "coproc", "{", "("})


def _node() -> Any:
    """bashlex's node class. bashlex is imported only when a line outside the subset is cut: it
    builds parser tables when imported, which the lines inside the subset never need."""
    from bashlex.ast import node

    return node


@functools.lru_cache(maxsize=1024)
def cut(line: str, depth: int = 0) -> Cut:
    """Cut `line`; never raises. The cut depends on the text alone, so a line is cut once."""
    try:
        import bashlex

        trees = bashlex.parse(line)
        found = _Found(line, depth)
        for tree in trees:
            found.visit(tree)
        return Cut(line, tuple(found.parts), tuple(found.targets), True)
    except Exception:  # bashlex raises on much of bash; the textual cut is the best effort
        return _textual(line)


def _children(node: Any) -> Iterator[Any]:
    for value in vars(node).values():
        if isinstance(value, _node()):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, _node()))


@dataclass
class _Found:
    """The parts and targets of a bashlex tree, gathered in the order bash reads them."""

    line: str
    depth: int
    parts: list[Part] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)

    def visit(self, node: Any) -> None:
        if id(node) in self.seen:  # a function's body is both one of its parts and its body
            return
        self.seen.add(id(node))
        if node.kind == "command":
            self.parts.append(_part(self.line, node))
        elif node.kind == "redirect":
            target = _target(self.line, node)
            if target is not None:
                self.targets.append(target)
        elif node.kind == "parameter" and self.depth < _MAX_DEPTH:
            # bashlex leaves a substitution inside ${...} unopened: cut it on its own.
            value = str(getattr(node, "value", ""))
            starts = [i for i in (value.find("$("), value.find("`")) if i >= 0]
            if starts:
                inner = cut(value[min(starts) :], self.depth + 1)
                self.parts.extend(Part(p.words, node.pos[0], p.cd, p.moves) for p in inner.parts)
                self.targets.extend(Target(t.raw, node.pos[0], t.expands) for t in inner.targets)
        for child in _children(node):
            self.visit(child)


def _part(line: str, node: Any) -> Part:
    words: list[str] = []
    sources: list[str] = []
    for child in node.parts:
        if child.kind == "assignment" and not words:
            continue
        if child.kind in ("word", "assignment"):
            words.append(child.word)
            sources.append(line[child.pos[0] : child.pos[1]])
    return _with_cd(tuple(words), node.pos[0], sources)


def _with_cd(words: tuple[str, ...], pos: int, sources: list[str]) -> Part:
    if not words or words[0] not in ("cd", "pushd", "popd"):
        return Part(words, pos)
    plain = (
        words[0] == "cd"
        and len(words) == 2
        and words[1] != ""
        and not words[1].startswith("-")
        and not _CD_UNSAFE & set(sources[1])
    )
    return Part(words, pos, cd=words[1]) if plain else Part(words, pos, moves=True)


def _target(line: str, node: Any) -> Target | None:
    output = getattr(node, "output", None)
    if node.type not in _WRITES or not isinstance(output, _node()) or output.kind != "word":
        return None  # a descriptor operation (>&2, >&-), a read or a here-document
    source = line[output.pos[0] : output.pos[1]]
    expands = bool(_EXPANDS & (set(source) | set(output.word))) or bool(getattr(output, "parts", None))
    return Target(output.word, node.pos[0], expands or output.word == "")


_SEPARATOR = re.compile(r"[;&|\n()`]")
_REDIRECT = re.compile(r"(?:\d*>>?|&>>?|>\||>&|<>)[ \t]*([^\s;&|<>()]*)")


def _textual(line: str) -> Cut:
    parts: list[Part] = []
    pos = 0
    for piece in _SEPARATOR.split(line):
        text = piece.strip()
        if text:
            for words in _word_lists(text):
                parts.append(_with_cd(words, pos, list(words)))
        pos += len(piece) + 1
    targets = []
    for match in _REDIRECT.finditer(line):
        raw = match.group(1).strip("'\"")
        if raw.isdigit() or raw == "-":
            continue
        expands = raw == "" or bool(_EXPANDS & set(match.group(1)))
        targets.append(Target(raw, match.start(), expands))
    return Cut(line, tuple(parts), tuple(targets), False)


def _word_lists(text: str) -> list[tuple[str, ...]]:
    """The piece as typed, and as shlex reads it with leading keywords and assignments dropped."""
    lists = [tuple(text.split())]
    try:
        words = shlex.split(text.lstrip("({! \t"))
    except ValueError:
        words = text.lstrip("({! \t").split()
    while words and (words[0] in _KEYWORDS or ASSIGNMENT.match(words[0])):
        words = words[1:]
    if words and tuple(words) != lists[0]:
        lists.append(tuple(words))
    return lists
