"""Repositories that a git plan must not betray, and the plan of a line run for real.

`secret_repo` holds secret-looking files committed twice, staged and modified again; `embedded`
holds a repository inside the work tree whose config names a spy program for everything git can
run. `run_plan` analyses a line and runs its rendered plan under the neutral environment."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bastion.analyzer import SECRET_PATHS, analyze, neutral_env
from bastion.workspace import ExecRequest
from tests.waits import PATIENCE

from .gitrepo import GIT_ENV, git, make_repo, set_config, workspace, write

SECRET = "hunter2"


def secret_repo(tmp_path: Path) -> Path:
    files = {"a.txt": "one\n", ".env": f"TOKEN={SECRET}\n", "sub/deep/id_rsa": f"{SECRET}\n"}
    repo = make_repo(tmp_path / "repo", {**files, "sub/x.txt": "x\n"})
    write(repo, {".env": f"TOKEN={SECRET}-2\n", "sub/deep/id_rsa": f"{SECRET}-2\n", "a.txt": "two\n"})
    git(repo, "commit", "-q", "-am", "second")
    write(repo, {".env": f"TOKEN={SECRET}-3\n", "sub/deep/id_rsa": f"{SECRET}-3\n", "sub/x.txt": "y\n"})
    git(repo, "add", ".env", "sub/deep/id_rsa")
    write(repo, {".env": f"TOKEN={SECRET}-4\n", "sub/deep/id_rsa": f"{SECRET}-4\n"})
    return repo


def typed_output(cwd: Path, line: str) -> str:
    """What the line prints run as typed, without any neutralising."""
    argv = ["bash", "-c", line]
    return subprocess.run(argv, cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=False).stdout


def run_plan(root: Path, line: str, secrets: tuple[str, ...] = SECRET_PATHS) -> tuple[int | None, str]:
    """The exit code and output of the line's rendered plan, run under the neutral environment."""
    ws = workspace(root)
    a = analyze(line, ws, secrets=secrets)
    assert a.auto and a.rendered is not None, [s.why for s in a.stages]
    done = ws.exec(
        ExecRequest(
            ["bash", "-c", a.rendered], env=neutral_env(ws.env()), timeout=PATIENCE, max_output=1 << 20
        )
    )
    return done.exit_code, done.output.decode("utf-8", "replace")


def pattern_names(pattern: str) -> list[str]:
    """Files a shipped secret pattern names: at the root, two directories down, in upper case, and
    (where bastion's `*` crosses `/`) below a matching directory."""
    stem = pattern.removesuffix("/**")
    name = stem.replace("*", "x") + ("/f" if pattern.endswith("/**") else "")
    names = [name, f"d1/d2/{name}", f"d1/{name.upper()}"]
    if stem.endswith("*"):
        names.append(f"d3/{stem.replace('*', 'x')}/inner")
    return names


def embedded(tmp_path: Path) -> tuple[Path, Path]:
    """A work tree holding a modified repository of its own whose config names a spy program for
    fsmonitor, external diffs, textconv, a clean filter, the pager, gpg and hooks; and the file
    the spy writes when it runs."""
    marker = tmp_path / "ran"
    spy = tmp_path / "spy.sh"
    spy.write_text(f'#!/bin/sh\necho "$0" >> "{marker}"\nexit 0\n')
    spy.chmod(0o755)
    outer = make_repo(tmp_path / "outer", {"a.txt": "one\n"})
    inner = make_repo(outer / "inner", {"b.txt": "one\n", ".gitattributes": "* diff=x filter=x\n"})
    git(outer, "add", "inner")
    git(outer, "commit", "-q", "-m", "embed")
    programs = (
        "core.fsmonitor",
        "diff.external",
        "core.pager",
        "gpg.program",
        "diff.x.textconv",
        "filter.x.clean",
    )
    for key in programs:
        set_config(inner, key, str(spy))
    set_config(inner, "core.hooksPath", str(tmp_path))
    write(inner, {"b.txt": "two\n", "new.txt": "n\n"})
    write(outer, {"a.txt": "two\n"})
    return outer, marker
