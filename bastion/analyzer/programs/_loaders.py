"""Variables that make a program load code or configuration from a directory (design rule 42's
twin for the environment): one table, `LOADERS`, each entry with the programs it affects and why.

Where a plan runs decides which environment counts (`Shell`, analyzer/programs/_programs.py). A dry-run's
plan (a hook's, `bastion check`'s) runs in this process's environment, the other agent's: every
entry is judged there, and the shell that runs the plan reads some of them too. bastion's own bash
tool runs a plan in the neutral environment (analyzer/git/_neutral.py), which drops every entry
but the `kept` ones (`dropped_from_plans`): those are judged there, the rest never reach a plan.

An entry is judged when the line starts a program it affects (`programs`: names, a `*` ending a
prefix; `EVERY`: the dynamic loader's, in every program) or, in a dry-run, when the shell reads it.
By its form: `ANY` asks whatever its value (a library loaded into every program, a file the shell
sources); `PATHS` asks for an entry that is relative (an empty one is the working directory), that
holds a `$` (the loader expands `$ORIGIN`), or that lies inside the workspace, as written or once
its links are followed; `SEARCH` (where modules are looked up by name, packages included) asks for
those and for an entry that holds the workspace too; `WORDS` asks for a word outside its allow-list (make's
`--eval`, node's `--require`). An empty value is no value (traced: PYTHONPATH="" and
LD_LIBRARY_PATH="" add nothing). Two families are allow-lists as a whole: a variable of the dynamic
loader (`LD_`) or of Python (`PYTHON`) not in the table asks unless it is in `HARMLESS`.

Traced on this machine (strace, tests/analyzer/programs/test_loading_variables.py): `mypy --version`
imports `src/encodings` with PYTHONPATH=src; `ls -la` loads `lib/libselinux.so.1` with
LD_LIBRARY_PATH=lib; `git log` of a commit whose encoding header names a character set loads the
iconv module GCONV_PATH names; `make --version` runs `$(shell ...)` from MAKEFLAGS; `node
--version` looks up NODE_ICU_DATA. Read by no program a plan runs (left out): ENV (interactive
POSIX shells only), TERMINFO, TMUX_TMPDIR (`tmux -V` opens no socket), JQ_LIBRARY_PATH (jq 1.6
has none, and `jq --version` reads no ~/.jq), MFLAGS, TZ and TZDIR (time zone data).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import NamedTuple

from ...workspace import Workspace
from .._result import Check, StageResult
from ._programs import Shell

__all__ = ["EVERY", "HARMLESS", "LOADERS", "Loader", "dropped_from_plans", "refuse_loading"]

ANY, PATHS, SEARCH, WORDS = "any", "paths", "search", "words"
EVERY = ("*",)
_PYTHON = ("python*", "pypy*")
_NODE = ("node", "nodejs")


class Loader(NamedTuple):
    """How a variable is read: its form, the programs that read it (`EVERY`: all), whether the
    shell running a dry-run's plan reads it, what they load from it, the characters between its
    entries, the words a `WORDS` value may hold, and whether bastion's own plans keep it."""

    form: str
    programs: tuple[str, ...]
    shell: bool
    why: str
    split: str = ":"
    words: re.Pattern[str] | None = None
    kept: bool = False


_LIBRARIES = "the libraries every program loads are looked for there first"
_MAKE_WORDS = re.compile(
    r"-?[ksrRw]+|-j\d*|--jobs(=\d+)?|-l[\d.]*|--load-average(=[\d.]+)?|--(no-)?print-directory"
    r"|--(silent|quiet|keep-going|no-builtin-rules|no-builtin-variables)|-O(target|line|recurse|none)?"
    r"|--output-sync(=(target|line|recurse|none))?"
)
_NODE_WORDS = re.compile(
    r"--(max-old-space-size|max-semi-space-size|unhandled-rejections|dns-result-order"
    r"|max-http-header-size|stack-trace-limit)=[A-Za-z0-9._-]+"
    r"|--(no-warnings|no-deprecation|enable-source-maps|trace-warnings|trace-deprecation"
    r"|trace-uncaught|use-openssl-ca|use-bundled-ca)"
)
# bash's own defaults where it runs `bash -c` (and the options of an interactive one).
_SH = re.compile(r"braceexpand|hashall|interactive-comments|emacs|vi|histexpand|history|monitor")
_SHOPT = re.compile(
    r"checkwinsize|cmdhist|complete_fullquote|expand_aliases|extquote|force_fignore|globasciiranges"
    r"|globskipdots|hostcomplete|interactive_comments|patsub_replacement|progcomp|promptvars|sourcepath"
)

