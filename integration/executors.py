"""The executor over real transports (issue 32): `bastion execute` reached by OpenSSH on 127.0.0.1
(an sshd from the distribution's packages, started here with a host key and a user key made for the
run, stopped at the end), and in a container where Docker or Podman runs. Each cell is `pass`,
`fail` or `skip` with the reason: the policy must decide the same lines the same way through the
transport as on this machine, a stamped plan must run there, one whose facts changed must not, and
a program started there (as an MCP stdio server is) must have its pipes relayed both ways.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bastion.analyzer import Stamper, analyze
from bastion.policy import Gate, load_settings
from bastion.workspace import ExecRequest, ExecutorWorkspace, FactsChanged, LocalWorkspace, Workspace

__all__ = ["executor_cells"]

PATIENCE = 120.0
LINES = [
    "cat a.txt",
    "cat .env",
    "ls -la",
    "git status",
    "git log --oneline",
    "cat link",
    "rm a.txt",
    "cd d && cat ../a.txt",
    "echo x > notes",
    "git remote -v",
]


def _fixture(root: Path) -> None:
    (root / "d").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "link").symlink_to(".env")
    env = {"PATH": os.defpath, "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["remote", "add", "origin", "https://u:hunter2@example.invalid/x"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def _decisions(ws: Workspace) -> list[tuple[str, str]]:
    gate = Gate(load_settings(ws, os.devnull), ws)
    return [(d.decision.name, d.verdict.reason) for d in (gate.decide("bash", {"command": x}) for x in LINES)]


def _check(remote: ExecutorWorkspace, root: Path) -> str:
    """ "" when the executor decides and runs as this machine does, else what differed."""
    here = LocalWorkspace(str(root), env=remote.env())
    if _decisions(remote) != _decisions(here):
        return f"the verdicts differ: {_decisions(remote)} != {_decisions(here)}"
    stamper = Stamper()
    plan = analyze("cat a.txt", remote, ".")
    facts = stamper.verify_plan(stamper.plan_stamp(plan, remote), plan, remote)
    if plan.rendered is None or facts is None:
        return "cat a.txt was not stamped through the executor"
    ran = remote.exec(ExecRequest(["bash", "-c", plan.rendered], env=remote.env(), facts=facts))
    if ran.output != b"alpha\n":
        return f"the plan printed {ran.output!r}"
    (root / "a.txt").write_text("changed\n")
    try:
        remote.exec(ExecRequest(["bash", "-c", plan.rendered], env=remote.env(), facts=facts))
    except FactsChanged:
        return _relayed(remote, root)
    return "a plan whose read changed after its stamp ran"


def _through(argv: list[str], root: Path) -> str:
    """_check of the executor `argv` starts, closed at the end."""
    remote = ExecutorWorkspace(argv, {"PATH": os.environ.get("PATH", os.defpath)}, reply_timeout=PATIENCE)
    try:
        return _check(remote, root)
    finally:
        remote.close()


def _relayed(remote: ExecutorWorkspace, root: Path) -> str:
    """ "" when a program started there (as an MCP stdio server is) relays its pipes both ways."""
    program = remote.spawn(["sh", "-c", "pwd; cat"], cwd=None, env={})
    program.write(b"ping\n")
    program.close_input()
    said = b""
    while (got := program.next())[0] != "exit":
        said += got[1] if got[0] == "output" else b""
    if said != f"{root}\nping\n".encode() or program.exit != (0, None):
        return f"a started program said {said!r} and ended {program.exit}"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + PATIENCE
    while proc.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"sshd did not listen on 127.0.0.1:{port} (exit {proc.poll()})")


@contextlib.contextmanager
def _sshd(sshd: str, tmp: Path) -> Iterator[tuple[int, Path]]:
    """An sshd of this run's own: its host key, the one user key it accepts, a free port."""
    for name in ("host", "user"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp / name)], check=True)
    (tmp / "authorized_keys").write_text((tmp / "user.pub").read_text())
    port = _free_port()
    (tmp / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp / 'host'}\nPidFile {tmp / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {tmp / 'authorized_keys'}\nStrictModes no\nUsePAM no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
        "LogLevel ERROR\n"
    )
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    proc = subprocess.Popen([sshd, "-D", "-e", "-f", str(tmp / "sshd_config")], stderr=subprocess.PIPE)
    try:
        _listening(port, proc)
        yield port, tmp / "user"
    finally:
        proc.terminate()
        proc.wait()


def _found(name: str, *also: str) -> str | None:
    """The program `name` on PATH (or at one of `also`), when what is found is that program."""
    path = shutil.which(name) or next((p for p in also if os.access(p, os.X_OK)), None)
    return path if path is not None and os.path.basename(path) == name else None


