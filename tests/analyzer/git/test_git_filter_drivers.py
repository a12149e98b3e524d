"""A repository's attributes choose a filter driver the user's or the system's config defines, and
git status, diff and blame run it on every tracked file whose stat data changed: no plan of a line
run unasked starts one. Each plan runs under strace in the user's own environment (where another
agent runs it), and nothing but bash and git may start; the same line typed starts the driver, so
each fixture is shown to hold the hazard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bastion.analyzer import analyze
from bastion.audit import claude_code_hook
from bastion.workspace import LocalWorkspace
from tests.analyzer.gitfilters import STRACE, Driven, driven, started, traced
from tests.analyzer.gitrepo import git, make_repo
from tests.waits import PATIENCE

pytestmark = pytest.mark.skipif(STRACE is None, reason="strace is not installed: nothing can be traced")

# nbstripout's `--global` install: `python -m nbstripout` imports the nbstripout.py of the directory
# git runs it in, the repository's top.
_NBSTRIPOUT = (
    '[filter "nbstripout"]\n\tclean = "{python}" -m nbstripout\n\tsmudge = cat\n\trequired = true\n'
    '[diff "ipynb"]\n\ttextconv = "{python}" -m nbstripout -t\n\tcommand = "{python}" -m nbstripout\n'
)
_NOTEBOOK = {
    "nb.ipynb": '{"cells": []}\n',
    "nbstripout.py": "import sys\nopen('{marker}', 'a').write('in')\nsys.stdout.write(sys.stdin.read())\n",
    "README.md": "# hi\n",
}
# Every read-only form of the checker that can meet a work-tree file, or a blob a driver is for.
_FORMS = [
    "git status", "git status -s", "git status --porcelain -uall", "git status -sbv", "git diff",
    "git diff --stat", "git diff --name-only", "git diff HEAD", "git diff --cached", "git -C . diff --stat",
    "git blame nb.ipynb", "git blame -M nb.ipynb", "git log -p", "git log --stat -S cells", "git show",
    "git show --stat", "git ls-files --eol", "git ls-files -d", "git grep --cached -e cells",
    "git grep -e cells HEAD", "git stash list", "git describe --always",
]  # fmt: skip
# The forms that hash a work-tree file: typed, they start the driver.
_REHASHING = ["git status", "git diff", "git blame nb.ipynb"]


def _notebook(tmp_path: Path) -> Driven:
    files = {n: t.replace("{marker}", str(tmp_path / "ran")) for n, t in _NOTEBOOK.items()}
    user = _NBSTRIPOUT.replace("{python}", sys.executable)
    return driven(tmp_path, files, user=user, attributes="*.ipynb filter=nbstripout diff=ipynb\n")


def _plan(d: Driven, line: str) -> str:
    """The plan bastion's bash tool would run for `line` in the user's environment."""
    a = analyze(line, LocalWorkspace(str(d.repo), env=d.env))
    assert a.auto and a.rendered is not None, (a.git_reason, [s.check.why for s in a.stages])
    return a.rendered


def _runs_nothing(d: Driven, script: str, log: Path, env: dict[str, str] | None = None) -> None:
    done, violations = traced(d.repo, script, env or d.env, log)
    assert done.returncode == 0, done.stderr
    assert violations == [] and not d.marker.exists(), violations


def _typed_starts_a_driver(d: Driven, line: str, log: Path, env: dict[str, str] | None = None) -> None:
    _, violations = traced(d.repo, line, env or d.env, log)
    assert started(violations) and d.marker.exists(), violations
    d.marker.unlink()


@pytest.mark.parametrize("line", _FORMS)
def test_a_global_nbstripout_that_imports_the_repositorys_module_starts_from_no_plan(
    tmp_path: Path, line: str
) -> None:
    d = _notebook(tmp_path)
    _runs_nothing(d, _plan(d, line), tmp_path / "plan")


@pytest.mark.parametrize("line", _REHASHING)
def test_the_notebook_fixture_runs_the_repositorys_module_when_the_line_is_typed(
    tmp_path: Path, line: str
) -> None:
    _typed_starts_a_driver(_notebook(tmp_path), line, tmp_path / "typed")


_LFS = (
    '[filter "lfs"]\n\tclean = {mark} clean -- %f\n\tsmudge = {mark} smudge -- %f\n'
    "\tprocess = {mark} filter-process\n\trequired = true\n"
)


def test_git_status_runs_unasked_beside_a_system_git_lfs_and_starts_nothing(tmp_path: Path) -> None:
    d = driven(
        tmp_path,
        {"data.bin": "large\n", "main.go": "package main\n"},
        system=_LFS,
        attributes="*.bin filter=lfs diff=lfs merge=lfs -text\n",
    )
    for n, line in enumerate(("git status", "git diff", "git blame data.bin")):
        # required = true: a driver switched off but still required would fail the command
        _runs_nothing(d, _plan(d, line), tmp_path / f"plan{n}")
    _typed_starts_a_driver(d, "git status", tmp_path / "typed")


def test_a_driver_defined_in_a_file_the_users_config_includes_is_switched_off(tmp_path: Path) -> None:
    user = "[include]\n\tpath = filters.inc\n"
    d = driven(tmp_path, {"a.txt": "a\n"}, user=user, attributes="*.txt filter=inc\n")
    (d.home / "filters.inc").write_text(f'[filter "inc"]\n\tclean = {d.mark}\n')
    _runs_nothing(d, _plan(d, "git status"), tmp_path / "plan")
    _typed_starts_a_driver(d, "git status", tmp_path / "typed")


def test_a_driver_chosen_by_the_git_directorys_info_attributes_is_switched_off(tmp_path: Path) -> None:
    user = '[filter "mark"]\n\tclean = {mark}\n'
    d = driven(tmp_path, {"a.txt": "a\n"}, user=user, info="*.txt filter=mark\n")
    for n, line in enumerate(("git status", "git diff --stat", "git blame a.txt")):
        _runs_nothing(d, _plan(d, line), tmp_path / f"plan{n}")
    _typed_starts_a_driver(d, "git status", tmp_path / "typed")


def _command_scope(d: Driven) -> dict[str, str]:
    """The user's environment with a driver in each of git's two command-line variables."""
    return {
        **d.env, "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "filter.counted.clean",
        "GIT_CONFIG_VALUE_0": str(d.mark), "GIT_CONFIG_PARAMETERS": f"'filter.passed.clean'='{d.mark}'",
    }  # fmt: skip


def _hook_plan(d: Driven, line: str, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> str:
    """The plan `bastion hook claude-code` answers, decided in the environment `env` (its own)."""
    for name in ("HOME", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = d.home / "bastion.toml"
    config.write_text("")
    payload = {"cwd": str(d.repo), "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": line}}  # fmt: skip
    answer = claude_code_hook(json.dumps(payload), str(config))
    assert answer is not None
    spec = answer["hookSpecificOutput"]
    assert spec["permissionDecision"] == "allow", spec["permissionDecisionReason"]
    command: str = spec["updatedInput"]["command"]
    return command


def _check_plan(d: Driven, line: str, env: dict[str, str]) -> str:
    """The plan `bastion check` prints, run in the environment `env`."""
    argv = [sys.executable, "-m", "bastion", "check", "--config", os.devnull, "--json", "--cwd", str(d.repo)]
    done = subprocess.run([*argv, "--", line], env=env, capture_output=True, text=True, timeout=PATIENCE)
    verdict = json.loads(done.stdout)
    assert verdict["decision"] == "allow", verdict["reason"]
    plan: str = verdict["plan"]
    return plan


def test_drivers_in_the_dry_runs_command_scope_start_from_no_plan_it_hands_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = driven(
        tmp_path, {"a.txt": "a\n", "b.md": "b\n"}, attributes="*.txt filter=counted\n*.md filter=passed\n"
    )
    env = _command_scope(d)
    _typed_starts_a_driver(d, "git status", tmp_path / "typed", env)
    _runs_nothing(d, _check_plan(d, "git status", {**env, "BASTION_NO_SERVER": "1"}), tmp_path / "check", env)
    _runs_nothing(d, _hook_plan(d, "git diff", monkeypatch, env), tmp_path / "hook", env)


def test_a_dry_run_reads_the_users_config_from_its_own_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = _notebook(tmp_path)
    plan = _hook_plan(d, "git status", monkeypatch, d.env)
    assert "'-c' 'filter.nbstripout.clean='" in plan
    _runs_nothing(d, plan, tmp_path / "hook")
    system = driven(tmp_path / "lfs", {"data.bin": "large\n"}, system=_LFS, attributes="*.bin filter=lfs\n")
    _runs_nothing(system, _hook_plan(system, "git diff", monkeypatch, system.env), tmp_path / "lfs" / "hook")


def _with_submodule(tmp_path: Path, user: str, attributes: str) -> Driven:
    """A repository whose submodule `mod` holds `attributes`, a file of it touched since."""
    source = make_repo(tmp_path / "source", {"lib.go": "package lib\n", ".gitattributes": attributes})
    d = driven(tmp_path, {"main.go": "package main\n"}, user=user)
    git(d.repo, "submodule", "add", "-q", str(source), "mod")
    git(d.repo, "commit", "-q", "-m", "submodule")
    lib = d.repo / "mod" / "lib.go"
    st = lib.stat()
    os.utime(lib, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    return d


def test_a_submodules_attributes_choosing_a_users_driver_start_nothing_in_the_git_inside(
    tmp_path: Path,
) -> None:
    d = _with_submodule(tmp_path, '[filter "mark"]\n\tclean = {mark}\n', "*.go filter=mark\n")
    for n, line in enumerate(("git status", "git diff")):
        a = analyze(line, LocalWorkspace(str(d.repo), env=d.env))
        assert a.auto and a.submodules_hidden == "" and a.rendered is not None
        assert "--ignore-submodules=all" not in a.rendered  # git runs a git of its own in mod
        _runs_nothing(d, a.rendered, tmp_path / f"plan{n}")
    _typed_starts_a_driver(d, "git status", tmp_path / "typed")


def test_a_driver_the_users_config_defines_for_a_submodule_alone_keeps_submodules_hidden(
    tmp_path: Path,
) -> None:
    modules = os.path.realpath(tmp_path / "repo" / ".git" / "modules" / "mod")
    user = f'[includeIf "gitdir:{modules}"]\n\tpath = {{home}}/mod.inc\n'
    d = _with_submodule(tmp_path, user, "*.go filter=modonly\n")
    (d.home / "mod.inc").write_text(f'[filter "modonly"]\n\tclean = {d.mark}\n')
    a = analyze("git status", LocalWorkspace(str(d.repo), env=d.env))
    assert a.auto and "reads a filter driver the plan does not switch off" in a.submodules_hidden
    assert a.rendered is not None and "--ignore-submodules=all" in a.rendered
    _runs_nothing(d, a.rendered, tmp_path / "plan")
    _typed_starts_a_driver(d, "git status", tmp_path / "typed")
