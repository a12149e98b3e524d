"""GNU sed's own reading of a script beside bastion's (analyzer/commands/sed_script.lark), and what GNU and
busybox sed do when they run it.

GNU sed 4.9 prints the program it compiled with `--debug` (`SED PROGRAM:`, one command a line, as
its debug.c writes it). `bastion_program` writes bastion's parse of the same script in that form,
modelling only what sed does to a regular expression between reading it and printing it
(compile.c's match_slash, which drops the backslash of `\\/`, and normalize_text, which turns `\\n`,
`\\t`, `\\d065`... into bytes); so two equal readings print the same lines, command for command,
address for address. A run happens in a scratch directory holding `input.txt` and `secret.txt`
(a canary): a file made, changed or removed there, or the canary in what sed printed, is an effect
(`w`, `r`, `e` at work), which a script bastion accepts must never have.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

# Private: the script judge and its grammar are what this oracle holds to sed's own reading.
from bastion.analyzer.commands._sed import SCRIPT, script_prints_only
from bastion.grammar import Tree

__all__ = [
    "BUSYBOX",
    "BUSYBOX_FLAGS",
    "CANARY",
    "GNU_SED",
    "Run",
    "Verdict",
    "bastion_program",
    "busybox_run",
    "compare",
    "gb18030",
    "gnu_run",
    "scratch",
]

CANARY = "BASTION-SED-CANARY-7f3a"
INPUT = "alpha\nbeta / gamma\n[x] 中 é\n\nlast line\n"


def _gnu_sed() -> str | None:
    found = shutil.which("sed")
    if found is None:
        return None
    done = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
    return found if "(GNU sed) 4." in done.stdout.split("\n", 1)[0] else None


GNU_SED = _gnu_sed()
BUSYBOX = shutil.which("busybox")
BUSYBOX_FLAGS = frozenset({"-n", "-E", "-r"})  # the flags of bastion's table busybox sed also has
_TIMEOUT = 20


class Run(NamedTuple):
    """What one sed run showed: the program GNU printed (None: sed refused the script, or busybox,
    which prints none) and the effects seen in the scratch directory and the output."""

    program: tuple[str, ...] | None
    effects: tuple[str, ...]


def scratch(directory: Path) -> Path:
    """A scratch directory for runs, holding the input and the canary."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "input.txt").write_text(INPUT)
    (directory / "secret.txt").write_text(CANARY + "\n")
    return directory


def _state(directory: Path) -> dict[str, bytes]:
    return {p.name: (p.read_bytes() if p.is_file() else b"<dir>") for p in directory.iterdir()}


def _run(
    argv: Sequence[str], directory: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[bytes], tuple[str, ...]]:
    before = _state(directory)
    done = subprocess.run(
        list(argv),
        cwd=directory,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=_TIMEOUT,
        check=False,
    )
    after = _state(directory)
    effects = [f"{name} made or changed" for name in sorted(after) if after[name] != before.get(name)]
    effects += [f"{name} removed" for name in sorted(set(before) - set(after))]
    if CANARY.encode() in done.stdout + done.stderr:
        effects.append("secret.txt read")
    for path in directory.iterdir():  # the next run starts from the same directory
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    scratch(directory)
    return done, tuple(effects)


