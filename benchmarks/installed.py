"""bastion installed as a wheel, by another user, read-only to its caller: checked, then timed.

    .venv/bin/python benchmarks/installed.py [--runs N] [--keep]

Builds the wheel from this checkout's files as a fresh clone holds them (`pip wheel`, the build
isolated as pip isolates it), installs
it with the pinned dependencies (constraints.txt) into a fresh virtual environment, and hands that
environment to another user (a system user made for it with useradd, when run as root) with no
write bit for anyone else. The caller then runs without a capability (as root: no
CAP_DAC_OVERRIDE, so the owner's modes bind it as they bind any other user); not root, there is no
other user to make, and the environment is the caller's own with every write bit taken off.

It fails (exit 1) when the installed bastion:
- lacks a grammar's tables, or has tables not built from its grammar file;
- writes anything under the environment, or opens a file of lark's (the grammar compiler: tables
  built at run time), in `bastion check -- ls` decided in-process or by the resident server it
  starts (strace -f follows the server until it ends, idle);
- answers `bastion check -- ls` otherwise than the checkout does.

Then it prints the wall time of `bastion check -- ls`, installed and in the checkout (each with
its resident server running), the runs interleaved: medians, the fastest, and the ratio. Figures
only: no time is asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OWNER = "bastion-wheel"  # the system user made to own the environment (as root)
CALL = ["check", "--", "ls"]
# How the traced call is decided: in-process, and by the server it starts (which ends 1 s idle).
MODES = {"in-process": {"BASTION_NO_SERVER": "1"}, "server": {"BASTION_SERVER_IDLE": "1"}}
_WRITE = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC")
# The calls that change a directory or a file's metadata (attempts count: the install refuses them).
_CHANGES = re.compile(r"(mkdir|rename|unlink|rmdir|symlink|link|chmod|chown|utime|truncate|creat)\w*")


def _say(text: str) -> None:
    print(f"installed: {text}", flush=True)


def source(dest: Path) -> Path:
    """The checkout's files as a fresh clone of it holds them (tracked, or new and not ignored): no
    table `make` generated here, no build directory."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, check=True,
    ).stdout.split(b"\0")  # fmt: skip
    for name in filter(None, (os.fsdecode(n) for n in listed)):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def build_wheel(src: Path, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
         "-w", str(out), str(src)], check=True,
    )  # fmt: skip
    (wheel,) = out.glob("bastion-*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> None:
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c",
         str(ROOT / "constraints.txt"), str(wheel)], check=True,
    )  # fmt: skip


def hand_over(venv: Path) -> str:
    """The environment given to another user (as root) or made read-only; how, in words."""
    if os.getuid() == 0:
        known = subprocess.run(["id", "-u", OWNER], capture_output=True, check=False).returncode == 0
        if not known:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OWNER],
                           check=True)  # fmt: skip
        subprocess.run(["chown", "-R", f"{OWNER}:", str(venv)], check=True)
        subprocess.run(["chmod", "-R", "go-w", str(venv)], check=True)
        return f"owned by {OWNER}, run by root without capabilities"
    subprocess.run(["chmod", "-R", "a-w", str(venv)], check=True)
    return "not root: no other user can be made; the caller's own, every write bit off"


def caller(argv: list[str]) -> list[str]:
    """`argv` as the caller runs it: as root, with no capability left (setpriv)."""
    if os.getuid() != 0:
        return argv
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", *argv]


def environment(home: Path, **extra: str) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TERM")
    env = {k: v for k, v in os.environ.items() if k in keep}
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **extra}


