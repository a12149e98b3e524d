"""A variable where a plan runs can make its programs load the project's code or configuration
(bastion/analyzer/programs/_loaders.py, design rule 42's twin): each hazard asks, and its safe siblings
still run. A dry-run's plan runs in this process's environment (set here with monkeypatch);
bastion's own plans run in the workspace's, less what the neutral environment drops."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bastion.analyzer import analyze, neutral_env

# Private: the table is the thing checked against the tools' own lists.
from bastion.analyzer.programs._loaders import HARMLESS, LOADERS, PATHS, SEARCH, dropped_from_plans
from bastion.workspace import LocalWorkspace
from tests.plans import fake_program

MYPY = Path(sys.executable).parent / "mypy"  # the project's own, outside any test workspace
needs_mypy = pytest.mark.skipif(not MYPY.exists(), reason="mypy is not installed beside this Python")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with code where the hostile variables point, and a PATH of real and fake tools,
    with none of the table's variables set (this process's environment is a dry-run's)."""
    for name in list(os.environ):
        if name in LOADERS or name.startswith(("LD_", "PYTHON")):
            monkeypatch.delenv(name)
    ws = tmp_path / "ws"
    for name in ("src/encodings/__init__.py", "lib/libselinux.so.1", "a.txt", "evil.js", "gconv/x.so"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("raise SystemExit('project code ran')\n")
    for tool in ("make", "node", "gcc"):
        fake_program(tmp_path / "bin", tool)
    monkeypatch.setenv("PATH", f"{MYPY.parent}:{tmp_path / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return ws


def _why(root: Path, line: str, env: dict[str, str] | None = None) -> str:
    """Why `line` asks in the workspace `root` ("" when it runs unasked); `env`: bastion's own run."""
    ws = LocalWorkspace(str(root), env=None if env is None else {"PATH": os.environ["PATH"], **env})
    a = analyze(line, ws)
    return "" if a.auto else next(r.why for r in a.stages if not r.ok)


# (variable, value with {ws} for the workspace, a line that starts a program reading it)
HAZARDS = [
    ("PYTHONPATH", "src", "mypy --version"),
    ("PYTHONPATH", "{ws}/src", "mypy --version"),
    ("PYTHONPATH", "/usr/lib:", "mypy --version"),  # an empty entry is the working directory
    ("PYTHONPATH", "{up}", "mypy --version"),  # holds the workspace: `import ws` would be it
    ("PYTHONPATH", "{link}", "mypy --version"),  # outside as written, inside once followed
    ("PYTHONHOME", "{ws}", "mypy --version"),
    ("PYTHONUSERBASE", ".", "mypy --version"),
    ("PYTHONINSPECT", "1", "mypy --version"),  # reads and runs standard input after the program
    ("PYTHONNEWTHING", "1", "mypy --version"),  # a Python variable bastion does not know
    ("LD_LIBRARY_PATH", "lib", "ls -la"),
    ("LD_LIBRARY_PATH", "{ws}/lib", "cat a.txt | sort"),
    ("LD_LIBRARY_PATH", "/usr/$LIB", "ls"),  # the loader expands $LIB, $ORIGIN, $PLATFORM
    ("LD_LIBRARY_PATH", "/usr/lib;lib", "ls"),  # ld.so splits on `;` too
    ("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libc.so.6", "ls"),  # any value: outside too
    ("LD_AUDIT", "/usr/lib/audit.so", "ls"),
    ("LD_PROFILE", "libc.so.6", "ls"),  # a loader variable bastion does not know to be harmless
    ("GCONV_PATH", "./gconv", "cat a.txt"),
    ("LOCPATH", "{ws}", "cat a.txt"),
    ("NODE_OPTIONS", "--require ./evil.js", "node --version"),
    ("NODE_ICU_DATA", "icu", "node --version"),
    ("MAKEFLAGS", "FOO:=$(shell touch pwned)", "make --version"),
    ("GNUMAKEFLAGS", "-j4 --eval=$(shell touch pwned)", "make --version"),
    ("GCC_EXEC_PREFIX", "{ws}/", "gcc --version"),
    ("MAGIC", "magic.mgc", "file a.txt"),
    ("GIT_CONFIG_GLOBAL", ".gitconfig", "git --version"),
    ("XDG_CONFIG_HOME", "{ws}", "git --version"),
]


def _value(template: str, root: Path) -> str:
    return template.format(ws=root, up=root.parent, link=root.parent / "link")


@needs_mypy
@pytest.mark.parametrize(("name", "value", "line"), HAZARDS)
def test_a_variable_that_loads_the_projects_code_where_a_dry_run_plan_runs_asks(
    root: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str
) -> None:
    os.symlink(root / "src", root.parent / "link")
    assert _why(root, line) == "", line  # runs unasked without it
    monkeypatch.setenv(name, _value(value, root))
    assert f"{name} where this runs" in _why(root, line)


# Safe siblings: outside the workspace, empty, or words bastion lets through.
SIBLINGS = [
    ("PYTHONPATH", "/usr/lib/python3/dist-packages", "mypy --version"),
    ("PYTHONPATH", "", "mypy --version"),
    ("PYTHONDONTWRITEBYTECODE", "1", "mypy --version"),
    ("PYTHONPATH", "src", "ls -la"),  # read by no program the line starts
    ("LD_LIBRARY_PATH", "/usr/local/lib", "ls -la"),
    ("LD_LIBRARY_PATH", "", "ls -la"),
    ("LD_PRELOAD", "", "ls"),
    ("LD_BIND_NOW", "1", "ls"),
    ("MAKEFLAGS", "-j4 --no-print-directory", "make --version"),
    ("MAKEFLAGS", "ks -j", "make --version"),
    ("NODE_OPTIONS", "--max-old-space-size=4096 --no-warnings", "node --version"),
    ("GIT_CONFIG_GLOBAL", "/dev/null", "git --version"),
    ("SHELLOPTS", "braceexpand:hashall:interactive-comments", "echo hi"),
]


@needs_mypy
@pytest.mark.parametrize(("name", "value", "line"), SIBLINGS)
def test_a_safe_sibling_of_a_loading_variable_still_runs(
    root: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str
) -> None:
    monkeypatch.setenv(name, value)
    assert _why(root, line) == ""


@pytest.mark.parametrize(
    ("name", "value"),
    [("BASH_ENV", "/etc/bash.bashrc"), ("SHELLOPTS", "xtrace"), ("BASHOPTS", "extdebug"),
     ("ZDOTDIR", "."), ("HOME", "{ws}"), ("LD_PRELOAD", "/usr/lib/x.so"), ("LD_LIBRARY_PATH", "lib")],
)  # fmt: skip
def test_what_the_shell_running_a_dry_run_plan_reads_asks_for_builtins_too(
    root: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    """The other agent's bash sources BASH_ENV (its name expanded: `$(...)` runs), takes options
    (xtrace expands PS4), and loads libraries itself, before `echo hi` runs."""
    monkeypatch.setenv(name, _value(value, root))
    assert f"{name} where this runs" in _why(root, "echo hi")


def test_bastions_own_plans_drop_what_loads_code_and_judge_the_users_configuration(root: Path) -> None:
    """The bash tool runs a plan in the neutral environment: PYTHONPATH, LD_LIBRARY_PATH, BASH_ENV
    never reach it, so they ask nothing; HOME and GIT_CONFIG_GLOBAL stay, and are judged."""
    hostile = {"PYTHONPATH": "src", "LD_LIBRARY_PATH": "lib", "LD_PRELOAD": "x.so", "BASH_ENV": "a.txt"}
    if MYPY.exists():
        assert _why(root, "mypy --version", hostile) == ""
    assert _why(root, "ls -la && echo hi", hostile) == ""
    plan = neutral_env({"PATH": "/usr/bin", "HOME": "/h", **hostile})
    assert not set(hostile) & set(plan) and plan["HOME"] == "/h"
    assert "HOME where this runs" in _why(root, "git --version", {"HOME": str(root)})
    assert "GIT_CONFIG_GLOBAL where" in _why(root, "git --version", {"GIT_CONFIG_GLOBAL": "x"})
    assert _why(root, "cat a.txt", {"HOME": str(root)}) == ""  # bash -c reads no .profile


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_every_variable_of_the_table_is_dropped_from_bastions_plans_or_judged_there(name: str) -> None:
    loader = LOADERS[name]
    kept = name in neutral_env({name: "/x"})
    assert kept is loader.kept and dropped_from_plans(name) is not kept
    assert not kept or loader.form in (PATHS, SEARCH)  # what stays is judged by where it leads


def test_git_plans_unset_the_git_variables_that_choose_config_or_programs() -> None:
    """GIT_CONFIG_COUNT (and so every GIT_CONFIG_KEY_n), GIT_CONFIG_PARAMETERS, GIT_EXEC_PATH and
    GIT_TEMPLATE_DIR are the git plan's own to unset (analyzer/git): not this table's."""
    from bastion.analyzer.git import UNSET_GIT_STEERING

    git_own = ("GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR")
    for name in git_own:
        assert name in UNSET_GIT_STEERING and name not in LOADERS


@pytest.mark.skipif(shutil.which("python3") is None, reason="python3 is not on PATH")
def test_every_variable_python_documents_is_judged_or_known_harmless() -> None:
    """The Python family is an allow-list: a variable of `python3 --help-env` must be in the
    table or in HARMLESS (one Python adds would otherwise ask until it is classified)."""
    done = subprocess.run(["python3", "--help-env"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip("this python3 has no --help-env (before 3.11)")
    names = {w.rstrip(":") for w in done.stdout.split() if w.startswith("PYTHON") and w.rstrip(":").isupper()}
    assert names and not names - set(LOADERS) - HARMLESS


def test_the_policy_docs_table_of_variables_is_the_analyzers() -> None:
    """docs/policy.md lists every variable of the table once, with its form and whether it is kept."""
    doc = (Path(__file__).resolve().parents[3] / "docs" / "policy.md").read_text(encoding="utf-8")
    section = doc.split("**The variables a plan runs with**")[1].split("The git plan unsets")[0]
    words = {"any": "any", "places": PATHS, "search": SEARCH, "words": "words"}
    listed: dict[str, tuple[str, bool]] = {}
    for row in section.splitlines():
        if row.startswith("| `"):
            names, _, form = (cell.strip() for cell in row.strip("|").split(" | "))
            for name in (n for n in names.split("`")[1::2] if n.isupper()):
                listed[name] = (words[form.split()[0]], "*kept*" in names)
    assert listed == {name: (loader.form, loader.kept) for name, loader in LOADERS.items()}