_GIT, _GH, _MAKE, _AWK, _SSL = ("git",), ("gh",), ("make", "gmake"), ("awk", "gawk"), (*_NODE, "git")
_CONF = (*_GIT, *_GH)  # the programs that read the user's configuration

LOADERS: dict[str, Loader] = {
    # The dynamic loader (ld.so), in every program the plan starts and in the shell that runs it.
    "LD_LIBRARY_PATH": Loader(PATHS, EVERY, True, _LIBRARIES, split=":;"),
    "LD_PRELOAD": Loader(ANY, EVERY, True, "a library loaded into every program before its own code"),
    "LD_AUDIT": Loader(ANY, EVERY, True, "an audit library loaded into every program by the loader"),
    "GCONV_PATH": Loader(PATHS, EVERY, True, "the C library loads character-set modules (libraries) there"),
    "LOCPATH": Loader(PATHS, EVERY, True, "the C library reads its locale data from there"),
    "NLSPATH": Loader(PATHS, EVERY, True, "the C library reads message catalogs from there"),
    # The shell that runs a dry-run's plan (bastion's own runs drop these: the neutral environment).
    "BASH_ENV": Loader(ANY, (), True, "bash -c sources that file before the line, its name expanded first"),
    "SHELLOPTS": Loader(WORDS, (), True, "options bash sets as it starts (xtrace runs PS4)", words=_SH),
    "BASHOPTS": Loader(WORDS, (), True, "options bash sets as it starts (extdebug: a profile)", words=_SHOPT),
    "ZDOTDIR": Loader(PATHS, (), True, "zsh -c sources .zshenv from there before the line"),
    # Where programs read the user's configuration: judged in bastion's own runs too.
    "HOME": Loader(PATHS, _CONF, True, "git reads .gitconfig there, a login shell .profile", kept=True),
    "XDG_CONFIG_HOME": Loader(PATHS, _CONF, False, "git reads git/config and attributes there", kept=True),
    "GIT_CONFIG_GLOBAL": Loader(PATHS, _GIT, False, "git reads it as the user's configuration", kept=True),
    "GIT_CONFIG_SYSTEM": Loader(PATHS, _GIT, False, "git reads it as the system's configuration", kept=True),
    "GH_CONFIG_DIR": Loader(PATHS, _GH, False, "gh reads its configuration there", kept=True),
    "GOENV": Loader(PATHS, ("go",), False, "go reads its settings from that file", kept=True),
    "GOROOT": Loader(PATHS, ("go",), False, "go reads go.env and its toolchain there", kept=True),
    # Python: mypy's interpreter (`python3 --version` reads none of these, but asks with them).
    "PYTHONPATH": Loader(SEARCH, _PYTHON, False, "Python imports modules from there before its own"),
    "PYTHONHOME": Loader(PATHS, _PYTHON, False, "Python's standard library is read from there", kept=True),
    "PYTHONUSERBASE": Loader(PATHS, _PYTHON, False, "Python imports user packages and .pth there", kept=True),
    "PYTHONSTARTUP": Loader(PATHS, _PYTHON, False, "an interactive Python runs that file"),
    "PYTHONPYCACHEPREFIX": Loader(PATHS, _PYTHON, False, "Python writes its bytecode caches there"),
    "PYTHONPLATLIBDIR": Loader(ANY, _PYTHON, False, "a name joined into the standard library's path"),
    "PYTHONINSPECT": Loader(ANY, _PYTHON, False, "Python runs what standard input holds after the program"),
    # node (`node --version` looks up ICU data as it starts).
    "NODE_OPTIONS": Loader(WORDS, _NODE, False, "options node takes as typed (--require)", " ", _NODE_WORDS),
    "NODE_PATH": Loader(SEARCH, _NODE, False, "node requires modules from there"),
    "NODE_ICU_DATA": Loader(PATHS, _NODE, False, "node reads its ICU data from there as it starts"),
    "NODE_EXTRA_CA_CERTS": Loader(PATHS, _NODE, False, "node reads certificates from that file"),
    "NODE_REPL_EXTERNAL_MODULE": Loader(PATHS, _NODE, False, "node's REPL runs that module"),
    "NODE_V8_COVERAGE": Loader(PATHS, _NODE, False, "node writes coverage files there"),
    "NODE_COMPILE_CACHE": Loader(PATHS, _NODE, False, "node writes its compile cache there"),
    "NODE_REDIRECT_WARNINGS": Loader(PATHS, _NODE, False, "node writes its warnings to that file"),
    "OPENSSL_CONF": Loader(PATHS, _SSL, False, "OpenSSL's configuration, which loads engines and providers"),
    "OPENSSL_ENGINES": Loader(PATHS, _SSL, False, "OpenSSL loads engines (shared libraries) from there"),
    "OPENSSL_MODULES": Loader(PATHS, _SSL, False, "OpenSSL loads providers (shared libraries) from there"),
    # Perl and Ruby: no plan runs either today; a script of theirs would start them.
    "PERL5LIB": Loader(SEARCH, ("perl*",), False, "perl loads modules from there first"),
    "PERLLIB": Loader(SEARCH, ("perl*",), False, "perl loads modules from there first"),
    "PERL5OPT": Loader(ANY, ("perl*",), False, "options perl takes as if typed (-M loads a module)"),
    "PERL5DB": Loader(ANY, ("perl*",), False, "code perl's debugger runs"),
    "RUBYLIB": Loader(SEARCH, ("ruby*",), False, "ruby loads libraries from there first"),
    "RUBYOPT": Loader(ANY, ("ruby*",), False, "options ruby takes as if typed (-r loads a library)"),
    # Toolchains of the version table, and the readers.
    "MAKEFLAGS": Loader(WORDS, _MAKE, False, "options make reads as it starts (--eval)", " ", _MAKE_WORDS),
    "GNUMAKEFLAGS": Loader(WORDS, _MAKE, False, "options GNU make reads as it starts", " ", _MAKE_WORDS),
    "MAKEFILES": Loader(PATHS, _MAKE, False, "make reads those makefiles first", " "),
    "GCC_EXEC_PREFIX": Loader(PATHS, ("gcc",), False, "gcc looks for its programs and specs there"),
    "COMPILER_PATH": Loader(PATHS, ("gcc",), False, "gcc looks for its programs there"),
    "MAGIC": Loader(PATHS, ("file",), False, "file reads its magic database from there"),
    "AWKPATH": Loader(SEARCH, _AWK, False, "gawk reads @include files from there"),
    "AWKLIBPATH": Loader(PATHS, _AWK, False, "gawk loads extensions (shared libraries) from there"),
}  # fmt: skip

