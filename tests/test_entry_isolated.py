"""A repository cannot put its code into the decider through the interpreter's search path.

The hostile repository holds `typing.py`, `re.py`, `json.py`, `encodings/__init__.py`,
`sitecustomize.py`, `bastion/__init__.py` and a whole fake Python home, each writing a canary when
imported, and the call's environment points PYTHONPATH, PYTHONHOME, PYTHONSTARTUP and
PYTHONUSERBASE into it. bastion's command (the launcher bin/bastion, as installed beside this
interpreter), every hook command docs/integrations.md configures, and the resident server the
command starts decide as they do without those variables, and nothing of the repository is
imported. `python -m bastion` started without -I executes itself again with -I before it imports
anything of bastion's; what it cannot keep out is what the interpreter's own start reads before
bastion's code runs (encodings, sitecustomize, a `bastion` package on the path): only -I does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.resident.servers import hook_payload
from tests.waits import PATIENCE, until

ROOT = Path(__file__).resolve().parents[1]
COMMAND = Path(sys.executable).parent / "bastion"  # the launcher, as the install put it
DOCS = ROOT / "docs" / "integrations.md"
_VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


def _canary(root: Path, name: str) -> str:
    # posix, not open(): the encodings package is imported before io gives Python its open().
    where = str(root / "CANARIES" / name)
    return f"import posix\nposix.close(posix.open({where!r}, posix.O_WRONLY | posix.O_CREAT, 0o644))\n"


def hostile_repository(root: Path, names: tuple[str, ...] | None = None) -> Path:
    """A repository whose every module (or those `names`) writes a canary under root/CANARIES."""
    repo = root / "repo"
    modules = {
        "typing.py": "typing", "re.py": "re", "json.py": "json", "sitecustomize.py": "sitecustomize",
        "usercustomize.py": "usercustomize", "encodings/__init__.py": "encodings",
        "bastion/__init__.py": "bastion", "startup.py": "startup",
        f"lib/{_VERSION}/encodings/__init__.py": "home-encodings", f"lib/{_VERSION}/os.py": "home-os",
        f"lib/{_VERSION}/site-packages/usercustomize.py": "user-site",
    }  # fmt: skip
    for name, canary in modules.items():
        if names is None or name in names:
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(_canary(root, canary))
    (root / "CANARIES").mkdir()
    (repo / "a.txt").write_text("a\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _hostile_env(repo: Path) -> dict[str, str]:
    return {
        "PYTHONPATH": f".:{repo}", "PYTHONHOME": str(repo), "PYTHONSTARTUP": str(repo / "startup.py"),
        "PYTHONUSERBASE": str(repo), "PYTHONSAFEPATH": "", "PYTHONINSPECT": "",
    }  # fmt: skip


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "XDG_RUNTIME_DIR"}
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "BASTION_NO_SERVER": "1"}


def _run(argv: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> tuple[int, str, str]:
    done = subprocess.run(
        argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False, timeout=PATIENCE
    )
    return done.returncode, done.stdout, done.stderr


CALLS = [
    (["hook", "claude-code"], "rm -rf /"),
    (["hook", "claude-code"], "cat a.txt"),
    (["check", "--", "rm -rf /"], None),
    (["check", "--", "git status && cat a.txt"], None),
]


@pytest.mark.parametrize(("argv", "line"), CALLS, ids=["hook-rm", "hook-cat", "check-rm", "check-git"])
def test_the_command_decides_in_a_hostile_repository_as_without_it_and_imports_none_of_it(
    tmp_path: Path, argv: list[str], line: str | None
) -> None:
    repo = hostile_repository(tmp_path)
    stdin = hook_payload(str(repo), line) if line is not None else ""
    clean = _clean_env(tmp_path / "home")
    expected = _run([str(COMMAND), *argv], repo, clean, stdin)
    got = _run([str(COMMAND), *argv], repo, {**clean, **_hostile_env(repo)}, stdin)
    assert os.listdir(tmp_path / "CANARIES") == []
    assert got == expected


def test_the_resident_server_the_command_starts_imports_none_of_the_repository(tmp_path: Path) -> None:
    if shutil.which("strace") is None:
        pytest.skip("needs strace (to see the answer came through the server's socket)")
    repo = hostile_repository(tmp_path)
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    env = {**_clean_env(tmp_path / "home"), **_hostile_env(repo), "XDG_RUNTIME_DIR": str(run)}
    del env["BASTION_NO_SERVER"]
    stdin = hook_payload(str(repo), "cat a.txt")
    first = _run([str(COMMAND), "hook", "claude-code"], repo, env, stdin)  # decided here; starts the server
    until(lambda: _sockets(run), "the server's socket")
    trace = tmp_path / "trace"
    try:
        strace = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(trace)]
        second = _run([*strace, str(COMMAND), "hook", "claude-code"], repo, env, stdin)
        connected = (
            rf'connect\(\d+, \{{sa_family=AF_UNIX, sun_path="{run}/bastion/decide-\w+\.sock"\}}, \d+\) = 0'
        )
        assert re.search(connected, trace.read_text()), "the second call was not answered through the server"
    finally:
        _end_servers(run)
    assert os.listdir(tmp_path / "CANARIES") == []
    assert first == second and '"permissionDecision": "allow"' in first[1]


def _sockets(run: Path) -> list[str]:
    try:
        return [n for n in os.listdir(run / "bastion") if n.endswith(".sock")]
    except FileNotFoundError:
        return []


def _end_servers(run: Path) -> None:
    """End the servers whose socket is in `run` (their command line names it)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if f"{run}/bastion/".encode() in command:
            os.kill(int(pid), 15)


