"""Generator words for the commands issue 14 gave checkers (sed, nl, find, strings, file, diff, cmp,
realpath, readlink, stat, du, tree, basename, dirname, which, tr, X --version): their names, the
flags and values they allow, and the dangerous siblings that must ask, so that the properties of
docs/soundness.md draw both. Quoted words are written as the line holds them."""

from __future__ import annotations

__all__ = ["ARGS14", "COMMANDS14", "with_pool14"]

COMMANDS14: tuple[str, ...] = (
    "sed", "nl", "find", "strings", "file", "diff", "cmp", "realpath", "readlink", "stat", "du", "tree",
    "basename", "dirname", "which", "tr", "python3", "node", "ruff", "tmux", "mypy",
)  # fmt: skip

ARGS14: tuple[str, ...] = (
    # sed: flags, print-only scripts, and scripts that write, read or run
    "-n", "-E", "-s", "-z", "--posix", "-e", "-i", "--in-place", "-f", "--follow-symlinks",
    "'1,5p'", "1,3p", "'$p'", "'1~2p'", "'2,+1p'", "'/package/p'", "'/a/,/b/p'", "'1p;2p'", "'/x/{p;q}'",
    "'1,2!d'", "2q", "'='", "'l'", "'n;p'", "'1w out'", "'1p;w out'", "'s/a/b/w out'", "'1e ls'",
    "'1r .env'", "'R main.go'", "'s/a/b/'", "'/a\\/w x/p'",
    # nl, strings, file, diff, cmp
    "-ba", "-b", "a", "-nrz", "-w", "3", "-8", "-t", "x", "@main.go", "-b", "--mime-type", "-L", "-m",
    "-z", "-C", "-u", "-U", "-q", "-r", "--to-file=main.go", "-l",
    # find
    "-name", "-iname", "'*.go'", '"*.md"', "-type", "f", "d", "-maxdepth", "-mindepth", "-path", "-prune",
    "-o", "-a", "-not", "'!'", "'('", "')'", "-print", "-print0", "-ls", "-empty", "-newer", "-size",
    "+1k", "-mtime", "-7", "-exec", "-execdir", "-ok", "-delete", "-fprint", "-fls", "-follow", "-H",
    "-P", "';'", "'{}'",
    # realpath, readlink, stat, du, tree, basename, dirname, which, tr
    "-e", "--relative-to=sub", "-c", "%s", "--format=%n", "-sh", "--max-depth=1", "-X", "-o", "-I",
    "--fromfile", "-s", ".go", "git", "sh", "./run", "a-z", "A-Z", "-d",
    # version queries
    "--version", "-V", "-v",
)  # fmt: skip

Pools = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def with_pool14(raw: tuple[str, ...], commands: tuple[str, ...], args: tuple[str, ...]) -> Pools:
    """The generators' (raw commands, command pool, argument pool) with these words added."""
    return (*raw, *COMMANDS14), (*commands, *COMMANDS14), (*args, *ARGS14)
