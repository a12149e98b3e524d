"""cat, head, tail, wc and grep as the first stage (they read files) and as filters after a pipe,
with sort, uniq and cut, which are filters only.

GNU sort spills an input bigger than its buffer (about 2 MB from a pipe) to temporary files in
$TMPDIR or /tmp: a write. Its plan therefore sorts in memory up to SORT_MEMORY (`-S`) and names
/dev/null as the only temporary directory (`-T`): a bigger input makes sort stop with "cannot
create temporary file in '/dev/null': Not a directory" (the open fails, nothing is written)."""

from __future__ import annotations

import posixpath
import re
from typing import NamedTuple

from ...grammar import Stage, Word
from ...workspace import resolve
from .._result import Check, Checker, Context
from ._flags import ANY, COUNT, NUMBER, ONE_CHAR, Args, FlagTable, parse_args
from ._glob import operand
from ._grepr import MAX_TREE_FILES, exclude_globs, exclude_words, operand_name, tree_files
from ._listers import secret_dirs

__all__ = ["FILE_COMMANDS", "FILTER_COMMANDS", "MAX_FILES", "SORT_IN_MEMORY"]

MAX_FILES = 20
# The words sort's plan runs with: at most this much memory, and a temporary directory that cannot be
# written (only filled as the input needs it: 20 files at the default read bound, 40 MB of short
# lines, take ~380 MB).
SORT_MEMORY = "512M"
SORT_IN_MEMORY = (Word("-S"), Word(SORT_MEMORY), Word("-T"), Word("/dev/null"))

_FOLLOW = "tail in follow mode never ends and keeps reading whatever the file becomes"
_TAIL_REFUSED = {
    "-f": _FOLLOW,
    "-F": _FOLLOW,
    "--follow": _FOLLOW,
    "--retry": _FOLLOW,
    "--pid": _FOLLOW,
    "-s": _FOLLOW,
    "--sleep-interval": _FOLLOW,
}
_GREP_REFUSED = {
    "-f": "grep -f reads patterns from a file that is not checked",
    "--file": "grep --file reads patterns from a file that is not checked",
    "-R": "grep -R reads every file below a directory and follows links out of it",
    "--dereference-recursive": "grep --dereference-recursive reads files below a directory, following links",
    "-d": "grep -d recurse reads every file below a directory, which are not checked",
    "--directories": "grep --directories=recurse reads every file below a directory, which are not checked",
    "-D": "grep -D read opens devices and FIFOs, which can block or never end",
    "--devices": "grep --devices=read opens devices and FIFOs, which can block or never end",
    "--exclude-from": "grep --exclude-from reads a file that is not checked",
    **{
        flag: f"grep {flag} GLOB takes the next word, which could be `--`: write {flag}=GLOB"
        for flag in ("--include", "--exclude", "--exclude-dir")
    },
}
_WC_REFUSED = {
    "--files0-from": "wc --files0-from reads the names of the files to count from a file that is not checked",
}


def _head_tail(refused: dict[str, str]) -> FlagTable:
    return FlagTable(
        bare=frozenset({"-q", "-v"}),
        letters="qv",
        spaced={"-n": COUNT, "-c": COUNT},
        attached={"--lines=": COUNT, "--bytes=": COUNT},
        digits=True,
        refused=refused,
    )


