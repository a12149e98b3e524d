"""A command that only reads the session store (verify, export, list) writes nothing to it: it
works on a read-only store, and leaves a store whose directories are not 0700 as it found them
(only a command that writes a record makes the store or tightens its directories)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ..waits import run_bounded
from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace


def _recorded(tmp_path: Path, work: Path) -> tuple[str, Path]:
    """A session made here, and the store it is in, its directories then made 0755."""
    with ScriptedServer([{"text": "first answer"}]) as server:
        argv = ["-p", "start", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, _, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    session_id = run_main(["--list"], cwd=str(work), env=_env(tmp_path))[1].split()[0]
    home = tmp_path / "home" / ".bastion"
    for directory in (home, home / "sessions"):
        directory.chmod(0o755)
    return session_id, home


def _modes(home: Path) -> list[int]:
    return [stat.S_IMODE(os.stat(p).st_mode) for p in (home, home / "sessions")]


def test_verify_export_and_list_leave_a_store_with_0755_directories_as_they_found_it(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    session_id, home = _recorded(tmp_path, work)
    env = _env(tmp_path)
    code, out, err = run_main(["sessions", "verify", session_id], cwd=str(work), env=env)
    assert code == 0 and f"{session_id}: verified" in out, err
    code, out, err = run_main(
        ["sessions", "export", session_id, str(tmp_path / "out.jsonl")], cwd=str(work), env=env
    )
    assert code == 0 and f"exported {session_id}" in out, err
    assert run_main(["sessions", "list"], cwd=str(work), env=env)[1].split()[0] == session_id
    assert _modes(home) == [0o755, 0o755]


def _read_only_runner() -> list[str]:
    """The command that runs its tail with the store mounted read-only (a user and mount namespace
    of its own: no privilege needed), or a skip naming what is missing."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare (util-linux) is not installed: no read-only mount can be made")
    probe = subprocess.run([unshare, "-rm", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"unshare -rm is refused here (user namespaces off?): {probe.stderr.decode()[:200]}")
    return [unshare, "-rm", "sh", "-c"]


def test_verify_and_export_work_on_a_read_only_store_whose_directories_are_0755(tmp_path: Path) -> None:
    runner = _read_only_runner()
    work = _workspace(tmp_path, {})
    session_id, home = _recorded(tmp_path, work)
    target = tmp_path / "portable.jsonl"
    script = (
        'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && '
        '! touch "$1/sessions/probe" 2>/dev/null && shift && '
        '"$@" sessions verify "$SESSION" && "$@" sessions export "$SESSION" "$TARGET"'
    )
    done = run_bounded(
        [*runner, script, "sh", str(home), sys.executable, "-m", "bastion"],
        "verify and export on a read-only store",
        cwd=work,
        env={**os.environ, **_env(tmp_path), "SESSION": session_id, "TARGET": str(target)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert f"{session_id}: verified" in done.stdout and f"exported {session_id}" in done.stdout
    assert "Traceback" not in done.stderr and target.read_text().count("\n") >= 3
    assert _modes(home) == [0o755, 0o755]