# The families read as a whole: a variable of theirs not in LOADERS asks, unless it is here.
_FAMILIES = {
    "LD_": Loader(ANY, EVERY, True, "a variable of the dynamic loader bastion does not know to be harmless"),
    "PYTHON": Loader(ANY, _PYTHON, False, "a variable of Python bastion does not know to be harmless"),
}
HARMLESS = frozenset({
    # ld.so: when symbols are bound, what it prints on standard error; LD_RUN_PATH is the linker's.
    "LD_BIND_NOW", "LD_BIND_NOT", "LD_WARN", "LD_VERBOSE", "LD_DEBUG", "LD_SHOW_AUXV", "LD_DYNAMIC_WEAK",
    "LD_HWCAP_MASK", "LD_TRACE_LOADED_OBJECTS", "LD_RUN_PATH",
    # Python (`python3 --help-env`): encodings, hashing, output, warnings, what it prints or checks.
    "PYTHONSAFEPATH", "PYTHONCASEOK", "PYTHONUTF8", "PYTHONIOENCODING", "PYTHONFAULTHANDLER",
    "PYTHONHASHSEED", "PYTHONINTMAXSTRDIGITS", "PYTHONMALLOC", "PYTHONMALLOCSTATS", "PYTHONCOERCECLOCALE",
    "PYTHONBREAKPOINT", "PYTHONDEVMODE", "PYTHONWARNDEFAULTENCODING", "PYTHONNODEBUGRANGES", "PYTHONDEBUG",
    "PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE", "PYTHONOPTIMIZE", "PYTHONUNBUFFERED", "PYTHONVERBOSE",
    "PYTHONWARNINGS", "PYTHONTRACEMALLOC", "PYTHONPROFILEIMPORTTIME", "PYTHONASYNCIODEBUG",
})  # fmt: skip
_PREFIXES = tuple(_FAMILIES)
_KEPT = frozenset(name for name, loader in LOADERS.items() if loader.kept)


def dropped_from_plans(name: str) -> bool:
    """Whether bastion's own plans run without the variable `name` (the neutral environment)."""
    return (name in LOADERS or name.startswith(_PREFIXES)) and name not in _KEPT


