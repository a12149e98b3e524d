"""What mawk, gawk and busybox awk read in a program, beside bastion's reading: the two sides of the
differential property of bastion's awk grammar (tests/analyzer/commands/test_awk_differential.py runs it
with a small budget, fuzz/awk_differential.py at length).

A reading (`Reading`) keeps what decides harm, in a form every reader can make:

* `regexes`: the bodies of the regular expression literals, as a sorted multiset;
* `divisions`: how many divisions;
* `calls`: the built-in functions called, as a sorted multiset;
* `extra`: whatever the program does that bastion's grammar never lets through (a redirect or a
  pipe after print, getline, system, printf, close, `/=`, ENVIRON, ARGV..., an instruction outside
  the benign ones): a real reader that finds any in a program bastion accepted read code bastion
  took for the inside of a regular expression or a string.

bastion's reading is made from its tokens (so any grammar's tokens can be held to the tools, the
old one's too); mawk's from `mawk -W dump`, its compiled code (a division is `div`, a literal
`match0 ADDR /body/` or `pushc ADDR /body/`; mawk compiles a constant string where a regular
expression is expected into one, so those strings count for mawk); gawk's from its debugger's
`dump` of the code compiled with `--no-optimize` (no constant folding: `1 / 2` stays a division).
busybox awk has no dump: `busybox_effects` runs the program in an empty directory beside a canary
file and a canary variable, and reports any file made or canary printed (the generated programs
hide `system("touch ...")`, redirects, getline and ENVIRON in their strings and regular expressions,
where only a misreading would run them).

Some compiler errors are not readings but refusals of the whole program, so nothing runs
(`TOLERATED`): `next` in BEGIN or END, gawk's division by a constant zero, mawk's name used as an
array and a scalar, mawk's regular expression that does not compile (`"*"` after `~`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "BUILTINS",
    "TOLERATED",
    "Reading",
    "Refused",
    "bastion_reading",
    "busybox_effects",
    "differences",
    "gawk_reading",
    "mawk_reading",
    "tool",
]

# (type, text) of each token, in order.
Tokens = Sequence[tuple[str, str]]

BUILTINS = frozenset((
    "length", "substr", "index", "split", "sub", "gsub", "match", "tolower", "toupper", "int", "sqrt",
    "exp", "log", "sin", "cos", "atan2", "rand", "srand",
))  # fmt: skip
# Arrays and variables that reach the environment, the arguments or the process.
SPECIAL = frozenset(["ENVIRON", "ARGV", "ARGC", "ARGIND", "PROCINFO", "SYMTAB", "FUNCTAB"])
TOLERATED = (
    re.compile(r"`next' used in (BEGIN|END) action"),
    re.compile(r"improper use of next"),
    re.compile(r"division by zero attempted"),
    re.compile(r"illegal reference to (array|variable)"),
    re.compile(r"regular expression compile failed"),
)
_TIMEOUT = 10


@dataclass(frozen=True)
class Reading:
    regexes: tuple[str, ...]
    divisions: int
    calls: tuple[str, ...]
    extra: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refused:
    """A reader's compiler refused the program: its message (`tolerated` when it is one of TOLERATED)."""

    message: str

    @property
    def tolerated(self) -> bool:
        return any(p.search(self.message) for p in TOLERATED)


def tool(name: str) -> list[str] | None:
    """The command that runs `name` (mawk, gawk, busybox awk), or None when it is missing."""
    if name == "busybox":
        found = shutil.which("busybox")
        if found is None:
            return None
        probe = subprocess.run([found, "awk", "BEGIN{}"], capture_output=True, timeout=_TIMEOUT, check=False)
        return [found, "awk"] if probe.returncode == 0 else None
    found = shutil.which(name)
    return [found] if found else None


# --- bastion's reading, from its tokens -----------------------------------------------------------

_ENDS_OPERAND = frozenset({")", "]", ",", ";", "\n", "}", "{", "&&", "||", ""})
_MAWK_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "f": "\f",
    "b": "\b",
    "r": "\r",
    "a": "\a",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}


def _mawk_string(literal: str) -> str:
    """A string literal's value as mawk makes it (scan.c's rm_escape)."""
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        if body[i] != "\\" or i + 1 == len(body):
            out.append(body[i])
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _MAWK_ESCAPES:
            out.append(_MAWK_ESCAPES[nxt])
            i += 2
        elif m := re.match(r"[0-7]{1,3}", body[i + 1 :]):
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i += 1 + len(m.group(0))
        elif nxt == "x" and (m := re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2 :])):
            out.append(chr(int(m.group(0), 16)))
            i += 2 + len(m.group(0))
        else:
            out.append(body[i : i + 2])
            i += 2
    return "".join(out)


