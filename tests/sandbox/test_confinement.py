"""The kernel enforces what was decided: commands the bash tool starts run under Landlock.

An approved line writes only in the workspace, its private temporary directory and the config's
writable paths; an auto-allowed line writes nothing and connects nowhere even when its plan would
(the analyzer is replaced by a double that forces a writing plan, as a checker's mistake would)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS, ToolContext
from bastion.analyzer import Analysis
from bastion.policy import STAMP_ARG

# Private: the launcher and the raw Landlock calls are what a forced plan must not get past.
from bastion.sandbox import SandboxConfig, _confine
from bastion.workspace import Recheck, Workspace
from tests.contexts import tool_context

from .conftest import context, needs_landlock, needs_scoping, needs_tcp_rules, tree

BASH = AGENT_TOOLS["bash"]


def run(ctx: ToolContext, line: str, *, stamp: str | None = None) -> tuple[str, bool]:
    args: dict[str, object] = {"command": line}
    if stamp is not None:
        args[STAMP_ARG] = stamp
    out = BASH.run(args, ctx)
    return out.text, out.is_error


class _TrustingStamper:
    """A stamper double: every plan stamp verifies."""

    def verify_plan(self, stamp: object, analysis: Analysis, ws: Workspace) -> Recheck:
        return Recheck((), "")  # a LocalWorkspace of the session's own process reads no facts again


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch, root: Path, env: dict[str, str]) -> Iterator[ToolContext]:
    """A context whose analyzer (a double) calls every line auto-allowed and plans it as the line
    itself: whatever the line does is what a wrong checker would have let run unasked."""

    def analyze(line: str, ws: Workspace, cwd: str, **_: object) -> Analysis:
        return Analysis(line, None, None, (), True, line)

    # Private: the gate's analyzer is the seam a checker's mistake would break (the gate clears the line).
    monkeypatch.setattr("bastion.policy._gate.analyze", analyze)
    ctx = context(root, env)
    yield tool_context(ctx.ws, _TrustingStamper(), sandbox=ctx.sandbox)  # type: ignore[arg-type]


# --- approved lines: the workspace, its private temporary directory, the config's paths ----------


@needs_landlock
def test_an_approved_line_cannot_write_outside_the_working_directory(ctx: ToolContext, outside: Path) -> None:
    target = outside / "planted.txt"
    text, _ = run(ctx, f"echo owned > {target}")
    assert not target.exists()
    assert "[exit 1]" in text
    assert f"the sandbox refused a write to {target}" in text


@needs_landlock
def test_an_approved_line_writes_inside_the_working_directory(ctx: ToolContext, root: Path) -> None:
    text, error = run(ctx, "mkdir -p build && echo made > build/out.txt && mv notes.txt sub/ && echo done")
    assert not error and text.endswith("done\n[exit 0]")
    assert (root / "build" / "out.txt").read_text() == "made\n"
    assert (root / "sub" / "notes.txt").exists()


@needs_landlock
def test_an_approved_line_writes_its_private_temporary_directory_which_is_removed_after(
    ctx: ToolContext,
) -> None:
    text, _ = run(ctx, 'echo scratch > "$TMPDIR/s" && cat "$TMPDIR/s" && echo "$TMPDIR"')
    lines = text.splitlines()
    assert lines[0] == "scratch" and lines[-1] == "[exit 0]"
    assert not os.path.exists(lines[1])


@needs_landlock
def test_an_approved_line_writes_a_path_the_config_makes_writable(
    root: Path, env: dict[str, str], outside: Path
) -> None:
    ctx = context(root, env, SandboxConfig(writable=(str(outside),)))
    run(ctx, f"echo cached > {outside}/cache.txt")
    assert (outside / "cache.txt").read_text() == "cached\n"


@needs_landlock
def test_an_approved_line_that_changes_into_a_directory_outside_still_cannot_write_there(
    ctx: ToolContext, outside: Path
) -> None:
    run(ctx, f"cd {outside} && touch here.txt; rm -f kept.txt; ln -s x link")
    assert tree(outside) == {"kept.txt": b"kept\n"}


def test_with_the_sandbox_off_an_approved_line_runs_unconfined(
    root: Path, env: dict[str, str], outside: Path
) -> None:
    ctx = context(root, env, SandboxConfig(mode="off"))
    text, _ = run(ctx, f"echo out > {outside}/free.txt")
    assert (outside / "free.txt").exists() and "sandbox" not in text


# --- auto-allowed lines: a plan forced to write writes nothing ---------------------------------

WRITES = [
    "touch new.txt",
    "echo x > notes.txt",
    "echo x >> notes.txt",
    ": > notes.txt",
    "truncate -s 0 notes.txt",
    "rm notes.txt",
    "mv notes.txt moved.txt",
    "mv sub/deep.txt deep.txt",
    "cp notes.txt copy.txt",
    "mkdir made",
    "rmdir sub",
    "ln -s notes.txt link",
    "ln notes.txt hard",
    "mkfifo fifo",
    'python3 -c \'open("py.txt", "w")\'',
    "git init -q",
]


@needs_landlock
@pytest.mark.parametrize("line", WRITES)
def test_an_auto_allowed_plan_forced_to_write_cannot(forced: ToolContext, root: Path, line: str) -> None:
    before = tree(root)
    text, _ = run(forced, line, stamp="forced")
    assert tree(root) == before
    assert "[sandbox:" in text


@needs_landlock
def test_an_auto_allowed_plan_cannot_write_outside_or_in_the_temporary_directory(
    forced: ToolContext, outside: Path, tmp_path: Path
) -> None:
    before = tree(tmp_path)
    planted = f"/tmp/bastion-test-{os.getpid()}-{tmp_path.name}"
    text, _ = run(forced, f"touch {outside}/planted; touch {planted}", stamp="forced")
    assert tree(tmp_path) == before
    assert not os.path.exists(planted)
    assert f"the sandbox refused a write to {outside}/planted" in text


@needs_landlock
def test_an_auto_allowed_plan_still_reads_and_writes_to_dev_null(forced: ToolContext) -> None:
    text, error = run(forced, "cat notes.txt sub/deep.txt 2>/dev/null | head -n 2; ls >/dev/null")
    assert not error and text == "one\ntwo\n[exit 0]"


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(4)
        sock.setblocking(False)
        yield sock


def _connected(sock: socket.socket) -> bool:
    """Whether a connection reached the listener (the kernel queued it: no wait needed)."""
    try:
        sock.accept()[0].close()
    except BlockingIOError:
        return False
    return True


def _connect_line(sock: socket.socket) -> str:
    port = sock.getsockname()[1]
    return f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"


@needs_tcp_rules
def test_an_auto_allowed_plan_forced_to_connect_cannot(forced: ToolContext, listener: socket.socket) -> None:
    text, _ = run(forced, _connect_line(listener), stamp="forced")
    assert "connected" not in text
    assert not _connected(listener)


@needs_landlock
def test_an_approved_line_connects_while_the_network_is_allowed(
    ctx: ToolContext, listener: socket.socket
) -> None:
    text, _ = run(ctx, _connect_line(listener))
    assert "connected" in text and _connected(listener)


@needs_tcp_rules
def test_an_approved_line_cannot_connect_with_the_network_off(
    root: Path, env: dict[str, str], listener: socket.socket
) -> None:
    ctx = context(root, env, SandboxConfig(network=False))
    text, _ = run(ctx, _connect_line(listener))
    assert "connected" not in text and not _connected(listener)


@needs_scoping
def test_an_auto_allowed_plan_cannot_signal_a_process_outside_the_sandbox(forced: ToolContext) -> None:
    with subprocess.Popen(["sleep", "60"]) as victim:
        try:
            run(forced, f"kill -9 {victim.pid}", stamp="forced")
            assert victim.poll() is None
        finally:
            victim.kill()


# --- when the kernel cannot, and when the sandbox cannot be applied ----------------------------


def test_a_required_sandbox_on_a_kernel_without_landlock_runs_nothing(
    monkeypatch: pytest.MonkeyPatch, root: Path, env: dict[str, str]
) -> None:
    from bastion.sandbox import _landlock

    monkeypatch.setattr(_landlock, "abi", lambda: 0)
    ctx = context(root, env, SandboxConfig(mode="require"))
    text, error = run(ctx, "touch ran.txt")
    assert error and "this kernel has no Landlock" in text
    assert not (root / "ran.txt").exists()


def test_auto_on_a_kernel_without_landlock_runs_unconfined(
    monkeypatch: pytest.MonkeyPatch, root: Path, env: dict[str, str], outside: Path
) -> None:
    from bastion.sandbox import _landlock

    monkeypatch.setattr(_landlock, "abi", lambda: 0)
    run(context(root, env), f"touch {outside}/ran.txt")
    assert (outside / "ran.txt").exists()


@needs_landlock
def test_the_launcher_runs_nothing_when_the_ruleset_cannot_be_applied(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", _confine._LAUNCHER, "99", str(os.getpid()),
         "touch", str(tmp_path / "ran")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 126 and "nothing ran" in done.stderr
    assert not (tmp_path / "ran").exists()


@needs_landlock
def test_a_writable_path_that_does_not_exist_is_skipped_not_an_error(root: Path, env: dict[str, str]) -> None:
    ctx = context(root, env, SandboxConfig(writable=("/nonexistent/bastion-cache",)))
    text, error = run(ctx, "echo fine")
    assert not error and text == "fine\n[exit 0]"