TABLES: dict[str, FlagTable] = {
    "cat": FlagTable(bare=frozenset({"-n", "-b", "-s", "-E", "-T", "-A", "-v"}), letters="nbsETAv"),
    "head": _head_tail({}),
    "tail": _head_tail(_TAIL_REFUSED),
    "wc": FlagTable(bare=frozenset({"-l", "-w", "-c", "-m", "-L"}), letters="lwcmL", refused=_WC_REFUSED),
    "grep": FlagTable(
        # -Z (--null) ends each file name grep prints with NUL instead of ":" or a newline.
        bare=frozenset({*("-" + c for c in "ivcnEFwxohHlLqsaIrZ"), "--recursive", "--null"}),
        letters="ivcnEFwxohHlLqsaIrZ",
        spaced={"-m": NUMBER, "-A": NUMBER, "-B": NUMBER, "-C": NUMBER, "-e": ANY},
        # They only narrow what a recursive grep reads; bastion's own excludes come after them and win.
        attached={"--include=": ANY, "--exclude=": ANY, "--exclude-dir=": ANY},
        digits=True,
        refused=_GREP_REFUSED,
    ),
    "sort": FlagTable(
        bare=frozenset("-" + c for c in "rnufhVbd"),
        letters="rnufhVbd",
        spaced={"-k": re.compile(r"[0-9.,nrb]+"), "-t": ONE_CHAR},
        refused={
            "-o": "sort -o writes its output to a file",
            "-S": "sort -S sets the memory beyond which sort spills to temporary files (bastion sets it)",
            "--buffer-size": "sort --buffer-size sets when sort spills to temporary files (bastion sets it)",
            "--output": "sort --output writes its output to a file",
            "-T": "sort -T writes temporary files to a directory of the caller's choice",
            "--temporary-directory": "sort --temporary-directory writes files to a chosen directory",
            "--compress-program": "sort --compress-program runs a program",
            "--files0-from": "sort --files0-from reads the names of files to sort from an unchecked file",
            "--random-source": "sort --random-source reads a file that is not checked",
        },
    ),
    "uniq": FlagTable(
        bare=frozenset({"-c", "-d", "-u", "-i"}),
        letters="cdui",
        spaced={"-f": NUMBER, "-s": NUMBER, "-w": NUMBER},
    ),
    "cut": FlagTable(
        bare=frozenset({"--complement", "-s"}),
        letters="s",
        spaced={
            "-d": ONE_CHAR,
            "-f": re.compile(r"[0-9,-]+"),
            "-c": re.compile(r"[0-9,-]+"),
            "-b": re.compile(r"[0-9,-]+"),
        },
        attached={"-d": ONE_CHAR, "-f": re.compile(r"[0-9,-]+"), "-c": re.compile(r"[0-9,-]+")},
    ),
}

_STDIN = "'-' makes {0} read standard input, which here is the terminal or whatever the runner passes"


def _split_pattern(args: Args, command: str) -> tuple[str | None, tuple[str, ...]]:
    """grep's pattern (the first operand unless -e was given) and its files."""
    if command != "grep" or args.has("-e"):
        return None, args.operands
    if not args.operands:
        return None, ()
    return args.operands[0], args.operands[1:]


def _needs_pattern(args: Args, command: str) -> str:
    if command == "grep" and not args.has("-e") and not args.operands:
        return "grep needs a pattern, and without one it would take a file name as the pattern"
    return ""


def _tail_obsolete(command: str, files: tuple[str, ...]) -> str:
    if command == "tail" and any(f.startswith("+") for f in files):
        return "tail reads a leading +word as an old-style option, which can follow a file forever"
    return ""


def _read_file(ctx: Context, command: str, raw: str, reads: list[str]) -> str:
    """Why `raw` may not be read, or "" (then its names are added to `reads`)."""
    if raw == "-":
        return _STDIN.format(command)
    r = resolve(ctx.ws, ctx.cwd, raw)
    if not r.ok:
        return r.why
    if r.exists:
        if not r.is_regular:
            return (
                f"{command} {raw!r}: not a regular file, and a directory, FIFO or device can block, "
                "never end or read something else"
            )
        size = r.size
        if size > ctx.max_read_bytes:
            return (
                f"{command} {raw!r} is {size} bytes, over the {ctx.max_read_bytes}-byte read limit "
                "that keeps a huge file out of the conversation"
            )
    for name in (r.name, r.real):
        if name not in reads:
            reads.append(name)
    return ""


def options_first(
    table: FlagTable, words: tuple[Word, ...]
) -> tuple[tuple[Word, ...], tuple[Word, ...]] | str:
    """A reader's words as its getopt reads them: the options (a spaced value with its flag) and
    the operands, globs among them, in order; or why not (an option after an operand)."""
    options: list[Word] = []
    operands: list[Word] = []
    ended = False
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word.glob or ended or word.text == "-" or not word.text.startswith("-"):
            operands.append(word)
        elif word.text == "--":
            ended = True
        elif operands:
            return (
                f"the option {word.text!r} comes after an operand, which bash passes on as a file name "
                "when POSIXLY_CORRECT is set; put options first"
            )
        else:
            options.append(word)
            if word.text in table.spaced and i < len(words):
                options.append(words[i])
                i += 1
    return tuple(options), tuple(operands)