def check_tables(venv: Path) -> list[str]:
    code = (
        "from bastion.grammar import _tables\n"
        "for g in _tables.grammars():\n"
        "    print(g.name, 'fresh' if g.generated() is not None else 'missing or stale')\n"
    )
    done = subprocess.run(caller([str(venv / "bin" / "python"), "-I", "-c", code]), capture_output=True,
                          text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        return [f"the tables could not be checked: {done.stderr.strip()[-500:]}"]
    return [f"{line}: the wheel's tables" for line in done.stdout.splitlines() if not line.endswith(" fresh")]


def traced(venv: Path, home: Path, work: Path, trace: Path, **extra: str) -> tuple[list[str], str]:
    """Problems in one traced `bastion check -- ls` (the server it starts followed to its end), and
    its output."""
    argv = [
        "strace",
        "-f",
        "-qq",
        "-e",
        "trace=%file",
        "-o",
        str(trace),
        str(venv / "bin" / "bastion"),
        *CALL,
    ]
    done = subprocess.run(caller(argv), cwd=work, env=environment(home, **extra), capture_output=True,
                          text=True, check=False)  # fmt: skip
    problems = [] if done.returncode == 0 else [f"exit {done.returncode}: {done.stderr.strip()[-500:]}"]
    prefix = f'"{venv}/'
    for line in trace.read_text().splitlines():
        if prefix not in line:
            continue
        call = line.split(None, 1)[1].split("(", 1)[0] if " " in line else ""
        if ("open" in call and _WRITE.search(line)) or _CHANGES.fullmatch(call):
            problems.append(f"writes (or tries to) into the install: {line.strip()[:300]}")
        if "/site-packages/lark/" in line and not any(p.startswith("loads lark") for p in problems):
            problems.append(f"loads lark (tables built at run time): {line.strip()[:300]}")
    return problems[:10], done.stdout


def _wall(argv: list[str], work: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=work, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def timings(commands: dict[str, Path], home: Path, work: Path, runs: int) -> dict[str, list[float]]:
    env = environment(home, BASTION_SERVER_IDLE="60")
    for command in commands.values():  # each starts its server, then is answered by it
        for _ in range(3):
            subprocess.run(caller([str(command), *CALL]), cwd=work, env=env, capture_output=True, check=True)
    found: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            found[name].append(_wall(caller([str(command), *CALL]), work, env))
    return found


def _end_servers(tmp: Path) -> None:
    """End the resident servers this run started (their command line names their socket in `tmp`)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if f"{tmp}/".encode() in command and b"serve_main" in command:
            os.kill(int(pid), 15)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--keep", action="store_true", help="leave the temporary directory (its path is printed)")
    args = ap.parse_args()
    if shutil.which("strace") is None:
        _say("needs strace (apt-get install strace)")
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="bastion-installed-"))
    os.chmod(tmp, 0o755)
    try:
        wheel = build_wheel(source(tmp / "src"), tmp / "dist")
        venv = tmp / "venv"
        install(wheel, venv)
        how = hand_over(venv)
        _say(f"{wheel.name} in {venv}: {how}")
        home, work = tmp / "home", tmp / "work"
        home.mkdir()
        work.mkdir()
        problems = check_tables(venv)
        for mode, extra in MODES.items():
            found, out = traced(venv, home, work, tmp / f"trace-{mode}", **extra)
            problems += [f"{mode}: {p}" for p in found]
            checkout = subprocess.run(
                caller([str(ROOT / ".venv" / "bin" / "bastion"), *CALL]), cwd=work, capture_output=True,
                text=True, env=environment(home, BASTION_NO_SERVER="1"), check=False,
            ).stdout  # fmt: skip
            if out != checkout:
                problems.append(f"{mode}: answers {out!r}, the checkout {checkout!r}")
        for problem in problems:
            _say(f"FAIL: {problem}")
        if problems:
            return 1
        _say("the wheel's tables used; nothing written into the install, no lark loaded (in-process, server)")
        commands = {"installed": venv / "bin" / "bastion", "checkout": ROOT / ".venv" / "bin" / "bastion"}
        walls = timings(commands, home, work, args.runs)
        for name, values in walls.items():
            median, fastest = statistics.median(values) * 1000, min(values) * 1000
            _say(f"{name:9} `bastion check -- ls`: median {median:.1f} ms, fastest {fastest:.1f} ms")
        ratio = statistics.median(walls["installed"]) / statistics.median(walls["checkout"])
        _say(f"installed / checkout: {ratio:.2f}")
        return 0
    finally:
        _end_servers(tmp)
        if args.keep:
            _say(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
