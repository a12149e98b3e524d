"""Generator words for the commands issue 14 gave checkers (sed, nl, find, strings, file, diff, cmp,
realpath, readlink, stat, du, tree, basename, dirname, which, tr, X --version, echo, printf, true,
false, test, od, cat as a filter): their names, and per
command the flags, values and scripts they allow beside the dangerous siblings that must ask, so
that the properties of docs/soundness.md draw both. Quoted words are written as the line holds them."""

from __future__ import annotations

__all__ = ["ARGS14", "COMMANDS14", "FILTERS14", "WORDS14", "with_pool14"]

_SED = (
    "-n", "-E", "-s", "-z", "--posix", "-e", "-i", "--in-place", "-f", "--follow-symlinks",
    "'1,5p'", "1,3p", "'$p'", "'1~2p'", "'2,+1p'", "'/package/p'", "'/a/,/b/p'", "'1p;2p'", "'/x/{p;q}'",
    "'1,2!d'", "2q", "'='", "'l'", "'n;p'", "'1w out'", "'1p;w out'", "'s/a/b/w out'", "'1e ls'",
    "'1r .env'", "'R main.go'", "'s/a/b/'", "'/a\\/w x/p'", "'1W out'", "'e'",
)  # fmt: skip
_FIND = (
    "-name", "-iname", "'*.go'", '"*.md"', "-type", "f", "d", "-maxdepth", "1", "-mindepth", "-path",
    "'*/sub*'", "-prune", "-o", "-a", "-not", "'!'", "'('", "')'", "-print", "-print0", "-ls", "-empty",
    "-newer", "-size", "+1k", "-mtime", "-7", "-exec", "-execdir", "-ok", "-delete", "-fprint", "-fls",
    "-follow", "-L", "-H", "-P", "';'", "'{}'", "cat", "touch", "out",
)  # fmt: skip

WORDS14: dict[str, tuple[str, ...]] = {
    "sed": _SED,
    "nl": ("-ba", "-b", "a", "-nrz", "-w", "3", "-s", ":", "-v", "--body-numbering=a"),
    "find": _FIND,
    "strings": ("-a", "-n", "4", "-8", "-t", "x", "@main.go", "-T", "elf"),
    "file": ("-b", "--mime-type", "-L", "-i", "-m", "-f", "-z", "-C", "-s", "-p"),
    "diff": ("-u", "-U", "3", "-q", "-r", "-N", "--to-file=main.go", "-X", "-w"),
    "cmp": ("-l", "-s", "-n", "4", "10"),
    "realpath": ("-e", "-m", "--relative-to=sub", "--relative-to=/etc"),
    "readlink": ("-f", "-e", "-n"),
    "stat": ("-c", "%s", "--format=%n", "-L", "-f", "--printf=%s"),
    "du": ("-sh", "-a", "--max-depth=1", "-d", "1", "-L", "-X", "--files0-from=main.go", "--exclude=x"),
    "tree": ("-a", "-L", "2", "-I", "x", "-o", "out", "-l", "--fromfile", "-R", "-H", "--noreport"),
    "basename": ("-s", ".go", "-a"),
    "dirname": ("-z",),
    "which": ("-a", "git", "sh", "./run", "ls"),
    "tr": ("a-z", "A-Z", "-d", "-s", "' '", "-c"),
    "python3": ("--version", "-V", "-c", "1"),
    "node": ("--version", "-v", "-e", "1"),
    "ruff": ("--version", "-V", "check"),
    "tmux": ("-V", "ls"),
    "mypy": ("--version", "-V", "."),
    "echo": ("-n", "-e", "-E", "hi", "'a\\tb'", "--"),
    "printf": ("'%s\\n'", "-v", "x", "--", "'%d'", "'%*d'", "'%(%F)T'", "'%n'", "'%99999s'", "'%b'"),
    "true": (),
    "false": (),
    "test": (
        "-f",
        "-d",
        "-e",
        "-s",
        "-r",
        "-w",
        "-x",
        "-L",
        "-n",
        "-z",
        "=",
        "'!='",
        "!",
        "-a",
        "-o",
        "-t",
        "-nt",
        "../x",
    ),
    "od": ("-c", "-An", "-tx1", "-w", "-w16", "-N", "4", "-j", "--traditional", "+1"),
    "cat": ("-A", "-v", "-e"),
}
COMMANDS14: tuple[str, ...] = tuple(WORDS14)
FILTERS14: tuple[str, ...] = ("sed", "nl", "strings", "tr", "od", "cat")
ARGS14: tuple[str, ...] = tuple(dict.fromkeys(w for words in WORDS14.values() for w in words))

Pools = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def with_pool14(raw: tuple[str, ...], commands: tuple[str, ...], args: tuple[str, ...]) -> Pools:
    """The generators' (raw commands, command pool, argument pool) with these words added."""
    raw_all = tuple(dict.fromkeys((*raw, *COMMANDS14)))  # one recorder per name (echo, cat ... are in both)
    return raw_all, (*commands, *COMMANDS14), (*args, *ARGS14)
