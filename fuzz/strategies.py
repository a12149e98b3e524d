"""Hypothesis strategies that generate lines from the grammar itself (subset.lark, via lark's rules).

Every nonterminal is expanded by one of the expansions lark compiled for it, and every terminal
is drawn from its own regexp (`st.from_regex`) or from a pool of realistic words filtered by that
same regexp, so a change of the grammar changes what is generated. Near-misses insert, remove or
replace one byte of a grammar line, and `BYPASSES` are the known bypass shapes from tests/.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache

from hypothesis import strategies as st
from lark import Lark

from bastion.grammar import Outside, Plan, parse, parser

from .awkstages import awk_stage
from .pool14 import with_pool14
from .pool30 import READS30, TOOL_READS30, with_pool30
from .pool33 import COMPOSED33, STAGES33, with_pool33

__all__ = [
    "ARG_POOL",
    "BYPASSES",
    "COMMAND_POOL",
    "RAW_COMMANDS",
    "GIT_FORMS",
    "HOSTILE_COMMANDS",
    "LISTER_FORMS",
    "PATH_FORMS",
    "grammar_lines",
    "hostile_lines",
    "hostile_tool_call",
    "near_misses",
    "outside_lines",
    "plans",
    "terminal_regexps",
]

# Commands with a recorder of their own in the argv oracle (no "/", no bash keyword): the raw
# line as typed can only be recorded when every command word is one of these.
RAW_COMMANDS: tuple[str, ...] = (
    "git", "ls", "cat", "head", "tail", "wc", "grep", "sort", "uniq", "cut", "pwd", "cd", "go",
    "echo", "printf", "true", "test", "exec", "command", "eval", "xargs", "tee", "sh",
    "env", "timeout", "c0", "c_1", "x.y", "a-b", "A+B", "n%1", "u@h", "k,v", "p:q",
)  # fmt: skip
# Command words that look like a command and name a program (issue 12, class 1): the fixture has
# directories `ls `, `cat `, `git ` and an executable `evil.sh` at the root.
HOSTILE_COMMANDS: tuple[str, ...] = (
    "'ls /../evil.sh'", '"ls /../evil.sh"', "'ls '/../evil.sh", "'cat /../evil.sh'", "'git /../evil.sh'",
    "'git /..'/evil.sh", "'ls /'../evil.sh", "./evil.sh", "'ls '", "'ls -la'", "'git status'", '"cat" ',
)  # fmt: skip
COMMAND_POOL: tuple[str, ...] = (
    *RAW_COMMANDS, "./run", "/bin/ls", "sub/x", "'git'", '"ls"', "g'it'", *HOSTILE_COMMANDS,
)  # fmt: skip
# Git forms that print file contents or walk config, and names that make other programs run.
GIT_FORMS: tuple[str, ...] = (
    "git diff", "git diff --stat", "git diff HEAD", "git diff --cached", "git diff HEAD~1", "git log -p",
    "git log -p -1", "git log --stat", "git log", "git log --oneline", "git log ORIG_HEAD", "git show",
    "git show HEAD", "git show --stat", "git show v1", "git stash list -p", "git stash list", "git status",
    "git stash list -p --stat", "git stash list --patch",
    "git status -v", "git status -vv", "git status --short", "git blame main.go", "git blame README.md",
    "git shortlog -s HEAD", "git branch", "git branch -a", "git tag", "git describe", "git rev-parse HEAD",
    "git ls-files", "git remote -v", "git diff sub other", "git diff docs .", "git diff sub docs",
    "git diff --stat other sub", "git log x", "git show t",
    # issue 14's forms: -C, REV:path, cat-file, ls-tree, grep, check-ignore, status -v in short
    "git -C sub log -p", "git -C sub/deep show HEAD", "git -C 'sub dir' status -sv", "git status -sbv",
    "git show HEAD:.env", "git show HEAD:main.go", "git show HEAD:./a.go", "git cat-file -p HEAD:.env",
    "git cat-file -p HEAD", "git cat-file blob HEAD:secrets/token.txt", "git ls-tree -r HEAD",
    "git grep -n KEY HEAD", "git grep --cached -e SECRET", "git grep -c x HEAD~1", "git grep KEY",
    "git check-ignore -v main.go", "git log --full-history -p", "git --version",
)  # fmt: skip
PATHSPECS: tuple[str, ...] = (
    "", "", "", "-- .", "-- main.go", ".", "sub", "-- sub", "-- ':(top)'", "-- '*.go'", "-- 'sub dir'",
    "docs",
)  # fmt: skip
# go 1.19 runs the C compiler (and makes a go-build directory in TMPDIR) for GOGCCFLAGS and CGO_*.
GO_ENV_NAMES: tuple[str, ...] = (
    "CC", "CXX", "GOGCCFLAGS", "CGO_CFLAGS", "CGO_LDFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_FFLAGS",
    "GOROOT", "GOENV", "GOFLAGS", "AR",
)  # fmt: skip
# Issue 30: listers and walkers of (and around) secret-looking directories, and the commands a
# hostile PATH would swap (fuzz/hostile.py, classes 304 and 305).
LISTER_FORMS: tuple[str, ...] = (
    "ls secrets", "ls -R", "ls -R .", "ls -Ra", "ls -laR sub", "ls -la .ssh", "ls -la .ssh/keys", "ls .env.d",
    "ls sshlink", "ls sub/keys", "ls *", "ls */", "ls -d */", "ls s*/", "ls -la sub/*", "ls -d .ssh",
    "cd secrets && ls", "cd sub && ls -R", "find .", "find . -name 'id_*'", "find . -name '*listed*'",
    "find .ssh", "find . -type f", "find . -maxdepth 2 -type d", "find sub -print0", "find sshlink",
    "find . -type d -name '.*'", "find . -depth", "find . -mindepth 2", "find . -name x -o -print",
    "du -a", "du -a .", "du -a sub", "du -sh .ssh", "du -a --max-depth=2 .", "tree", "tree -a", "tree -a sub",
    "tree -a -L 2", "tree -a .ssh", "tree -a -I x", "grep -rl . .", "grep -rn CANARY", "grep -l x s*/*",
    "stat .ssh", "file .ssh", "test -d .ssh",
)  # fmt: skip
PATH_FORMS: tuple[str, ...] = (
    "cat main.go", "head -n 1 README.md", "tail -1 README.md", "wc -l main.go", "file main.go", "tree -L 1",
    "which cat", "which -a ls", "stat -c %s main.go", "realpath main.go", "basename sub/a.go", "echo hi",
    "printf x", "true", "test -f main.go", "pwd", "cd sub && ls", "cat main.go | sort | uniq | cut -c 1-3",
    "grep -n package main.go", "sed -n 1p main.go", "nl main.go", "od -c main.go", "python3 --version",
    "node -v", "git status", "git log --oneline", "du -s sub", "find sub -name '*.go'", "ls -la",
)  # fmt: skip
PIPED: tuple[str, ...] = ("sort", "sort", "sort -r", "sort -u", "head -n 3", "wc -l", "uniq", "cut -c 1-5")
ARG_POOL: tuple[str, ...] = (
    # git subcommands and flags the checker knows
    "status", "diff", "log", "show", "branch", "rev-parse", "ls-files", "blame", "tag", "describe",
    "shortlog", "remote", "stash", "list", "config", "version", "env", "-s", "-v", "--short", "--oneline",
    "-n", "1", "-3", "--stat", "HEAD", "HEAD~1", "HEAD^", "--cached", "--name-only", "-p", "--all",
    "--format=%h", "--get", "user.name", "-l", "--list", "--show-toplevel", "GOPATH", "-json", "--",
    # ls, readers, filters
    "-la", "-a", "-R", "-1", "-l", "-c", "-i", "-e", "-m", "2", "-k", "-t", "-d", "-f", "-q", "-u", "-r",
    "--color=never", "--sort=size", "package", "x", "-A",
    # fixture names (fuzz/fixtures.py)
    ".", "./", "main.go", "README.md", "notes.txt", "sub", "sub/a.go", "sub/deep", "docs/guide.txt",
    ".env", "id_rsa", "secrets/token.txt", "big.bin", "pipe", "etclink", "outfile", "outlink",
    "inlink", "dangling", "sub/up", "empty", "repo", "vendor/evil", ".git", ".git/config", "/etc/passwd",
    ".ssh", ".ssh/keys", "sub/.aws", "certs.pem", "sshlink", "sub/keys", ".env.d",
    "café.txt", "a b.txt", "evil.sh", "./evil.sh", "-rf", "'ls '", "\"it's.txt\"", "'say \"hi\".txt'",
    "'sub dir'", "'sub dir/x.go'", "data.txt", "other", "docs", "secrets", "ORIG_HEAD", "v1", "t",
    # git forms of issue 12 and go env names
    "-vv", "--patch", "--name-status", "--numstat", "--submodule=diff", "--use-mailmap", "-1", "CC",
    "GOGCCFLAGS", "CGO_CFLAGS",
    # issue 14's git forms
    "-C", "ls-tree", "cat-file", "grep", "check-ignore", "--version", "HEAD:.env", "HEAD:main.go",
    "HEAD:./a.go", "--full-history", "--git-common-dir", "-sbv", "--porcelain=v2", "--batch", "-O",
    # quoted and glob shapes
    "'a b.txt'", '"README.md"', "''", "*", "*.go", "sub/*", "*/", "?ain.go", "s*/*.go", "*.txt", ".*",
    "x=~", "a=~/x", "HEAD~", "2>&1", ">/dev/null", "2>/dev/null",
    # grep -r (issue 14): the recursive forms and filters it allows beside the ones that must ask
    "-rn", "-rl", "--recursive", "--include='*.go'", "--include=.env", "--exclude='*.go'",
    "--exclude-dir=sub", "--exclude-dir", "skip", "--exclude-from=main.go", "--dereference-recursive",
)  # fmt: skip

RAW_COMMANDS, COMMAND_POOL, ARG_POOL = with_pool14(RAW_COMMANDS, COMMAND_POOL, ARG_POOL)
RAW_COMMANDS, COMMAND_POOL, ARG_POOL = with_pool33(RAW_COMMANDS, COMMAND_POOL, ARG_POOL)
GIT_FORMS, ARG_POOL = with_pool30(GIT_FORMS, ARG_POOL)

_KEEP_TERMINALS = ("AND", "PIPE", "SEP")
_MAX_DEPTH = 12


@lru_cache(maxsize=1)
def _grammar() -> tuple[dict[str, list[tuple[tuple[str, bool], ...]]], dict[str, str]]:
    """The compiled rules (origin -> expansions of (symbol, is_terminal)) and terminal regexps."""
    lark: Lark = parser()
    rules: dict[str, list[tuple[tuple[str, bool], ...]]] = {}
    for rule in lark.rules:
        expansion = tuple((sym.name, sym.is_term) for sym in rule.expansion)
        rules.setdefault(rule.origin.name, []).append(expansion)
    terminals = {t.name: t.pattern.to_regexp() for t in lark.terminals}
    sizes = _min_sizes(rules)
    for origin, expansions in rules.items():  # the smallest expansion first: what shrinking aims at
        expansions.sort(key=lambda e: sum(1 if term else sizes[name] for name, term in e))
        rules[origin] = expansions
    return rules, terminals


def _min_sizes(rules: dict[str, list[tuple[tuple[str, bool], ...]]]) -> dict[str, int]:
    sizes = {name: 10**6 for name in rules}
    changed = True
    while changed:
        changed = False
        for name, expansions in rules.items():
            best = min(sum(1 if term else sizes[s] for s, term in e) for e in expansions)
            if best < sizes[name]:
                sizes[name], changed = best, True
    return sizes


def terminal_regexps() -> dict[str, str]:
    """Each terminal of the subset grammar with the regexp lark matches it by."""
    return dict(_grammar()[1])


@cache
def _terminal(name: str, mode: str) -> st.SearchStrategy[str]:
    regexp = _grammar()[1][name]
    compiled = re.compile(regexp)
    free = st.from_regex(compiled, fullmatch=True)
    if name in _KEEP_TERMINALS:  # separators: mostly one space, sometimes any the regexp allows
        return st.one_of(
            st.sampled_from([t for t in (" ", " && ", "&&", " | ", "|") if compiled.fullmatch(t)] or [" "]),
            free,
        )
    pool = COMMAND_POOL if name.startswith("CMD_") else ARG_POOL
    fitting = sorted(
        {w for w in (*pool, *ARG_POOL) if compiled.fullmatch(w)}, key=pool.__contains__, reverse=True
    )
    if mode == "free" or not fitting:
        return free
    if mode == "pool":
        return st.sampled_from(fitting)
    return st.one_of(st.sampled_from(fitting), st.sampled_from(fitting), free)


@st.composite
def _expand(draw: st.DrawFn, symbol: str, depth: int, mode: str, stop: int) -> str:
    expansions = _grammar()[0][symbol]
    # The smallest expansion (the end of a repetition) is taken `stop` percent of the time, and
    # always beyond the depth budget; otherwise any expansion the grammar has.
    if depth > _MAX_DEPTH or len(expansions) == 1 or draw(st.integers(0, 99)) < stop:
        choice = expansions[0]
    else:
        choice = draw(st.sampled_from(expansions[1:]))
    out: list[str] = []
    for name, is_term in choice:
        out.append(draw(_terminal(name, mode)) if is_term else draw(_expand(name, depth + 1, mode, stop)))
    return "".join(out)


def grammar_lines(mode: str = "mixed", padded: bool = True, stop: int = 50) -> st.SearchStrategy[str]:
    """Lines generated from the grammar's start rule that parse (token runs that lex differently
    when written next to each other are dropped), optionally with spaces and tabs around them.
    `mode`: "free" draws every terminal from its regexp, "pool" from the realistic words that
    fit it, "mixed" both; `stop` is the percentage of ending a repetition at each step."""
    start = parser().options.start[0]
    base = _expand(start, 0, mode, stop).filter(lambda line: isinstance(parse(line), Plan))
    if not padded:
        return base
    pad = st.text(" \t", max_size=2)
    return st.tuples(pad, base, pad).map("".join)


def plans(mode: str = "mixed") -> st.SearchStrategy[Plan]:
    return grammar_lines(mode, padded=False).map(lambda line: _as_plan(parse(line)))


def _as_plan(result: Plan | Outside) -> Plan:
    assert isinstance(result, Plan)
    return result


@st.composite
def near_misses(draw: st.DrawFn, lines: st.SearchStrategy[str] | None = None) -> str:
    """A grammar line with one byte (from the full range) inserted, removed or replaced."""
    line = draw(lines if lines is not None else grammar_lines())
    data = bytearray(line.encode("utf-8"))
    at = draw(st.integers(0, len(data)))
    byte = draw(st.integers(0, 255))
    how = draw(st.sampled_from(("insert", "remove", "replace")))
    if how == "insert" or not data:
        data.insert(at, byte)
    elif how == "remove":
        del data[min(at, len(data) - 1)]
    else:
        data[min(at, len(data) - 1)] = byte
    return data.decode("utf-8", "surrogateescape")


# Known bypass shapes: from tests/grammar/test_subset.py (OUTSIDE) and the analyzer's exploit tests.
BYPASSES: tuple[str, ...] = (
    "echo $(id)", "echo `id`", 'echo "$(id)"', 'echo "`id`"', 'echo "a\\"b"', "echo $HOME", "echo ${x}",
    "cat <(id)", "cat <<<x", "echo $'\\x41'", "echo {a,b}", "IFS=x ls", "X=1 git status", "git=1 status",
    "'a=b' x", "ls \\-la", "ls -la \\\nx", "ls\nid", "cat notes.txt\r", "cat a\x00b", "cat \u200bx",
    "cat \u00a0x", "cat é", "a;b", "a & b", "a||b", "a |& b", "a | | b", "| a", "a |", "a &&", "&& a",
    "cat <x", "echo x >/tmp/x", "echo x > /dev/null", "echo x >>/dev/null", "echo x &>/dev/null",
    "echo x >|/dev/null", "echo x 3>/dev/null", "echo x 1>&2", "echo x >&file", "echo x <>file",
    "echo x >/dev/tcp/h/1", "echo x >/dev/nullx", "git status 2>&12", "git status2>&1", ">/dev/null git",
    "*.go", "ls ';touch x;'*", "grep --include=*.go x .", "ls *:x", "ls a+*", "ls [ab]", "cd ~",
    "cat ~root/x", "git log ^x", "echo x # y", "(ls)", "! ls", "echo 'unterminated", "",
    "git -c core.pager=id log", "git -C /etc log", "git --git-dir=/tmp/x status", "git --no-pager log",
    "git log --output=/tmp/x", "git diff --output=x", "git show --ext-diff", "git log --textconv",
    "git config --global user.name x", "git config alias.x '!id'", "git stash pop", "git remote add x y",
    "git branch -D main", "git tag -d v1", "git log -O/etc/passwd", "git blame --contents /etc/passwd",
    "ls etclink", "cat outfile", "cat .env", "cat notes.txt", "cat sub/up/../x", "cat sub/escape/etc/passwd",
    "cat pipe", "cat big.bin", "head -c 1 /dev/zero", "tail -f notes.txt", "grep -r x .", "grep -f /etc/x y",
    "wc --files0-from=x", "sort -o x", "sort --compress-program=id", "cut -b1 x", "cd /etc && cat passwd",
    "cd sub/up/.. && cat x", "cd etclink && cat passwd", "ls -- -n", "ls --hide=x", "ls .*", "ls ..*",
    "go env -w GOFLAGS=-x", "go version -m x", "go run .", "time cat x", "coproc cat x", "if x", "echo a=~",
    "cat x=~/.ssh/id_rsa", "cat a=b:~/x", "cat notes.txt\x0b", "cat notes.txt\x0c", "cat notes.txt\u0085",
    "cat notes.txt\u2028", "exec cat x", "command cat x", "env cat x", "xargs cat", "cat x | sh",
    "grep -rn x", "grep -rl x . --include=.env", "grep -r x sub inlink", "cd sub && grep -r x ..",
    "grep -r x secrets", "grep -r x repo", "grep -rn package . --include='*.go' | head -n 3",
)  # fmt: skip


def hostile_stage(choice: Callable[[Sequence[str]], str]) -> str:
    """One stage of an attack of issue 12, its parts drawn by `choice`: a git form that prints
    files (with or without a pathspec), a look-alike command word, go env, a reader, a git form
    piped to a filter; of issue 33: globs, braces, [ ], quoted text, find -exec and xargs; of
    issue 30: the git directory's config files, a lister or walker near secret-looking
    directories, a command a hostile PATH would swap; awk programs with divisions."""
    kind = choice(
        (
            "git",
            "git",
            "git",
            "word",
            "go",
            "read",
            "pipe",
            "issue33",
            "git-dir",
            "list",
            "list",
            "path",
            "compose",
            "awk",
        )
    )
    if kind == "issue33":  # globs, braces, [ ], quoted text (fuzz/pool33.py)
        return choice(STAGES33)
    if kind == "awk":  # divisions, regular expressions, hidden hazards (fuzz/awkstages.py)
        return awk_stage(choice)
    if kind == "compose":  # find -exec, xargs on the names a stage hands on (fuzz/pool33.py)
        return choice(COMPOSED33)
    if kind == "list":
        return choice(LISTER_FORMS)
    if kind == "path":
        return choice(PATH_FORMS)
    if kind == "pipe":  # what git prints of a big history, sorted: sort spills to TMPDIR
        return f"{choice(GIT_FORMS)} | {choice(PIPED)}"
    if kind == "git":
        return f"{choice(GIT_FORMS)} {choice(PATHSPECS)}".rstrip()
    if kind == "word":
        return f"{choice(HOSTILE_COMMANDS)} {choice(('', '.', '-la', 'main.go', 'evil.sh'))}".rstrip()
    if kind == "go":
        return f"go env {choice(GO_ENV_NAMES)}"
    if kind == "git-dir":  # the git directory's config files (issue 30, class 2)
        return choice(READS30)
    readers, files = ("cat", "head -n 2", "wc -c"), ("main.go", "README.md", "notes.txt", '"it\'s.txt"')
    return f"{choice(readers)} {choice(files)}"


def hostile_line(choice: Callable[[Sequence[str]], str]) -> str:
    """One to three hostile stages joined by `&&`, sometimes piped to a filter (sort spills)."""
    stages = [hostile_stage(choice) for _ in range(len(choice(("x", "x", "xx", "xxx"))))]
    line = " && ".join(stages)
    return f"{line} | {choice(PIPED)}" if choice(("", "", "pipe")) else line


_TOOL_PATHS = (
    ".",
    "sub",
    "sub/up",
    "inlink",
    "other",
    "vendor",
    "docs",
    ".git",
    "secrets",
    "notes.txt",
    "empty",
    ".ssh",
    "sshlink",
    "sub/keys",
    "sub/.aws",
)


def hostile_tool_call(choice: Callable[[Sequence[str]], str]) -> tuple[str, dict[str, object]]:
    """A file tool's call (grep, read, glob, ls) on a directory or link that holds or leads to secrets."""
    tool = choice(("grep", "grep", "grep", "read", "glob", "ls", "git-dir"))
    if tool == "git-dir":  # the git directory's config files (issue 30, class 2)
        calls = [f"{t} {a}" for t, a in TOOL_READS30]
        return TOOL_READS30[calls.index(choice(calls))]
    path = choice(_TOOL_PATHS)
    if tool == "grep":
        pattern = choice(("KEY", "CANARY", ".", "package", "BEGIN"))
        args: dict[str, object] = {"pattern": pattern, "path": path}
        include = choice(("", "", "*", ".env", "*.txt", "id_*"))
        return tool, {**args, "include": include} if include else args
    if tool == "glob":
        return tool, {"pattern": choice(("**", "*", "**/.env", "sub/**", ".ssh/**", "**/*listed*", "s*/*"))}
    return tool, {"path": choice(("README.md", "main.go", "notes.txt", "chain")) if tool == "read" else path}


def hostile_lines() -> st.SearchStrategy[str]:
    """The attacks of issue 12 as lines of the subset (fuzz/hostile.py has the fixtures)."""

    @st.composite
    def draw_line(draw: st.DrawFn) -> str:
        return hostile_line(lambda options: draw(st.sampled_from(list(options))))

    return draw_line().filter(lambda line: isinstance(parse(line), Plan))


def outside_lines() -> st.SearchStrategy[str]:
    """Lines the grammar rejects: near-misses, bypass shapes and arbitrary text, kept only if Outside."""
    return st.one_of(near_misses(), st.sampled_from(BYPASSES), st.text(max_size=40)).filter(
        lambda line: isinstance(parse(line), Outside)
    )


def pick(options: Sequence[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(list(options))
