"""The environment a stamped plan runs in: nothing of the base may steer git or the shell."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bastion.analyzer import neutral_env

STEERING = {
    "BASH_ENV": "{marker}.sh",
    "ENV": "{marker}.sh",
    "BASH_FUNC_ls%%": "() {{ touch {marker}; }}",
    "SHELLOPTS": "xtrace",
    "PS4": "$(touch {marker})",
    "BASHOPTS": "nocaseglob",
    "GIT_CONFIG_PARAMETERS": "'core.pager'='touch {marker}'",
    "GIT_EXTERNAL_DIFF": "touch {marker}",
}


@pytest.mark.parametrize("name", STEERING)
def test_a_variable_that_steers_the_shell_or_git_is_dropped(name: str) -> None:
    env = neutral_env({name: STEERING[name].format(marker="/x"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert name not in env
    assert env["PATH"] == "/usr/bin:/bin" and env["LANG"] == "C.UTF-8"


def test_a_plan_run_in_the_neutral_env_sources_and_calls_nothing_the_base_env_names(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (tmp_path / "ran.sh").write_text(f"touch {marker}\n")
    base = {"PATH": "/usr/bin:/bin"} | {k: v.format(marker=marker) for k, v in STEERING.items()}
    base["BASH_ENV"] = base["ENV"] = str(tmp_path / "ran.sh")
    as_typed = subprocess.run(["bash", "-c", "'ls' '-d' '.'"], env=base, cwd=tmp_path, capture_output=True)
    assert as_typed.returncode == 0 and marker.exists()  # the base environment does run a program
    marker.unlink()
    subprocess.run(
        ["bash", "-c", "'ls' '-d' '.'"], env=neutral_env(base), cwd=tmp_path, check=True, capture_output=True
    )
    assert not marker.exists()


def test_git_diff_in_the_neutral_env_leaves_a_stale_index_as_it_was(tmp_path: Path) -> None:
    base = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    (tmp_path / "f").write_text("a\n")
    commit = ["-c", "user.name=a", "-c", "user.email=b", "commit", "-qm", "x"]
    for args in (["init", "-q"], ["add", "f"], commit):
        subprocess.run(["git", *args], cwd=tmp_path, env=base, check=True)
    index = tmp_path / ".git" / "index"
    before = index.read_bytes()
    stat = (tmp_path / "f").stat()
    os.utime(tmp_path / "f", ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # stale stat data

    def diff(env: dict[str, str]) -> None:
        subprocess.run(["git", "diff", "--stat"], cwd=tmp_path, env=env, check=True, capture_output=True)

    diff(neutral_env(base))
    assert index.read_bytes() == before
    diff(base | {"GIT_OPTIONAL_LOCKS": "0"})
    assert index.read_bytes() != before  # without the pinned key git does rewrite it