def gnu_run(
    pieces: Sequence[str], flags: Sequence[str], directory: Path, env: dict[str, str] | None = None
) -> Run:
    """GNU sed --debug run on input.txt with each piece as an `-e` (one piece: the script operand)."""
    assert GNU_SED is not None
    script = (
        ["-e" if i % 2 == 0 else p for p in pieces for i in range(2)] if len(pieces) != 1 else [pieces[0]]
    )
    argv = [GNU_SED, "--debug", *flags, *script, "input.txt"]
    done, effects = _run(argv, directory, env or {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    lines = done.stdout.decode("utf-8", "replace").split("\n")
    if not lines or lines[0] != "SED PROGRAM:":
        return Run(None, effects)
    program = []
    for line in lines[1:]:
        if not line.startswith("  "):
            break
        program.append(line)
    return Run(tuple(program), effects)


def busybox_run(pieces: Sequence[str], flags: Sequence[str], directory: Path) -> Run:
    """busybox sed run on input.txt with the flags it knows (it prints no program)."""
    assert BUSYBOX is not None
    script = [w for p in pieces for w in ("-e", p)]
    kept = [f for f in flags if f in BUSYBOX_FLAGS]
    _, effects = _run(
        [BUSYBOX, "sed", *kept, *script, "input.txt"],
        directory,
        {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
    )
    return Run(None, effects)


# --- bastion's parse, printed as GNU sed's debug.c prints a program ------------------------------


def bastion_program(script: str, posix: bool = False) -> tuple[str, ...] | None:
    """The lines `sed --debug` prints for the program bastion reads in `script`, or None when
    bastion does not accept it."""
    if not script_prints_only(script):
        return None
    lines: list[str] = []
    _items(SCRIPT.parse(script), 1, lines, posix)
    return tuple(lines)


def _items(body: Tree, level: int, out: list[str], posix: bool) -> None:
    for item in body.children:
        address = [c for c in item.children if isinstance(c, Tree) and c.rule == "address"]
        bang = "!" in [c for c in item.children if isinstance(c, str)]
        command = next(c for c in item.children if isinstance(c, Tree) and c.rule == "command")
        where = _address(address[0], posix) if address else ""
        head = "  " * level + where + ("!" if bang else "") + (" " if where else "")
        first = command.children[0]
        if isinstance(first, Tree):  # a block
            out.append(head + "{")
            _items(first, level + 1, out, posix)
            out.append("  " * level + "}")
            continue
        text = str(first)
        if text in ("q", "l") and len(command.children) > 1:
            value = int(command.children[1]) % 2**64 % 2**32
            value = value - 2**32 if value >= 2**31 else value
            text += f" {value}" if value != -1 else ""
        out.append(head + text)


def _address(address: Tree, posix: bool) -> str:
    return ",".join(_one(part.children, posix) for part in address.children)


def _one(children: list[object], posix: bool) -> str:
    first = children[0]
    if isinstance(first, Tree):  # a regex and its flags
        flags = {str(c) for c in first.children[1:]}
        return _regex(str(first.children[0])[1:-1], posix) + "I" * ("I" in flags) + "M" * ("M" in flags)
    text = str(first)
    if text == "$":
        return "$"
    if "~" in text and not text.startswith("~"):
        line, step = (int(n) % 2**64 for n in text.split("~"))
        return f"{line}~{step}" if step else str(line)
    if text[0] in "+~":
        step = int(text[1:]) % 2**64
        return text[0] + str(step) if step else "[ADDR-NULL]"
    return str(int(text) % 2**64)


def _regex(content: str, posix: bool) -> str:
    """The pattern as debug.c prints it: match_slash's buffer, normalize_text'ed, each byte shown."""
    raw = bytearray()
    for piece, bracket in _pieces(content):
        if not bracket and piece == "\\/":
            piece = "/"
        raw += piece.encode()
    if not raw:
        return "//"
    shown = []
    for b in _normalize(bytes(raw), posix):
        if b == 0x2F:
            shown.append("\\/")
        elif 0x20 <= b < 0x7F and b != 0x5C:
            shown.append(chr(b))
        else:
            named = {7: "a", 0xC: "f", 0xD: "r", 9: "t", 0xB: "v", 0xA: "n", 0x5C: "\\"}.get(b)
            shown.append("\\" + (named or "o%03o" % (b if b < 0x80 else 0xFFFFFF00 | b)))
    return "/" + "".join(shown) + "/"


def _pieces(content: str) -> Iterator[tuple[str, bool]]:
    """The regex's characters as match_slash takes them: an escape pair, a whole bracket
    expression (True), or one character."""
    i = 0
    while i < len(content):
        if content[i] == "\\":
            yield content[i : i + 2], False
            i += 2
        elif content[i] == "[":
            j = i + 1 + (content[i + 1 : i + 2] == "^")
            j += content[j : j + 1] == "]"
            while j < len(content) and content[j] != "]":  # unclosed: GNU reads on past the `/`
                j = content.find(":]", j) + 2 if content.startswith("[:", j) else j + 1
                j = len(content) if j == 1 else j
            yield content[i : j + 1], True
            i = j + 1
        else:
            yield content[i], False
            i += 1


def _normalize(buf: bytes, posix: bool) -> bytes:
    """compile.c's normalize_text for TEXT_REGEX in a UTF-8 locale, in place as it runs."""
    b = bytearray(buf)
    p = q = 0
    bracket = 0
    while p < len(b):
        c = b[p]
        if c >= 0x80:  # a byte of a multibyte character: copied as it is
            b[q] = c
            p, q = p + 1, q + 1
            continue
        if c == 0x5C and p + 1 < len(b) and bracket == 0:
            p += 1
            e = chr(b[p])
            simple = {"a": 7, "f": 0xC, "n": 0xA, "\n": 0xA, "r": 0xD, "t": 9, "v": 0xB}
            if e in simple:
                b[q], p, q = simple[e], p + 1, q + 1
                continue
            if e in "dxo":
                value, p = _number(b, p, {"d": 10, "x": 16, "o": 8}[e])
                b[q], q = value, q + 1
                continue
            if e == "c":
                p += 1
                if p < len(b):
                    b[q], q = (ord(chr(b[p]).upper()) ^ 0x40) & 0xFF, q + 1
                    p += 2 if b[p] == 0x5C else 1
                    continue
                b[q], q = 0x5C, q + 1
                continue
            b[q], q = 0x5C, q + 1
        elif posix:
            ch = chr(c)
            if ch == "[" and not bracket:
                bracket = -1
            elif ch in ":.=" and bracket == -1 and p > 0 and b[p - 1] == 0x5B:
                bracket = c
            elif ch == "]" and bracket:
                if bracket == -1:
                    bracket = 0
                elif p > 1 and b[p - 2] != bracket and b[p - 1] == bracket:
                    bracket = -1
        b[q] = b[p]
        p, q = p + 1, q + 1
    return bytes(b[:q])


def _number(b: bytearray, at: int, base: int) -> tuple[int, int]:
    """compile.c's convert_number: (the byte, where reading goes on) for the escape letter at `at`."""
    n, most, p = 0, 1, at + 1
    while p < len(b) and most <= 255:
        d = int(chr(b[p]), 16) if chr(b[p]) in "0123456789abcdefABCDEF" else -1
        if d < 0 or d >= base:
            break
        n = n * base + d
        p, most = p + 1, most * base
    return (b[at] if p == at + 1 else n & 0xFF), p


def gb18030(directory: Path) -> dict[str, str] | None:
    """The environment of a run in zh_CN.GB18030 (a locale whose characters may end in an ASCII
    byte), compiled into `directory` by localedef; None where localedef or its sources are missing."""
    target = directory / "zh_CN.GB18030"
    if not target.exists():
        try:
            subprocess.run(
                ["localedef", "-i", "zh_CN", "-f", "GB18030", str(target)],
                capture_output=True,
                timeout=120,
                check=True,
            )
        except (OSError, subprocess.SubprocessError):
            return None
    return {"LC_ALL": "zh_CN.GB18030", "LOCPATH": str(directory), "PATH": "/usr/bin:/bin"}


class Verdict(NamedTuple):
    """One script compared: bastion's reading (None: it asks), whether GNU sed compiled it, and
    every way the two readings or a run disagreed with bastion's."""

    bastion: tuple[str, ...] | None
    gnu_read: bool
    problems: tuple[str, ...]


def compare(
    pieces: Sequence[str], flags: Sequence[str], directory: Path, gb: dict[str, str] | None = None
) -> Verdict:
    """Hold bastion's reading of a script to GNU sed's (in C.UTF-8, and in GB18030 when `gb` is
    given) and to the effects of GNU and busybox sed running it, when bastion accepts it."""
    ours = bastion_program("\n".join(pieces), posix="--posix" in flags)
    if ours is None:
        return Verdict(None, False, ())
    problems: list[str] = []
    runs = [("GNU sed", gnu_run(pieces, flags, directory))]
    if gb is not None:
        runs.append(("GNU sed in GB18030", gnu_run(pieces, flags, directory, gb)))
    if BUSYBOX is not None:
        runs.append(("busybox sed", busybox_run(pieces, flags, directory)))
    for who, run in runs:
        problems += [f"{who}: {effect}" for effect in run.effects]
        if run.program is not None and run.program != ours:
            problems.append(f"{who} read {run.program!r}, bastion {ours!r}")
    return Verdict(ours, runs[0][1].program is not None, tuple(problems))
