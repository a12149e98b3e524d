"""Generated sed scripts for the differential of analyzer/commands/sed_script.lark against GNU and
busybox sed.

A script is drawn item by item from every token class the grammar has and the ones it does not:
addresses (numbers with leading zeros, `$`, `first~step`, `/re/` with `I` and `M`, `,+N`, `,~N`,
`0,/re/`), `!` with blanks around it, the print-only commands with and without numbers
(`q5`, `l 0`), blocks, separators (`;`, newlines, blanks, none), and among them the commands that
write, read or run (`w`, `W`, `r`, `R`, `e`, `s///w`, `s///e`, `a`, `y`, comments, labels). Regular
expressions are built from the characters that decide where one ends: `/` escaped or inside a
bracket, backslashes, `[`, `]`, `[^]...]`, `[:class:]`, newlines, characters beyond ASCII beside
a backslash or a bracket. A script may be split into several `-e` pieces at any character (a
piece may end in a backslash), and a fifth of the scripts are a generated one with a character
inserted, removed or replaced. Everything is drawn from a `random.Random`, so hypothesis (through
`st.randoms()`) and the long run share the generator.
"""

from __future__ import annotations

import random
from typing import NamedTuple

__all__ = ["FLAGS", "Case", "case"]

FLAGS = ("-n", "-E", "-r", "-s", "-u", "-z", "--posix")
_COMMANDS = ("p", "p", "p", "=", "l", "q", "d", "n")
_HOSTILE = (
    "w out.txt",
    "W out.txt",
    "r secret.txt",
    "R secret.txt",
    "e touch ran.txt",
    "e",
    "s/a/b/w out.txt",
    "s/x/cat secret.txt/e",
    "a text",
    "i\\",
    "y/a/b/",
    "N",
    "x",
    "F",
    ":a",
    "b",
    "# comment",
    "#n",
    "Q",
    "v",
    "z",
)
_ATOMS = (
    "a", "x", "0", " ", ".", "*", "^", "$", ";", "p", "w out.txt", "}", "{", "!", "#", ",", "é", "中",
    "Ⅻ", "\t", "\\/", "\\\\", "\\n", "\\t", "\\.", "\\[", "\\]", "\\p", "\\;", "\\中", "\\é", "\\d065",
    "\\x2f", "\\o57", "\\cA", "[/]", "[^/]", "[]/]", "[^]/]", "[[:alpha:]]", "[[:space:]/]", "[a\\]",
    "[\\/]", "[中]", "[x中]", "[[:digit:]x]", "[/", "]", "[", "\\", "中\\", "é]", "/", "\n",
)  # fmt: skip
# The characters where a regular expression's end is decided, drawn alone in a third of them: a bracket
# opened in one and closed in a later one (`/[/p;/]/p`), a class closing early for busybox, a
# backslash before a bracket or the delimiter, a character beyond ASCII before either.
_EDGES = ("[", "]", "^", "\\", "/", "[:", ":]", "[:alpha:]", "a", "p;", ";p;", "中", "é", "\n")
_CLEAN = tuple(a for a in _ATOMS if a not in ("[/", "[", "]", "\\", "/", "\n", "中\\", "é]", "[中]", "[x中]"))
_MUTATIONS = "/\\[]^:;{}!pwqld=nreI M\t\n0123456789$,~+é中#s"


class Case(NamedTuple):
    """A script as the command line gives it: its `-e` pieces and sed's flags."""

    pieces: tuple[str, ...]
    flags: tuple[str, ...]


def case(rng: random.Random) -> Case:
    """One generated script with flags: half of them drawn only from what bastion accepts (so that
    many reach sed), half from everything."""
    clean = rng.random() < 0.5
    script = _body(rng, 0, clean)
    if not clean and rng.random() < 0.3 and script:
        script = _mutate(rng, script)
    pieces = [script]
    while rng.random() < 0.3 and len(pieces[-1]) > 1:
        cut = rng.randrange(1, len(pieces[-1]))
        last = pieces.pop()
        pieces += [last[:cut], last[cut:]]
    flags = tuple(f for f in FLAGS if rng.random() < 0.15)
    return Case(tuple(pieces), ("-n", *flags) if "-n" not in flags and rng.random() < 0.5 else flags)


def _body(rng: random.Random, depth: int, clean: bool) -> str:
    out = rng.choice(("", "", ";", "\n", " "))
    for i in range(rng.randint(1, 4)):
        if i:
            out += rng.choice((";", ";", "\n", " ; ", ";;", "\t;\t", *(() if clean else ("", " "))))
        out += _item(rng, depth, clean)
    return out + rng.choice(("", "", ";", "\n", " "))


def _item(rng: random.Random, depth: int, clean: bool) -> str:
    address = _address(rng, clean) if rng.random() < 0.7 else ""
    bangs = ("", "", "", "!", " ! ", "! ", *(() if clean else ("!!",)))
    bang = rng.choice(bangs) if address or rng.random() < 0.1 else ""
    roll = rng.random()
    if roll < 0.1 and not clean:
        command = rng.choice(_HOSTILE)
    elif roll < 0.3 and depth < 2:
        command = "{" + _body(rng, depth + 1, clean) + "}"
    else:
        command = rng.choice(_COMMANDS)
        if command in "ql" and rng.random() < 0.4:
            command += rng.choice(("", " ")) + rng.choice(
                ("0", "5", "07", "4294967295", "99999999999999999999")
            )
    return address + bang + command


def _address(rng: random.Random, clean: bool) -> str:
    first = _point(rng, True, clean)
    if rng.random() < 0.4:
        return first + rng.choice((",", ", ", " ,")) + _point(rng, False, clean)
    return first + rng.choice(("", "", " "))


def _point(rng: random.Random, first: bool, clean: bool) -> str:
    roll = rng.random()
    if roll < 0.25:
        return rng.choice(("1", "3", "0", "007", "$", "18446744073709551617"))
    if roll < 0.35:
        return rng.choice(("0~3", "2~0", "1~2")) if first else rng.choice(("+3", "~4", "+0", "~0"))
    if roll < 0.4 and not clean:
        return rng.choice(("+3", "~4", "\\%x%", "1 ~ 2"))
    flags = rng.choice(("", "", "", "I", "M", "IM", " I", "I M"))
    atoms = _CLEAN if clean else _EDGES if rng.random() < 0.3 else _ATOMS
    return "/" + "".join(rng.choice(atoms) for _ in range(rng.randint(0, 5))) + "/" + flags


def _mutate(rng: random.Random, script: str) -> str:
    at = rng.randrange(len(script))
    char = rng.choice(_MUTATIONS)
    roll = rng.random()
    if roll < 0.4:
        return script[:at] + char + script[at:]
    if roll < 0.7:
        return script[:at] + script[at + 1 :]
    return script[:at] + char + script[at + 1 :]