def _check_first(ctx: Context, stage: Stage) -> Check:
    command = stage.command
    if any(w.glob for w in stage.args):
        return _check_globbed(ctx, stage)
    args = parse_args(command, TABLES[command], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if why := _needs_pattern(args, command):
        return Check.refuse(why)
    _, files = _split_pattern(args, command)
    if not files:
        return Check.refuse(f"{command} without a file reads standard input, which is not checked")
    if len(files) > MAX_FILES:
        return Check.refuse(f"{command} names more than {MAX_FILES} files, more than one call should read")
    if why := _tail_obsolete(command, files):
        return Check.refuse(why)
    reads: list[str] = []
    for raw in files:
        if why := _read_file(ctx, command, raw, reads):
            return Check.refuse(why)
    return Check(ok=True, reads=tuple(reads))


def _check_globbed(ctx: Context, stage: Stage) -> Check:
    """cat, head, tail or wc with globs among their files: each match read-checked as a file named
    would be; the plan runs options, `--`, then the files (a match named `-n` is a file), a glob that
    matches nothing quoted."""
    command = stage.command
    split = options_first(TABLES[command], stage.args)
    if isinstance(split, str):
        return Check.refuse(f"{command}: {split}")
    options, operands = split
    plain = tuple(w for w in operands if not w.glob)
    args = parse_args(command, TABLES[command], (*options, Word("--"), *plain))
    if not args.ok:
        return Check.refuse(args.why)
    globbed = _globbed(ctx, operands)
    if isinstance(globbed, str):
        return Check.refuse(globbed)
    files, ran, lists = globbed
    if len(files) > MAX_FILES:
        return Check.refuse(f"{command} names more than {MAX_FILES} files, more than one call should read")
    if why := _tail_obsolete(command, tuple(files)):
        return Check.refuse(why)
    reads: list[str] = []
    for raw in files:
        if why := _read_file(ctx, command, raw, reads):
            return Check.refuse(why)
    return Check(ok=True, reads=tuple(reads), lists=lists, words=(stage.words[0], *options, Word("--"), *ran))


def _check_filter(ctx: Context, stage: Stage) -> Check:
    command = stage.command
    args = parse_args(command, TABLES[command], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if why := _needs_pattern(args, command):
        return Check.refuse(why)
    _, files = _split_pattern(args, command)
    if files:
        return Check.refuse(
            f"{command} after a pipe reads standard input; the operand {files[0]!r} is a "
            "file (or uniq's output file) that is not checked"
        )
    if command == "sort":
        return Check(ok=True, words=(stage.words[0], *SORT_IN_MEMORY, *stage.args))
    return Check(ok=True)


# --- grep: options anywhere (GNU getopt permutes them), values attached, glob operands ----------

# A cluster of grep's letters ending in a flag that takes a value: `-A5`, `-nC3`, `-ie PAT`.
_GREP_CLUSTER = re.compile(
    "-([{}]*)([{}])(.*)".format(
        re.escape(TABLES["grep"].letters), "".join(f[1] for f in TABLES["grep"].spaced if len(f) == 2)
    ),
    re.DOTALL,
)


class _GrepWords(NamedTuple):
    """grep's arguments as GNU grep reads them: its options (each value a word of its own, in
    order), its operands (pattern, files and globs, in order), and whether an option came after
    an operand (which POSIXLY_CORRECT would make a file name)."""

    options: tuple[Word, ...]
    operands: tuple[Word, ...]
    late: bool


def grep_words(words: tuple[Word, ...]) -> _GrepWords | str:
    """Options wherever they stand until `--` (GNU getopt's permutation), a cluster ending in a
    flag with a value split into flags and value; or why the words cannot be read."""
    options: list[Word] = []
    operands: list[Word] = []
    late = ended = False
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if ended or word.glob or word.text == "-" or not word.text.startswith("-"):
            operands.append(word)
            continue
        if word.text == "--":
            ended = True
            continue
        late = late or bool(operands)
        cluster = _GREP_CLUSTER.fullmatch(word.text)
        if cluster is None:
            options.append(word)
            continue
        letters, flag, value = cluster.groups()
        options.extend(Word(f"-{c}") for c in (*letters, flag))
        if value:
            options.append(Word(value))
        elif i < len(words):
            options.append(words[i])
            i += 1
        else:
            return f"grep -{flag} needs a value, and without one it takes the next word"
    return _GrepWords(tuple(options), tuple(operands), late)


def _check_grep(ctx: Context, stage: Stage) -> Check:
    """grep as a first stage (files, globs among them) or after a pipe (standard input only). A
    line with an option after an operand or a glob runs rewritten: options first, then `--`, then
    the operands, so that POSIXLY_CORRECT cannot make an option a file name and a name a glob
    expands to (`-f.py`) is never read as an option. A recursive grep (`-r`) is judged by every
    file it reads, and runs with the secret excludes (bastion/analyzer/commands/_grepr.py)."""
    split = grep_words(stage.args)
    if isinstance(split, str):
        return Check.refuse(split)
    plain = tuple(w for w in split.operands if not w.glob)
    args = parse_args("grep", TABLES["grep"], (*split.options, Word("--"), *plain))
    if not args.ok:
        return Check.refuse(args.why)
    if why := _needs_pattern(args, "grep"):
        return Check.refuse(why)
    if not args.has("-e") and split.operands[0].glob:
        return Check.refuse(
            f"grep's pattern is the glob {split.operands[0].text!r}, which bash expands to "
            "names this check never saw"
        )
    recursive = args.has("-r") or args.has("--recursive")
    files = split.operands if args.has("-e") else split.operands[1:]
    if ctx.after_pipe:
        if recursive:
            return Check.refuse("grep -r after a pipe searches the working directory, not its input")
        if files:
            return Check.refuse(
                f"grep after a pipe reads standard input; the operand {files[0].text!r} is a "
                "file that is not checked"
            )
        return Check(ok=True, words=_grep_rewritten(stage, split))
    globbed = _globbed(ctx, files)
    if isinstance(globbed, str):
        return Check.refuse(globbed)
    names, ran, lists = globbed
    if ran != files:  # a glob that matches nothing runs as the literal name it was decided as
        split = split._replace(operands=(*split.operands[: len(split.operands) - len(files)], *ran))
    if not names and recursive:
        names = ["."]  # grep -r without a file searches the working directory
    if not names:
        return Check.refuse("grep without a file reads standard input, which is not checked")
    if len(names) > MAX_FILES:
        return Check.refuse(f"grep names more than {MAX_FILES} files, more than one call should read")
    if recursive:
        return _check_recursive(ctx, stage, split, names)._replace(lists=lists)
    reads: list[str] = []
    for raw in names:
        if why := _read_file(ctx, "grep", raw, reads):
            return Check.refuse(why)
    return Check(ok=True, reads=tuple(reads), lists=lists, words=_grep_rewritten(stage, split))


def _globbed(
    ctx: Context, files: tuple[Word, ...]
) -> tuple[list[str], tuple[Word, ...], tuple[str, ...]] | str:
    """The file operands with each glob expanded (the names the command reads), the words that run
    for them (a glob that matches nothing quoted: its own name), and the secret-looking directories
    the globs were expanded in (listed: their names reach the output, grep's or head's and wc's
    headers); or why a glob is refused."""
    names: list[str] = []
    ran: list[Word] = []
    listed: dict[str, None] = {}
    for word in files:
        if not word.glob:
            names.append(word.text)
            ran.append(word)
            continue
        found = operand(ctx.ws, ctx.cwd, word)
        if found.why:
            return found.why
        names.extend(found.names)
        ran.append(found.word)
        listed.update(dict.fromkeys(found.listed))
    return names, tuple(ran), secret_dirs(ctx, tuple(listed))


def _check_recursive(ctx: Context, stage: Stage, split: _GrepWords, names: list[str]) -> Check:
    """grep -r: each operand judged by the path checks (a link there resolved), each directory by
    every file below it the plan reads, each such file a read."""
    globs = exclude_globs(ctx.secrets)
    if isinstance(globs, str):
        return Check.refuse(globs)
    reads: list[str] = []
    for raw in names:
        r = resolve(ctx.ws, ctx.cwd, raw) if raw != "-" else None
        if r is None or not r.is_dir:
            if why := _read_file(ctx, "grep", raw, reads):
                return Check.refuse(why)
            continue
        if not r.ok:
            return Check.refuse(r.why)
        tree = tree_files(ctx.ws, r.real, globs, ctx.max_read_bytes, MAX_TREE_FILES - len(reads))
        if tree.why:
            return Check.refuse(tree.why)
        reads.extend(dict.fromkeys((r.name, r.real)))
        for real in tree.files:
            reads.append(real)
            if r.name != r.real:  # the same file by the name the line gives it
                reads.append(posixpath.join(r.name, posixpath.relpath(real, r.real)))
    words = (
        stage.words[0],
        *split.options,
        *(Word(w) for w in exclude_words(globs)),
        Word("--"),
        *(w if w.glob else Word(operand_name(w.text)) for w in split.operands),
    )
    return Check(ok=True, reads=tuple(dict.fromkeys(reads)), words=words)


def _grep_rewritten(stage: Stage, split: _GrepWords) -> tuple[Word, ...] | None:
    if not split.late and not any(w.glob for w in stage.args):
        return None
    return (stage.words[0], *split.options, Word("--"), *split.operands)


FILE_COMMANDS: dict[str, Checker] = {
    **{c: _check_first for c in ("cat", "head", "tail", "wc")},
    "grep": _check_grep,
}
FILTER_COMMANDS: dict[str, Checker] = {
    **{c: _check_filter for c in ("head", "tail", "wc", "sort", "uniq", "cut")},
    "grep": _check_grep,
}