def _regex_strings(tokens: Tokens) -> list[str]:
    """The string literals that stand alone (in parentheses or not) where a regular expression is
    expected: after `~`/`!~`, sub's and gsub's first argument, split's third, match's second (mawk
    compiles them)."""
    found: list[str] = []
    calls: list[tuple[str, int, int]] = []  # (function, argument index, parenthesis depth)
    depth = 0
    texts = [t for _, t in tokens]

    def at(index: int) -> str:
        return texts[index] if 0 <= index < len(texts) else ""

    for i, (kind, text) in enumerate(tokens):
        if text == "(":
            depth += 1
            if at(i - 1) in BUILTINS:
                calls.append((at(i - 1), 0, depth))
        elif text == ")":
            if calls and calls[-1][2] == depth:
                calls.pop()
            depth -= 1
        elif text == "," and calls and calls[-1][2] == depth:
            name, index, where = calls[-1]
            calls[-1] = (name, index + 1, where)
        elif kind == "STRING" or (text.startswith('"') and len(text) > 1):
            wrapped = 0
            while (
                at(i - 1 - wrapped) == "("
                and at(i + 1 + wrapped) == ")"
                and at(i - 2 - wrapped) not in BUILTINS
            ):
                wrapped += 1
            before, after = at(i - 1 - wrapped), at(i + 1 + wrapped)
            if before in ("~", "!~") and after in _ENDS_OPERAND:
                found.append(text)
            elif calls and calls[-1][2] == depth - wrapped and before in ("(", ",") and after in (",", ")"):
                name, index, _ = calls[-1]
                if (name, index) in {("sub", 0), ("gsub", 0), ("split", 2), ("match", 1)}:
                    found.append(text)
    return found


def bastion_reading(tokens: Tokens, tool_name: str) -> Reading:
    """bastion's reading as `tool_name` shows its own: regular expressions in its spelling."""
    regexes: list[str] = []
    divisions = 0
    calls: list[str] = []
    for kind, text in tokens:
        if kind == "REGEX":
            regexes.append(_spelled(text[1:-1], tool_name))
        elif text == "/":
            divisions += 1
        elif text in BUILTINS and kind not in ("NAME", "STRING"):
            calls.append(text)
    if tool_name == "mawk":
        regexes += [_mawk_string(s) for s in _regex_strings(tokens)]
    return Reading(tuple(sorted(regexes)), divisions, tuple(sorted(calls)))


def _spelled(body: str, tool_name: str) -> str:
    if tool_name == "mawk":  # mawk keeps a regular expression's text, `\/` made `/`
        return re.sub(r"\\(.)", lambda m: m.group(1) if m.group(1) == "/" else m.group(0), body)
    # gawk shows a tab as `\t` and each byte beyond ASCII as an octal escape
    return "".join(
        "\\t" if c == "\t" else c if ord(c) < 0x80 else "".join(f"\\{b:03o}" for b in c.encode())
        for c in body
    )


# --- mawk -------------------------------------------------------------------------------------------

_MAWK_LINE = re.compile(r"^(\d{3}) \.\t(\S+)(?:\t(.*))?$")
_MAWK_REGEX = re.compile(r"^0x[0-9a-f]+\t/(.*)/$", re.DOTALL)
_MAWK_BENIGN = frozenset((
    "omain", "ol_gl", "exit0", "exit", "jmain", "jmp", "jz", "jnz", "ljz", "ljnz", "test", "stop", "range",
    "match0", "match1", "match2", "pushc", "pushs", "pushd", "pushint", "pushi", "pusha", "a_pusha",
    "ae_pusha", "ae_pushi", "aa_pusha", "f_pusha", "f_pushi", "fe_pusha", "fe_pushi", "nf_pushi",
    "la_pusha", "a_cat", "ol_gl_nr", "assign", "f_assign", "ae_assign", "add", "sub", "mul", "div", "mod",
    "pow", "add_asg", "sub_asg", "mul_asg", "mod_asg", "pow_asg", "f_add_asg", "f_sub_asg", "f_mul_asg",
    "f_mod_asg", "f_pow_asg", "cat", "uminus", "uplus", "not", "eq", "neq", "lt", "lte", "gt", "gte", "pop",
    "post_inc", "post_dec", "pre_inc", "pre_dec", "f_post_inc", "f_post_dec", "f_pre_inc", "f_pre_dec",
    "print", "next", "_push_0", "_push_1", "pusha_0", "set_al",
)) | BUILTINS  # fmt: skip