def _reads(loader: Loader, names: frozenset[str], shell: bool) -> str:
    """The program of `names` (basenames) that reads a variable, "the shell" when only the shell
    running a dry-run's plan does, "" when nothing the plan starts does."""
    if loader.programs == EVERY and names:
        return min(names)
    for name in sorted(names):
        for program in loader.programs:
            if name == program or (program.endswith("*") and name.startswith(program[:-1])):
                return name
    return "the shell" if shell and loader.shell else ""


def _inside(ws: Workspace, path: str, holding: bool) -> str:
    """How an absolute path leads into the workspace, as written or with its links followed
    ("" if it does not): inside it, or (`holding`) above it, where a package looked up by name
    can be the workspace or a directory of it."""
    roots = {ws.root.rstrip("/") + "/", ws.real_root.rstrip("/") + "/"}
    for where in {posixpath.normpath(path).rstrip("/") + "/", ws.system.realpath(path).rstrip("/") + "/"}:
        for root in roots:
            if where.startswith(root):
                return "leads inside the working directory"
            if holding and root.startswith(where):
                return "holds the working directory, where a package it looks up by name can be"
    return ""


def _judged(ws: Workspace, loader: Loader, value: str) -> str:
    """Why `value` makes the programs that read it load something bastion has not judged safe."""
    if loader.form == ANY:
        return "any value asks: bastion runs no code it has not found"
    for entry in value.replace(";", ":").split(":") if loader.split == ":;" else value.split(loader.split):
        shown = repr(entry[:80])
        if loader.form == WORDS:
            if entry and (loader.words is None or not loader.words.fullmatch(entry)):
                return f"{shown} is not among the words bastion lets through"
            continue
        if not entry:
            if loader.split == " ":
                continue
            return "an empty entry is the directory the plan runs in"
        if not entry.startswith("/"):
            return f"its entry {shown} is relative: it is taken from the directory the plan runs in"
        if "$" in entry:
            return f"its entry {shown} holds a $, which the loader expands: bastion cannot judge it"
        how = _inside(ws, entry, loader.form == SEARCH)
        if how:
            return f"its entry {shown} {how}"
    return ""


def refuse_loading(
    ws: Workspace, shell: Shell, results: list[StageResult], programs: tuple[str, ...]
) -> list[StageResult]:
    """The stages of a line that runs unasked, the first one the environment where it runs makes
    load code or configuration of the workspace (or what bastion cannot judge) refused, saying so."""
    dry = shell.environ is not None
    names = frozenset(program.rpartition("/")[2] for program in programs)
    for name, value, loader in _present(ws, shell):
        program = _reads(loader, names, dry)
        verdict = _judged(ws, loader, value) if program else ""
        if verdict:
            why = f"{name} where this runs: {loader.why} ({program} reads it); {verdict}"
            return _refused(results, program, why)
    return results


Present = tuple[tuple[str, str, Loader], ...]
# The shell (and, for bastion's own runs, the workspace) the variables were last taken from, and
# them: a gate decides every line in one shell, and a workspace's environment never changes.
_last: tuple[Shell | None, Workspace | None, Present] = (None, None, ())


def _present(ws: Workspace, shell: Shell) -> Present:
    """The variables of the table set, not empty, where a plan decided in `ws` runs in `shell`:
    this process's for a dry-run, else the workspace's, of which bastion's plans keep `_KEPT`."""
    global _last
    owner = None if shell.environ is not None else ws
    seen_shell, seen_ws, found = _last
    if seen_shell is shell and seen_ws is owner:
        return found
    environ: Mapping[str, str] = shell.environ if shell.environ is not None else ws.env()
    present = []
    for name in environ if owner is None else _KEPT.intersection(environ):
        loader = LOADERS.get(name)
        if loader is None and name.startswith(_PREFIXES) and name not in HARMLESS:
            loader = _FAMILIES["LD_" if name.startswith("LD_") else "PYTHON"]
        value = environ.get(name, "") if loader is not None else ""
        if value:
            assert loader is not None
            present.append((name, value, loader))
    _last = (shell, owner, tuple(present))
    return _last[2]


def _refused(results: list[StageResult], program: str, why: str) -> list[StageResult]:
    """`results` with the first stage that runs `program` (else the first stage) refused."""
    at = 0
    for i, r in enumerate(results):
        words = r.check.words or ()
        runs = [r.check.program, *(words[n].text for n in r.check.inner if n < len(words))]
        if any(path.rpartition("/")[2] == program for path in runs if path):
            at = i
            break
    out = list(results)
    out[at] = out[at]._replace(check=Check.refuse(why))
    return out