def _documented_hook_commands() -> list[str]:
    found = re.findall(r'command(?:"\s*:|\s*=)\s*"([^"]*\bbastion hook [^"]*)"', DOCS.read_text())
    return sorted(set(found))


def test_the_docs_configure_hooks() -> None:
    assert {"bastion hook claude-code", "bastion hook codex", "bastion hook gemini"} <= set(
        _documented_hook_commands()
    )


@pytest.mark.parametrize("command", _documented_hook_commands())
def test_every_hook_command_the_docs_configure_starts_bastion_isolated(tmp_path: Path, command: str) -> None:
    repo = hostile_repository(tmp_path)
    agent = command.split("bastion hook ")[1].split()[0]
    stdin = hook_payload(str(repo), "cat a.txt", agent)
    clean = {**_clean_env(tmp_path / "home"), "PATH": f"{COMMAND.parent}:{os.environ['PATH']}"}
    expected = _run(["sh", "-c", command], repo, clean, stdin)
    got = _run(["sh", "-c", command], repo, {**clean, **_hostile_env(repo)}, stdin)
    assert os.listdir(tmp_path / "CANARIES") == []
    assert got == expected and expected[0] == 0


def test_python_m_bastion_started_without_i_imports_none_of_a_pythonpath_entry(tmp_path: Path) -> None:
    """What bastion's code imports (typing, re, json) comes from the standard library, not from
    PYTHONPATH: `-m bastion` executes itself again with -I first."""
    repo = hostile_repository(tmp_path, ("typing.py", "re.py", "json.py"))
    stdin = hook_payload(str(repo), "cat a.txt")
    clean = _clean_env(tmp_path / "home")
    work = tmp_path / "elsewhere"  # -m puts the working directory first on the path: not the repository
    work.mkdir()
    argv = [sys.executable, "-m", "bastion", "hook", "claude-code"]
    expected = _run(argv, work, clean, stdin)
    got = _run(argv, work, {**clean, "PYTHONPATH": str(repo)}, stdin)
    assert os.listdir(tmp_path / "CANARIES") == []
    assert got == expected and '"permissionDecision": "allow"' in got[1]


_EXECVE = re.compile(r'^(\d+) +execve\("([^"]*)", \[(.*?)\], \[(.*)\]\) = 0')


def test_python_m_bastion_is_executed_again_isolated_then_without_its_key(tmp_path: Path) -> None:
    """The re-execution keeps the process and its environment; a command that holds a key (here
    `execute`) takes the key out at its next step, as when it was started with -I."""
    if shutil.which("strace") is None:
        pytest.skip("needs strace")
    key = "sk-entry-isolated-0123456789abcdef"
    trace = tmp_path / "trace"
    env = {**_clean_env(tmp_path / "home"), "OPENAI_API_KEY": key}
    strace = ["strace", "-f", "-qq", "-v", "-s", "65535", "-e", "trace=execve", "-o", str(trace)]
    done = _run([*strace, sys.executable, "-m", "bastion", "execute", str(tmp_path / "none")], tmp_path, env)
    assert done[0] == 2 and "is not a directory" in done[2]
    execs = [m.groups() for line in trace.read_text().splitlines() if (m := _EXECVE.match(line))]
    assert [path for _, path, _, _ in execs] == [sys.executable] * 3
    assert len({pid for pid, _, _, _ in execs}) == 1  # one process, executed again twice
    started, isolated, handed = (args for _, _, args, _ in execs)
    assert '"-I"' not in started and isolated.startswith(f'"{sys.executable}", "-I", "-m", "bastion"')
    assert handed == isolated and key in execs[1][3] and key not in execs[2][3]
