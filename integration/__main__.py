"""`python -m integration` (`make integration`): install the pinned CLIs, run the table of scenarios, print
it with the CLIs' versions, exit 1 on any failure. Without node and npm, or when the install fails, every
cell is skipped with the reason and the exit is 0."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from integration.agents import AgentCli, SetupError, agents, base_environment, hook_command
from integration.executors import executor_cells
from integration.model_server import ModelServer
from integration.proxy_sink import ProxySink
from integration.scenarios import SCENARIOS, Finished, Outcome, Scenario, Verdict, make_fixture

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
MODULES = HERE / "node_modules"
STAMP = MODULES / ".bastion-installed"
PROMPT = "Run the scripted tool call."
RUN_TIMEOUT = 180
NOWHERE = "http://127.0.0.1:9"  # a closed port, the proxy of `--version`
INSTALL_TIMEOUT = 600


def _install(npm: str) -> str | None:
    """`npm ci` from the committed lock when it changed since the last install; why not, else None."""
    lock = (HERE / "package-lock.json").read_bytes()
    digest = hashlib.sha256(lock).hexdigest()
    if STAMP.is_file() and STAMP.read_text().strip() == digest:
        return None
    command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(HERE)]
    # Bounded: with the registry out of reach npm fails within a few minutes, not after its 5-minute
    # timeout per request times its retries.
    command += ["--fetch-timeout=60000", "--fetch-retries=1"]
    try:
        done = subprocess.run(
            command,
            env={**os.environ, "npm_config_update_notifier": "false"},
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"npm ci did not finish in {INSTALL_TIMEOUT} s"
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).split())[-300:]
        return f"npm ci failed (exit {done.returncode}): {tail}"
    STAMP.write_text(digest + "\n")
    return None


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> Finished:
    """Run the CLI in a process group of its own, and end whatever of that group is left afterwards."""
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT)
        code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        code = None
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    return Finished(code, stdout, stderr)


def _stragglers(home: Path) -> list[int]:
    """The live processes a run left with `home` as their HOME or in their command line: what it
    started outside the CLI's process group (bastion's resident server, in a session of its own,
    whose socket is under HOME; a CLI's own background writer)."""
    mark, named = b"\0HOME=" + os.fsencode(home) + b"\0", os.fsencode(home) + b"/"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with (
            contextlib.suppress(OSError),
            open(f"/proc/{entry}/environ", "rb") as f,
            open(f"/proc/{entry}/cmdline", "rb") as g,
        ):
            if mark in b"\0" + f.read() or named in g.read():
                found.append(int(entry))
    return found


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] == b"Z"  # a zombie runs nothing more
    except OSError:
        return True


def _end_stragglers(home: Path) -> None:
    """Every process of the run ended before its directory is removed: one still writing there
    makes the removal fail ("Directory not empty"), or outlives the table. Each is killed and
    waited for until it is gone (bounded, so that a failure ends)."""
    killed = _stragglers(home)
    for pid in killed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while not all(_gone(pid) for pid in killed) and time.monotonic() < deadline:
        time.sleep(0.01)


def _one(agent: AgentCli, scenario: Scenario, bastion: Path, node_dir: str) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="bastion-integration-") as tmp:
        try:
            return _in(Path(tmp), agent, scenario, bastion, node_dir)
        finally:
            _end_stragglers(Path(tmp) / "home")


def _in(tmp: Path, agent: AgentCli, scenario: Scenario, bastion: Path, node_dir: str) -> Verdict:
    fixture = make_fixture(tmp, "integration-secret-" + secrets.token_hex(12))
    if scenario.prepare is not None:
        scenario.prepare(fixture)
    call = scenario.call(agent, fixture)
    if isinstance(call, str):
        return Verdict("skip", call)
    with ProxySink() as sink, ModelServer(call) as server:
        env = base_environment(fixture.home, node_dir, sink.url)
        env.update(agent.environment(fixture.home, server.url))
        env.update(scenario.env)
        strict = scenario.strict and agent.hook_name != "claude-code"
        try:
            agent.configure(
                fixture.home,
                fixture.project,
                server.url,
                hook_command(bastion, agent.hook_name, strict=strict),
                env,
            )
        except SetupError as error:
            return Verdict("fail", f"setup: {error}")
        finished = _run(agent.argv(PROMPT, bypass=scenario.bypass), fixture.project, env)
        verdict = scenario.check(Outcome(agent, fixture, server, finished, env, bastion))
        if sink.attempts:
            tried = ", ".join(sorted(set(sink.attempts)))
            return Verdict("fail", f"{agent.name} reached for the internet ({tried}); {verdict.reason}")
        return verdict


