"""The workspace's contract, held by both implementations: names confined to the root (no `..`, no
link on the way, no absolute name), a FIFO refused without blocking, writes atomic and never through
a link, the system's files outside the root read as this machine reads them, commands run in their
directory with output streamed, a timeout, a cancel and a signal reported, and a stamped command's
facts read again before it starts (changed facts: nothing runs)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from bastion.analyzer import recheck_digest

# Private: a line recipe is the value the executor reads again (the facts' seam).
from bastion.analyzer._facts import line_recipe
from bastion.workspace import ExecRequest, FactsChanged, LocalSystem, Recheck, Workspace, WorkspaceError


def _tree(root: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    (root / "d").mkdir()
    (root / "d" / "b.txt").write_text("beta\n")
    (root / "link").symlink_to("a.txt")
    (root / "out").symlink_to("/etc")
    os.mkfifo(root / "fifo")


def test_names_are_confined_to_the_root(ws: Workspace, root: Path) -> None:
    _tree(root)
    assert ws.root == str(root) and ws.real_root == os.path.realpath(root)
    assert ws.readdir(".") == ["a.txt", "d", "fifo", "link", "out"]
    assert ws.read("d/b.txt", 100) == b"beta\n"
    assert ws.read("a.txt", 3) == b"alp"
    assert ws.readlink("link") == "a.txt"
    assert stat.S_ISLNK(ws.lstat("link").st_mode) and ws.lstat("a.txt").st_size == 6
    assert ws.lstat("d/b.txt").st_ino == os.lstat(root / "d" / "b.txt").st_ino
    assert ws.lstat("a.txt").st_mtime_ns == os.lstat(root / "a.txt").st_mtime_ns
    with pytest.raises(FileNotFoundError):
        ws.lstat("missing")
    for name in ("../x", "/etc/passwd", "out/passwd", "link/x"):
        with pytest.raises(WorkspaceError):
            ws.read(name, 10)


def test_a_fifo_is_refused_without_blocking(ws: Workspace, root: Path) -> None:
    _tree(root)
    with pytest.raises(WorkspaceError, match="FIFO"):
        ws.read("fifo", 10)


def test_writes_are_atomic_make_parents_and_never_follow_a_link(ws: Workspace, root: Path) -> None:
    _tree(root)
    ws.write("new/deep/c.txt", b"gamma")
    assert (root / "new" / "deep" / "c.txt").read_bytes() == b"gamma"
    os.chmod(root / "a.txt", 0o640)
    ws.write("a.txt", b"again")
    assert (root / "a.txt").read_bytes() == b"again" and stat.S_IMODE(
        os.stat(root / "a.txt").st_mode
    ) == 0o640
    with pytest.raises(WorkspaceError):
        ws.write("link", b"x")  # a link is not a regular file
    with pytest.raises(WorkspaceError):
        ws.write("out/x", b"x")
    ws.remove("new/deep/c.txt")
    assert not (root / "new" / "deep" / "c.txt").exists()
    assert not [n for n in os.listdir(root) if n.startswith(".bastion-")]


def test_the_system_outside_the_root_reads_as_this_machine_does(ws: Workspace, tmp_path: Path) -> None:
    here = LocalSystem()
    (tmp_path / "tool").write_bytes(b"#!/bin/sh\n")
    (tmp_path / "tool").chmod(0o755)
    (tmp_path / "via").symlink_to("tool")
    for path in (str(tmp_path / "tool"), "/bin/sh"):
        assert ws.system.stat(path) == here.stat(path)
        assert ws.system.realpath(path) == here.realpath(path)
        assert ws.system.executable(path) == here.executable(path)
    assert ws.system.lstat(str(tmp_path / "via")) == here.lstat(str(tmp_path / "via"))
    assert ws.system.read(str(tmp_path / "via"), 4)[1] == b"#!/b"
    with pytest.raises(OSError):
        ws.system.read(str(tmp_path / "via"), 4, follow=False)
    with pytest.raises(FileNotFoundError):
        ws.system.stat(str(tmp_path / "missing"))
    git = tmp_path / "repo" / ".git"
    (git / "refs").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "packed-refs").symlink_to("/etc/passwd")
    scan = ws.system.scan_gitdir(str(git))
    assert scan == here.scan_gitdir(str(git)) and "symbolic link" in scan.problem


def test_a_command_runs_in_its_directory_with_its_output_streamed(ws: Workspace, root: Path) -> None:
    _tree(root)
    chunks: list[bytes] = []
    result = ws.exec(
        ExecRequest(
            ["bash", "-c", "pwd; cat; echo $MARK; exit 3"],
            cwd="d",
            env={"MARK": "m", "PATH": os.defpath},
            stdin=b"fed\n",
            on_output=chunks.append,
        )
    )
    assert result.exit_code == 3 and result.output == f"{os.path.realpath(root)}/d\nfed\nm\n".encode()
    assert b"".join(chunks) == result.output
    assert (
        ws.exec(ExecRequest(["sh", "-c", "echo $HOME"])).output
        == (os.environ.get("HOME", "/") + "\n").encode()
    )
    capped = ws.exec(ExecRequest(["sh", "-c", "head -c 1000 /dev/zero"], max_output=10))
    assert (len(capped.output), capped.omitted) == (10, 990)
    killed = ws.exec(ExecRequest(["sh", "-c", "kill -9 $$"]))
    assert (killed.exit_code, killed.signal) == (None, 9)
    with pytest.raises(OSError):
        ws.exec(ExecRequest(["/nonexistent/program"]))
    with pytest.raises(WorkspaceError):
        ws.exec(ExecRequest(["true"], cwd="out"))


def test_a_timeout_and_a_cancel_end_the_command(ws: Workspace) -> None:
    slow = ws.exec(ExecRequest(["sh", "-c", "echo started; exec sleep 600"], timeout=0.5))
    assert slow.timed_out and slow.output == b"started\n"
    cancel = threading.Event()

    def seen(chunk: bytes) -> None:
        cancel.set()  # cancelled once it is known to run: readiness, not a clock

    stopped = ws.exec(
        ExecRequest(["sh", "-c", "echo started; exec sleep 600"], on_output=seen, cancel=cancel)
    )
    assert stopped.cancelled and not stopped.timed_out


def test_a_command_whose_facts_changed_since_the_stamp_does_not_run(ws: Workspace, root: Path) -> None:
    (root / "target").symlink_to("a.txt")
    (root / "a.txt").write_text("x")
    recipe = line_recipe("echo hi > target", [("target", "a.txt")])
    facts = Recheck(recipe, recheck_digest(recipe, ws))
    assert ws.exec(ExecRequest(["sh", "-c", "echo ran > ran1"], facts=facts)).exit_code == 0
    (root / "target").unlink()
    (root / "target").symlink_to("d")  # where the redirect leads changed after the decision
    with pytest.raises(FactsChanged):
        ws.exec(ExecRequest(["sh", "-c", "echo ran > ran2"], facts=facts))
    with pytest.raises(FactsChanged):
        ws.exec(
            ExecRequest(["sh", "-c", "echo ran > ran3"], facts=Recheck(["not", "a recipe"], facts.digest))
        )
    assert (root / "ran1").exists() and not (root / "ran2").exists() and not (root / "ran3").exists()