def mawk_reading(program: str) -> Reading | Refused:
    """mawk's reading of a program (`mawk -W dump`), or its refusal."""
    command = tool("mawk")
    assert command is not None, "mawk is not installed"
    done = subprocess.run(
        [*command, "-W", "dump", "--", program],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        return Refused(done.stderr.decode(errors="replace").strip())
    return _mawk_dump(done.stdout.decode("utf-8", errors="surrogateescape"))


def _mawk_code(text: str) -> Iterable[str]:
    """The dump's lines of code: not those of the regular expression machines (after `# regex`)."""
    machine = False
    for line in text.splitlines():
        if not line[:1].isdigit():
            machine = line.startswith("# regex")
        elif not machine:
            yield line


def _mawk_dump(text: str) -> Reading:
    regexes: list[str] = []
    divisions = 0
    calls: list[str] = []
    extra: list[str] = []
    rows = [m.groups() for m in map(_MAWK_LINE.match, _mawk_code(text)) if m]
    for index, (offset, op, argument) in enumerate(rows):
        following = rows[index + 1][0] if index + 1 < len(rows) else None
        argument = argument or ""
        if found := _MAWK_REGEX.match(argument):
            regexes.append(found.group(1))
        if op == "div":
            divisions += 1
        # a built-in takes two words (the instruction and its function), `sub` the subtraction one
        wide = following is not None and int(following) - int(offset) == 2
        if op in BUILTINS and (op != "sub" or wide):
            calls.append(op)
        if op not in _MAWK_BENIGN:
            extra.append(op)
        if op == "print" and index and rows[index - 1][1] == "pushint" and rows[index - 1][2].startswith("-"):
            extra.append("print redirected")
        if argument.split("\t")[0] in SPECIAL:
            extra.append(argument)
    return Reading(tuple(sorted(regexes)), divisions, tuple(sorted(calls)), tuple(sorted(extra)))


# --- gawk -------------------------------------------------------------------------------------------

_GAWK_LINE = re.compile(r"^\[\s*\d*:0x[0-9a-f]+\] (Op_\w+)\s*:\s?(.*)$")
_GAWK_BENIGN = frozenset((
    "Op_rule", "Op_push_i", "Op_push", "Op_push_lhs", "Op_push_array", "Op_push_re", "Op_assign",
    "Op_store_var", "Op_var_assign", "Op_field_spec", "Op_field_spec_lhs", "Op_field_assign", "Op_pop",
    "Op_match_rec", "Op_match", "Op_nomatch", "Op_and", "Op_and_final", "Op_or", "Op_or_final", "Op_not",
    "Op_line_range", "Op_cond_pair", "Op_no_op", "Op_jmp", "Op_jmp_false", "Op_jmp_true", "Op_newfile",
    "Op_after_beginfile", "Op_get_record", "Op_after_endfile", "Op_atexit", "Op_stop", "Op_K_print",
    "Op_K_print_rec", "Op_K_next", "Op_K_exit", "Op_builtin", "Op_sub_builtin", "Op_quotient",
    "Op_quotient_i", "Op_times", "Op_times_i", "Op_mod", "Op_mod_i", "Op_plus", "Op_plus_i", "Op_minus",
    "Op_minus_i", "Op_exp", "Op_exp_i", "Op_unary_minus", "Op_unary_plus", "Op_concat", "Op_assign_concat",
    "Op_equal", "Op_notequal", "Op_less", "Op_greater", "Op_leq", "Op_geq", "Op_preincrement",
    "Op_predecrement", "Op_postincrement", "Op_postdecrement", "Op_subscript", "Op_subscript_lhs",
    "Op_subscript_assign", "Op_parens", "Op_var_update", "Op_assign_plus", "Op_assign_minus",
    "Op_assign_times", "Op_assign_exp", "Op_assign_mod", "Op_lint", "Op_exec_count", "Op_store_field",
    "Op_subscript_assign", "Op_push_arg", "Op_push_arg_untyped",
))  # fmt: skip


def gawk_reading(program: str) -> Reading | Refused:
    """gawk's reading of a program (its debugger's dump, compiled with --no-optimize), or its refusal."""
    command = tool("gawk")
    assert command is not None, "gawk is not installed"
    with tempfile.NamedTemporaryFile("w", suffix=".awk", encoding="utf-8", delete=False) as source:
        source.write(program + "\n")  # as gawk and mawk end a program given on the command line
    try:
        done = subprocess.run(
            [*command, "--no-optimize", "--debug", "-f", source.name],
            input=b"dump\nquit\n",
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
        )
    finally:
        os.unlink(source.name)
    err = done.stderr.decode(errors="replace").strip()
    if done.returncode != 0 or "error:" in err:
        return Refused(err)
    return _gawk_dump(done.stdout.decode("utf-8", errors="surrogateescape"))


def _gawk_dump(text: str) -> Reading:
    regexes: list[str] = []
    divisions = 0
    calls: list[str] = []
    extra: list[str] = []
    for found in filter(None, map(_GAWK_LINE.match, text.splitlines())):
        op, argument = found.groups()
        if op in ("Op_match_rec", "Op_match", "Op_nomatch", "Op_push_re") and argument.startswith("/"):
            regexes.append(argument[1 : argument.rindex("/")])
        if op in ("Op_quotient", "Op_quotient_i"):
            divisions += 1
        if op in ("Op_builtin", "Op_sub_builtin"):
            name = argument.split()[0]
            calls.append(name)
            if name not in BUILTINS:
                extra.append(name)
        if op not in _GAWK_BENIGN:
            extra.append(op)
        if "redir_type" in argument and 'redir_type = ""' not in argument:
            extra.append(f"{op} redirected")
        if (
            op in ("Op_push", "Op_push_array", "Op_push_lhs", "Op_store_var")
            and argument.split(" ")[0] in SPECIAL
        ):
            extra.append(argument)
    return Reading(tuple(sorted(regexes)), divisions, tuple(sorted(calls)), tuple(sorted(extra)))


# --- busybox: no dump, so its effects -------------------------------------------------------------

CANARY = "BASTION-AWK-CANARY"
INPUT = "alpha beta 3\ngamma /x/ 4\n"


def busybox_effects(program: str) -> tuple[str, ...] | Refused:
    """What busybox awk did beyond printing, running the program on two lines in an empty
    directory beside `canary.txt` and $AWK_CANARY (both holding CANARY): files made, a canary
    printed. Its refusal when it cannot compile the program."""
    command = tool("busybox")
    assert command is not None, "busybox awk is not installed"
    with tempfile.TemporaryDirectory(prefix="bastion-awk-") as where:
        with open(os.path.join(where, "input.txt"), "w", encoding="utf-8") as handle:
            handle.write(INPUT)
        with open(os.path.join(where, "canary.txt"), "w", encoding="utf-8") as handle:
            handle.write(CANARY + "-file\n")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "AWK_CANARY": CANARY + "-env", "LC_ALL": "C"}
        try:
            done = subprocess.run(
                [*command, "--", program, "input.txt"],
                cwd=where,
                env=env,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return ("ran past the timeout",)
        made = sorted(set(os.listdir(where)) - {"input.txt", "canary.txt"})
        err = done.stderr.decode(errors="replace")
        effects = [f"made {name}" for name in made]
        if CANARY.encode() in done.stdout or CANARY in err:
            effects.append("printed a canary")
        if effects:
            return tuple(effects)
        if done.returncode != 0 and ("syntax error" in err.lower() or "unexpected" in err.lower()):
            return Refused(err.strip())
        return ()


def differences(bastion: Reading, theirs: Reading) -> list[str]:
    """Where another reader's reading leaves bastion's: each a sentence."""
    found = [
        f"{what}: bastion {mine!r}, the tool {its!r}"
        for what, mine, its in _fields(bastion, theirs)
        if mine != its
    ]
    return (
        found + [f"the tool does what bastion never allows: {', '.join(theirs.extra)}"]
        if theirs.extra
        else found
    )


def _fields(a: Reading, b: Reading) -> Iterable[tuple[str, object, object]]:
    yield "regular expressions", Counter(a.regexes), Counter(b.regexes)
    yield "divisions", a.divisions, b.divisions
    yield "built-in calls", Counter(a.calls), Counter(b.calls)