def _table(columns: list[str], rows: list[tuple[str, list[Verdict]]], versions: list[str]) -> str:
    first = max(len("scenario"), *(len(title) for title, _ in rows))
    widths = [max(len(c), 4) for c in columns]
    lines = [
        "bastion's hooks against the real agent CLIs (scripted model on 127.0.0.1; make integration)",
        "versions: " + "; ".join(f"{c} {v}" for c, v in zip(columns, versions, strict=True)),
        "",
        " | ".join(["scenario".ljust(first), *(c.ljust(w) for c, w in zip(columns, widths, strict=True))]),
        "-+-".join(["-" * first, *("-" * w for w in widths)]),
    ]
    for title, verdicts in rows:
        cells = (v.status.ljust(w) for v, w in zip(verdicts, widths, strict=True))
        lines.append(" | ".join([title.ljust(first), *cells]))
    lines.append("")
    for title, verdicts in rows:
        for column, verdict in zip(columns, verdicts, strict=True):
            lines.append(f"{verdict.status:4}  {title} · {column}: {verdict.reason}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m integration", description=__doc__)
    parser.add_argument("--agent", action="append", help="run only this CLI's column (its name, any case)")
    parser.add_argument(
        "--scenario", action="append", help="run only the scenarios whose title has this text"
    )
    parser.add_argument(
        "--bastion", type=Path, default=CHECKOUT / ".venv" / "bin" / "bastion", help="the bastion to hook"
    )
    args = parser.parse_args(argv)
    bastion: Path = args.bastion.absolute()
    clis = [a for a in agents(MODULES) if not args.agent or a.name.lower() in {n.lower() for n in args.agent}]
    node, npm = shutil.which("node"), shutil.which("npm")
    skip_all = None
    if node is None or npm is None:
        skip_all = "node and npm are not installed"
    elif not bastion.exists():
        skip_all = f"{bastion} does not exist (make .venv/.installed)"
    else:
        skip_all = _install(npm)
    node_dir = str(Path(node).parent) if node else ""
    versions: list[str] = []
    column_skip: list[str | None] = []
    for agent in clis:
        if skip_all is not None:
            versions.append("not installed")
            column_skip.append(skip_all)
            continue
        with tempfile.TemporaryDirectory(prefix="bastion-integration-") as home:
            try:
                versions.append(agent.version(base_environment(Path(home), node_dir, NOWHERE)))
                column_skip.append(None)
            except (SetupError, OSError, subprocess.TimeoutExpired) as error:
                versions.append("unavailable")
                column_skip.append(f"{agent.name} does not start: {error}")
    rows: list[tuple[str, list[Verdict]]] = []
    chosen = [s for s in SCENARIOS if not args.scenario or any(t in s.title for t in args.scenario)]
    for scenario in chosen:
        verdicts = []
        for agent, skip in zip(clis, column_skip, strict=True):
            if skip is not None:
                verdicts.append(Verdict("skip", skip))
            else:
                try:
                    verdicts.append(_one(agent, scenario, bastion, node_dir))
                except Exception as error:  # noqa: BLE001 - one broken cell must not hide the table
                    verdicts.append(Verdict("fail", f"the harness failed: {type(error).__name__}: {error}"))
        rows.append((scenario.title, verdicts))
    print(_table([a.name for a in clis], rows, versions))
    failed = sum(v.status == "fail" for _, verdicts in rows for v in verdicts)
    for transport, status, detail in executor_cells(
        CHECKOUT
    ):  # issue 32: bastion execute over real transports
        print(f"executor over {transport}: {status}: {detail}")
        failed += status == "fail"
    print(f"\n{failed} failed" if failed else "\nno failure")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