def _ssh_cell(checkout: Path) -> tuple[str, str]:
    sshd = _found("sshd", "/usr/sbin/sshd")
    if sshd is None or _found("ssh") is None:
        return "skip", "no OpenSSH server here (the distribution's openssh-server package)"
    with tempfile.TemporaryDirectory(prefix="bastion-ssh-") as t:
        tmp = Path(t)
        root = tmp / "work" / "root"
        _fixture(root)
        with _sshd(sshd, tmp) as (port, key):
            python = shlex.quote(str(checkout / ".venv" / "bin" / "python"))
            argv = [
                "ssh",
                "-i",
                str(key),
                "-p",
                str(port),
                "-o",
                "BatchMode=yes",
                "-o",
                "StrictHostKeyChecking=no",
                "-o",
                f"UserKnownHostsFile={tmp / 'known_hosts'}",
                "-o",
                "LogLevel=ERROR",
                f"{getpass.getuser()}@127.0.0.1",
                python,
                "-m",
                "bastion",
                "execute",
                shlex.quote(str(root)),
                "--kind",
                "remote",
                "--ref",
                "127.0.0.1",
            ]
            why = _through(argv, root)
    return ("fail", why) if why else ("pass", f"ssh to 127.0.0.1:{port}, {len(LINES)} lines decided alike")


def _container_cell(checkout: Path) -> tuple[str, str]:
    """`ENGINE exec -i NAME python -m bastion execute ROOT` into a container of this run's own: an
    image imported from a root of a few directories and links (no registry is reached), this
    machine's /usr, /etc, Python and the checkout mounted read-only at their own paths, the
    workspace read-write at its own (so both sides name the same root), no network."""
    engines = [e for e in (_found("docker"), _found("podman")) if e is not None]
    if not engines:
        return "skip", "neither Docker nor Podman is installed"
    idle = []
    for engine in engines:
        info = subprocess.run([engine, "info"], capture_output=True, text=True, check=False, timeout=PATIENCE)
        if info.returncode == 0:
            break
        idle.append(f"{os.path.basename(engine)} does not run here: {_said(info)}")
    else:
        return "skip", "; ".join(idle)
    with tempfile.TemporaryDirectory(prefix="bastion-container-") as t:
        tmp = Path(t)
        root = tmp / "work" / "root"
        _fixture(root)
        with _container(engine, tmp, checkout, root) as (started, why):
            if why:
                return "skip", f"{os.path.basename(engine)} cannot start a container here: {why}"
            python = str(checkout / ".venv" / "bin" / "python")
            argv = [engine, "exec", "-i", started, python, "-m", "bastion", "execute", str(root)]
            argv += ["--kind", "container", "--ref", started]
            why = _through(argv, root)
    engine_name = os.path.basename(engine)
    return ("fail", why) if why else ("pass", f"{engine_name} exec, {len(LINES)} lines decided alike")


def _said(done: subprocess.CompletedProcess[str]) -> str:
    return " ".join((done.stderr or done.stdout).split())[:200]


@contextlib.contextmanager
def _container(engine: str, tmp: Path, checkout: Path, root: Path) -> Iterator[tuple[str, str]]:
    """The running container's name and "", or "" and why it could not start (its engine's
    words); removed, with its image, at the end."""
    image = f"localhost/bastion-integration:{os.getpid()}"
    base = tmp / "image"
    for name in ("etc", "tmp", "root", "proc", "dev", "sys", "run"):
        (base / name).mkdir(parents=True)
    for name in ("bin", "lib", "lib64", "sbin"):
        (base / name).symlink_to(f"usr/{name}")
    subprocess.run(["tar", "-C", str(base), "-cf", str(tmp / "image.tar"), "."], check=True)
    made = subprocess.run(
        [engine, "import", str(tmp / "image.tar"), image], capture_output=True, text=True, timeout=PATIENCE
    )
    if made.returncode != 0:
        yield "", f"import: {_said(made)}"
        return
    name = f"bastion-integration-{os.getpid()}"
    mounts = ["/usr", "/etc", sys.base_prefix, str(checkout)]
    volumes = [f"-v{m}:{m}:ro" for m in dict.fromkeys(mounts) if not m.startswith("/usr/")]
    # The engine's own limits may be above this machine's (which a container may not raise).
    limits = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"]
    run = [engine, "run", "-d", "--rm", "--name", name, "--network", "none", *limits, *volumes]
    run += [f"-v{root}:{root}", image, "/usr/bin/sleep", "infinity"]
    try:
        started = subprocess.run(run, capture_output=True, text=True, timeout=PATIENCE)
        yield (name, "") if started.returncode == 0 else ("", f"run: {_said(started)}")
    finally:
        for end in (["rm", "-f", name], ["rmi", "-f", image]):
            subprocess.run([engine, *end], capture_output=True, timeout=PATIENCE, check=False)


def executor_cells(checkout: Path) -> list[tuple[str, str, str]]:
    """(transport, status, detail) for each transport."""
    cells = []
    runs: tuple[tuple[str, Callable[[], tuple[str, str]]], ...] = (
        ("ssh", lambda: _ssh_cell(checkout)),
        ("container", lambda: _container_cell(checkout)),
    )
    for name, cell in runs:
        try:
            status, detail = cell()
        except Exception as error:  # noqa: BLE001 - one broken cell must not hide the others
            status, detail = "fail", f"{type(error).__name__}: {error}"
        cells.append((name, status, detail))
    return cells


if __name__ == "__main__":
    found = executor_cells(Path(__file__).resolve().parents[1])
    for transport, status, detail in found:
        print(f"executor over {transport}: {status}: {detail}")
    sys.exit(1 if any(status == "fail" for _, status, _ in found) else 0)
