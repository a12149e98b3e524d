r"""A SKILL.md's front matter: a strict reader of the small part of YAML skills are written in.

Not a YAML library (PyYAML would be a new dependency, and not a better one here): a skill's front
matter is a handful of keys with text values, and what a repository's file says must be read exactly
one way. A full YAML reader takes anchors and aliases (a small file that expands without bound),
tags, YAML 1.1's `yes`/`no`/`on` booleans and dates, so `name: no` or `description: 2026-01-01`
would not be text; this one accepts only the part below and says which line it stopped at.

The subset, between a first line `---` and the next `---` (or `...`), each key at the start of its
line, once:

    key: plain text            # to the end of the line (a ` #` starts a comment); indented lines
                               # after it continue it, joined with spaces
    key: 'single quoted'       # '' is one quote; on one line
    key: "double quoted"       # \\ \" \n \t \/ only; on one line
    key: [a, 'b c', "d"]       # a list of such values, on one line
    key: |   or   key: >       # a block of the indented lines after it (| keeps the line ends,
                               # > joins them; a - or + after either is taken as given)
    key:                       # followed by indented `- item` lines (a list) or `name: value`
      - item                   # lines (a table of text, one level)

Blank lines and `#` comment lines are skipped. Anything else (a tab in an indent, an anchor `&`,
an alias `*`, a tag `!`, a `{` table, a `: ` inside a plain value, nesting deeper than one level,
a key twice) is an error naming its line: the file is reported and its skill left out. Every value
is text (`true` is the text "true"): nothing is converted, so nothing surprises.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..._errors import BastionError

__all__ = ["FrontMatter", "FrontMatterError", "Value", "read_front_matter"]

Value = str | list[str] | dict[str, str]

_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.-]*):(?: (.*))?$")
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "/": "/"}
# A plain value may not start with these (YAML gives each a meaning this reader does not take).
_INDICATORS = "&*!{}%@`,]?"


class FrontMatterError(ValueError, BastionError):
    """What is wrong, and the line (1-based, in the whole file) it is on."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class FrontMatter(NamedTuple):
    """The keys and their values, the line each key is on, and the text after the front matter."""

    fields: dict[str, Value]
    lines: dict[str, int]
    body: str


def _comment_cut(text: str) -> str:
    cut = text.find(" #")
    return (text[:cut] if cut >= 0 else text).rstrip()


def _quoted(text: str, line: int) -> tuple[str, str]:
    """A quoted value at the start of `text`, and what follows it."""
    quote = text[0]
    out: list[str] = []
    i = 1
    while i < len(text):
        c = text[i]
        if quote == "'" and c == "'":
            if text[i + 1 : i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), text[i + 1 :]
        if quote == '"' and c == '"':
            return "".join(out), text[i + 1 :]
        if quote == '"' and c == "\\":
            escaped = _ESCAPES.get(text[i + 1 : i + 2])
            if escaped is None:
                raise FrontMatterError(line, f"the escape {text[i : i + 2]!r} is not one this reader takes")
            out.append(escaped)
            i += 2
            continue
        out.append(c)
        i += 1
    raise FrontMatterError(line, "a quoted value must end on its own line")


def _plain(text: str, line: int) -> str:
    value = _comment_cut(text)
    if value[:1] in _INDICATORS or value.startswith("- "):
        raise FrontMatterError(line, f"a value may not start with {value[:1]!r} here; quote it")
    if ": " in value or value.endswith(":"):
        raise FrontMatterError(line, "a value holding ': ' must be quoted")
    return value


def _scalar(text: str, line: int) -> str:
    """One value written on one line: quoted or plain."""
    if text[:1] in ("'", '"'):
        value, rest = _quoted(text, line)
        if _comment_cut(rest):
            raise FrontMatterError(line, f"{rest.strip()!r} follows the quoted value")
        return value
    return _plain(text, line)


def _flow(text: str, line: int) -> list[str]:
    """`[a, 'b', "c"]` on one line."""
    rest = text[1:].strip()
    items: list[str] = []
    while True:
        if rest.startswith("]"):
            if _comment_cut(rest[1:]):
                raise FrontMatterError(line, f"{rest[1:].strip()!r} follows the list")
            return items
        if rest[:1] in ("'", '"'):
            value, rest = _quoted(rest, line)
        else:
            end = min((i for i in (rest.find(","), rest.find("]")) if i >= 0), default=-1)
            if end < 0:
                raise FrontMatterError(line, "a list must end with ] on its own line")
            value, rest = rest[:end].strip(), rest[end:]
            if not value or value[:1] in _INDICATORS or "[" in value or ": " in value:
                raise FrontMatterError(line, f"{value!r} is not an item this reader takes; quote it")
        items.append(value)
        rest = rest.strip()
        if rest.startswith(","):
            rest = rest[1:].strip()
        elif not rest.startswith("]"):
            raise FrontMatterError(line, "list items are separated by commas")


