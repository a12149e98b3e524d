"""What people and the model are told: the sandbox a call runs under (check --explain), what the
kernel enforces (doctor), the notice at start, and a refusal the sandbox caused, named as such."""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bastion.cli import main
from bastion.sandbox import Confinement, SandboxConfig, denial_note, start_notice
from tests.loaded import modules_loaded

from .conftest import ABI, needs_landlock

WORKSPACE = Confinement(False, ("/var/cache/tool",), True)


@pytest.fixture
def no_landlock(monkeypatch: pytest.MonkeyPatch) -> None:
    # Private: the Landlock ABI probe is the seam faked here.
    from bastion.sandbox import _landlock

    monkeypatch.setattr(_landlock, "abi", lambda: 0)


@needs_landlock
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("bash: line 1: {p}: Permission denied", "{p}"),
        ("touch: cannot touch '{p}': Permission denied", "{p}"),
        ("mkdir: cannot create directory ‘{p}’: Permission denied", "{p}"),
        ("PermissionError: [Errno 13] Permission denied: '{p}'", "{p}"),
        ("bash: planted.txt: Permission denied", "{d}/planted.txt"),
    ],
)
def test_a_refused_write_outside_is_named_as_the_sandboxs(
    tmp_path: pathlib.Path, line: str, message: str
) -> None:
    target = tmp_path / "planted.txt"
    note = denial_note(line.format(p=target) + "\n", WORKSPACE, "/nonexistent/work", str(tmp_path))
    assert note is not None
    assert note.startswith(
        f"[sandbox: the sandbox refused a write to {message.format(p=target, d=tmp_path)}:"
    )


@needs_landlock
def test_a_refusal_inside_the_writable_places_or_where_nothing_can_be_written_is_not_blamed_on_it(
    tmp_path: pathlib.Path,
) -> None:
    inside = f"bash: {tmp_path}/x: Permission denied\n"
    out = inside + "touch: cannot touch /nonexistent/dir/x: Permission denied\n"
    note = denial_note(out, WORKSPACE, str(tmp_path), str(tmp_path))
    assert note is not None and "refused a write to" not in note
    assert "if a refusal above was of a write or a connection it forbids, the sandbox refused it" in note


@needs_landlock
@pytest.mark.parametrize(  # the pid's id is fixed: every worker of a parallel run collects the same tests
    "name", ["/proc/self/mem", pytest.param(f"/proc/{os.getpid()}/mem", id="/proc/PID/mem"), "/sys/kernel/mm"]
)
def test_a_refused_read_of_a_proc_or_sys_file_is_never_called_a_refused_write(name: str) -> None:
    note = denial_note(f"cat: {name}: Permission denied\n", WORKSPACE, "/nonexistent/work", "/")
    assert note is not None and "refused a write" not in note


_PIECES = ["/", "a", "b", ".", ":", "'", "‘", "’", '"', "\x00", "\n", "~", ": ", "Permission denied", "/tmp"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_any_output_gets_a_note_or_none_and_never_an_error(output: str) -> None:
    note = denial_note(output, WORKSPACE, "/nonexistent/work", "/nonexistent/work")
    assert (note is None) == ("Permission denied" not in output)


def test_output_without_a_refusal_gets_no_note(tmp_path: pathlib.Path) -> None:
    assert (
        denial_note("all good\nPermission granted\n", Confinement(True), str(tmp_path), str(tmp_path)) is None
    )


@needs_landlock
def test_check_explain_states_the_sandbox_of_an_auto_and_of_an_approved_line(tmp_path: pathlib.Path) -> None:
    (tmp_path / "notes.txt").write_text("x\n")
    out = io.StringIO()
    base = ["--config", "/dev/null", "--cwd", str(tmp_path), "--explain", "--"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", out)
        main(["check", *base, "cat notes.txt"])
        main(["check", *base, "make test"])
    lines = [line for line in out.getvalue().splitlines() if line.startswith("sandbox")]
    assert lines[0].startswith(
        f"sandbox: read-only (the analyzer's plan), Landlock ABI {ABI}: nothing written"
    )
    assert lines[1].startswith(
        f"sandbox, if approved: workspace (an approved line), Landlock ABI {ABI}: writes only in {tmp_path}"
    )


def test_check_explain_says_when_the_kernel_has_none(tmp_path: pathlib.Path, no_landlock: None) -> None:
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", out)
        main(["check", "--config", "/dev/null", "--cwd", str(tmp_path), "--explain", "--", "ls"])
    assert (
        'sandbox: none: this kernel has no Landlock, and sandbox = "auto" runs commands unconfined'
        in out.getvalue()
    )


@needs_landlock
def test_doctor_reports_the_abi_and_what_it_enforces(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[sandbox]\nmode = "require"\nnetwork = false\n')
    done = subprocess.run(
        [sys.executable, "-m", "bastion", "doctor", "--offline", "--config", str(config),
         "--cwd", str(tmp_path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    out = done.stdout
    assert f"sandbox: 'require' ({config})" in out
    assert f"Landlock: ABI {ABI} (Linux" in out
    assert "yes  file writes, creates and removes" in out
    assert ("yes" if ABI >= 4 else "no ") + "  TCP connect and bind (ABI 4)" in out
    assert "auto-allowed lines: read-only" in out
    assert (
        f"approved lines: workspace (an approved line), Landlock ABI {ABI}: writes only in {tmp_path}" in out
    )


def test_doctor_reports_a_config_error(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('sandbox = "sometimes"\n')
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", out)
        assert main(["doctor", "--offline", "--config", str(config), "--cwd", str(tmp_path)]) == 1
    assert "sandbox.mode: Input should be 'auto', 'require' or 'off'" in out.getvalue()


def test_a_session_says_once_at_start_when_the_kernel_has_no_landlock(no_landlock: None) -> None:
    assert start_notice(SandboxConfig()) == (
        'this kernel has no Landlock: bash commands run without the sandbox (sandbox = "auto")'
    )
    assert start_notice(SandboxConfig("require")) == (
        'sandbox = "require", but this kernel has no Landlock: every bash command will be refused'
    )
    assert start_notice(SandboxConfig("off")) is None


@needs_landlock
def test_a_session_on_a_kernel_with_landlock_says_nothing_at_start() -> None:
    assert start_notice(SandboxConfig()) is None


def test_the_sandbox_package_imports_nothing_of_bastion_but_the_root_of_its_errors_and_its_face() -> None:
    code = (
        "import sys, bastion.sandbox, bastion.sandbox._confine\n"
        "print(sorted(m for m in sys.modules if m.startswith('bastion.')\n"
        "             and not m.startswith('bastion.sandbox')\n"
        "             and m not in ('bastion._errors', 'bastion._lazy')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_dry_run_loads_no_system_call_binding(tmp_path: pathlib.Path) -> None:
    code = (
        "import os\n"
        "from bastion.cli import main\n"
        f"main(['check', '--config', os.devnull, '--cwd', {str(tmp_path)!r}, '--', 'make test'])"
    )
    assert modules_loaded(code, ("ctypes", "bastion.sandbox._landlock", "bastion.sandbox._confine")) == []