def _block(lines: list[str], style: str) -> str:
    """A `|` or `>` block: its lines with their common indent taken off."""
    while lines and not lines[-1].strip():
        lines.pop()
    indent = min((len(x) - len(x.lstrip(" ")) for x in lines if x.strip()), default=0)
    kept = [x[indent:] for x in lines]
    if style.startswith("|"):
        return "\n".join(kept)
    out = ""
    for x in kept:
        if not x:
            out += "\n"
        else:
            out += (" " if out and not out.endswith("\n") else "") + x
    return out


def _nested(rows: list[tuple[int, int, str]]) -> Value:
    """The indented lines after a bare `key:`: a list of `- item` lines or a table of text, every
    line at the same indent (one level)."""
    for n, indent, _ in rows:
        if indent != rows[0][1]:
            raise FrontMatterError(n, "nesting deeper than one level (or an uneven indent)")
    if all(text.startswith("- ") or text == "-" for _, _, text in rows):
        return [_scalar(text[2:].strip(), n) for n, _, text in rows]
    table: dict[str, str] = {}
    for n, _, text in rows:
        m = _KEY.match(text)
        if m is None:
            raise FrontMatterError(n, "expected `name: value` or `- item` here (one level only)")
        if m.group(1) in table:
            raise FrontMatterError(n, f"{m.group(1)!r} is given twice")
        table[m.group(1)] = _scalar((m.group(2) or "").strip(), n)
    return table


def _value(first: str, rows: list[tuple[int, int, str]], raw: list[str], line: int) -> Value:
    """A key's value: what follows its colon (`first`) and the indented lines after it."""
    if first[:1] in ("|", ">"):
        if first.rstrip() not in ("|", ">", "|-", ">-", "|+", ">+"):
            raise FrontMatterError(line, f"{first!r}: a block is `|` or `>` alone on its line")
        return _block(raw, first)
    if first.startswith("["):
        if rows:
            raise FrontMatterError(rows[0][0], "a list in [ ] must be on one line")
        return _flow(first, line)
    if not first:
        return _nested(rows) if rows else ""
    if first[:1] in ("'", '"'):
        if rows:
            raise FrontMatterError(rows[0][0], "a quoted value must be on one line")
        return _scalar(first, line)
    parts = [_plain(first, line), *(_plain(text, n) for n, _, text in rows)]
    return " ".join(p for p in parts if p)


def read_front_matter(text: str) -> FrontMatter:
    """The front matter of a SKILL.md's text and its body. Raises FrontMatterError naming the line."""
    lines = text.removeprefix("\ufeff").split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise FrontMatterError(1, "a SKILL.md starts with a line `---` and its front matter")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontMatterError(len(lines), "the front matter has no closing `---` line")
    fields: dict[str, Value] = {}
    where: dict[str, int] = {}
    i = 1
    while i < end:
        line = lines[i].rstrip("\r")
        n = i + 1
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[:1] in (" ", "\t"):
            raise FrontMatterError(n, "an indented line must follow a key")
        m = _KEY.match(line.rstrip())
        if m is None:
            raise FrontMatterError(n, "expected `key: value`")
        key, first = m.group(1), (m.group(2) or "").strip()
        if key in fields:
            raise FrontMatterError(n, f"{key!r} is given twice")
        rows: list[tuple[int, int, str]] = []
        raw: list[str] = []
        while i < end and (lines[i][:1] in (" ", "\t") or not lines[i].strip()):
            row = lines[i].rstrip("\r")
            if "\t" in row[: len(row) - len(row.lstrip())]:
                raise FrontMatterError(i + 1, "a tab in an indent (indent with spaces)")
            raw.append(row)
            if row.strip() and not (first[:1] not in ("|", ">") and row.lstrip().startswith("#")):
                rows.append((i + 1, len(row) - len(row.lstrip(" ")), row.strip()))
            i += 1
        fields[key] = _value(first, rows, raw, n)
        where[key] = n
    return FrontMatter(fields, where, "\n".join(lines[end + 1 :]))
