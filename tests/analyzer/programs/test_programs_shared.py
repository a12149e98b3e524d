"""The PATH lookup is remembered once per process for every workspace (analyzer/programs/_programs.py): a
directory where one workspace's line runs unasked must still ask in the workspace the same PATH
entry or program leads into, whichever of the two was decided first."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bastion.analyzer import analyze
from bastion.workspace import LocalWorkspace
from tests.plans import fake_program

ORDERS = pytest.mark.parametrize("order", ["other first", "project first"])


def _analyses(order: str, other: Path, project: Path, line: str) -> dict[Path, tuple[bool, str, str | None]]:
    """The analysis of `line` in both workspaces, in `order`: (auto, why, rendered) of each."""
    found = {}
    for root in (other, project) if order == "other first" else (project, other):
        a = analyze(line, LocalWorkspace(str(root)))
        found[root] = (a.auto, a.stages[0].why, a.rendered)
    return found


def _workspaces(tmp: Path, tools: str) -> tuple[Path, Path]:
    """The project (its own `cat` in `tools`) and another directory beside it."""
    project, other = tmp / "project", tmp / "other"
    fake_program(project / tools, "cat")
    other.mkdir()
    return project, other


def _asks_in_project(order: str, other: Path, project: Path, said: str) -> tuple[bool, str, str | None]:
    """`cat x` asks in the project, saying `said`; how it was decided in the other directory."""
    found = _analyses(order, other, project, "cat x")
    auto, why, _ = found[project]
    assert not auto and said in why
    return found[other]


@ORDERS
def test_a_path_entry_leading_into_one_workspace_asks_there_and_names_the_program_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    project, other = _workspaces(tmp_path, "tools")
    (tmp_path / "links").mkdir()
    os.symlink(project / "tools", tmp_path / "links" / "tools")  # outside as written, inside once followed
    monkeypatch.setenv("PATH", f"{tmp_path / 'links' / 'tools'}:/usr/bin:/bin")
    auto, why, rendered = _asks_in_project(order, other, project, "the project's own program")
    assert auto, why
    assert rendered is not None and rendered.startswith(f"'{tmp_path / 'links' / 'tools' / 'cat'}'")


@ORDERS
def test_a_program_leading_into_one_workspace_asks_there_and_runs_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    project, other = _workspaces(tmp_path, "tools")
    (tmp_path / "bin").mkdir()
    os.symlink(project / "tools" / "cat", tmp_path / "bin" / "cat")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    auto, why, _ = _asks_in_project(order, other, project, "leads inside the working directory")
    assert auto, why


@ORDERS
def test_an_entry_inside_one_workspace_holding_the_name_asks_there_and_is_the_program_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    """The lookup shared goes on past an entry that lies inside the workspace at hand."""
    project, other = _workspaces(tmp_path, "bin")
    monkeypatch.setenv("PATH", f"{project / 'bin'}:/usr/bin:/bin")
    auto, why, rendered = _asks_in_project(order, other, project, "the project's own program")
    assert auto and rendered is not None and rendered.startswith(f"'{project / 'bin' / 'cat'}'"), why


def test_a_directory_moved_into_a_workspace_behind_a_remembered_entry_is_looked_at_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry's path with its links followed is remembered while what both name is the same: a
    directory moved into the project, and the link made again to it, makes the entry inside."""
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    fake_program(tmp_path / "tools", "cat")
    link = tmp_path / "links" / "tools"
    link.parent.mkdir()
    os.symlink(tmp_path / "tools", link)
    monkeypatch.setenv("PATH", f"{link}:/usr/bin:/bin")
    for root in (other, project):  # both remembered with the entry outside
        a = analyze("cat x", LocalWorkspace(str(root)))
        assert a.auto, a.stages[0].why
    shutil.move(tmp_path / "tools", project / "tools")
    link.unlink()
    os.symlink(project / "tools", link)
    a = analyze("cat x", LocalWorkspace(str(project)))
    assert not a.auto and "the project's own program" in a.stages[0].why
    assert analyze("cat x", LocalWorkspace(str(other))).auto


def test_a_link_put_on_the_way_to_a_remembered_entry_is_noticed_though_the_entry_names_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The directory an entry leads to stays the same one (a stat of the entry and of its followed
    path give what they gave), but a directory above it moved into the project, a link left in its
    place: every directory on the followed path is part of what the lookup rests on."""
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    fake_program(tmp_path / "T" / "a" / "b", "cat")
    entry = tmp_path / "links" / "b"
    entry.parent.mkdir()
    os.symlink(tmp_path / "T" / "a" / "b", entry)
    monkeypatch.setenv("PATH", f"{entry}:/usr/bin:/bin")
    for root in (other, project):
        assert analyze("cat x", LocalWorkspace(str(root))).auto
    os.rename(tmp_path / "T" / "a", project / "a")
    os.symlink(project / "a", tmp_path / "T" / "a")
    a = analyze("cat x", LocalWorkspace(str(project)))
    assert not a.auto and "the project's own program" in a.stages[0].why


def test_fresh_directories_share_one_lookup_and_follow_no_entry_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The PATH's entries are followed (realpath) once per process, whatever the number of
    directories (issue 31): each fresh directory's first `cat` only checks what the lookup rests on."""
    from bastion.policy import DryRun
    from bastion.workspace import LocalSystem

    followed: list[str] = []
    real = LocalSystem.realpath

    def counting(self: LocalSystem, path: str) -> str:
        if path.startswith(str(tmp_path)):  # PATH's; HOME is judged on every decision (_loaders.py)
            followed.append(path)
        return real(self, path)

    monkeypatch.setattr(LocalSystem, "realpath", counting)
    fake_program(tmp_path / "tools", "cat")
    monkeypatch.setenv("PATH", f"{tmp_path / 'empty'}:{tmp_path / 'tools'}:/usr/bin:/bin")
    dirs = [tmp_path / f"d{i}" for i in range(80)]  # more than the dry-run keeps workspaces of
    for d in dirs:  # made first: a name made beside an entry (in tmp_path) changes what it rests on
        d.mkdir()
        (d / "a.txt").write_text("a\n")
    dry = DryRun(os.devnull)
    request = {"tool": "bash", "args": {"command": "cat a.txt"}}
    decisions, quiet, last = [], 0, None
    for d in dirs:
        # The lookup rests on every directory on the way (/tmp among them): where another process
        # changed one since the decision before this one began (a busy machine), following the
        # entries again is right; where none changed, nothing may be followed again.
        before, count = _ancestors(tmp_path), len(followed)
        decisions.append(dry.request({"cwd": str(d), **request}))
        if count and last == before == _ancestors(tmp_path):
            quiet += 1
            assert len(followed) == count, followed[count:]
        last = before if before == _ancestors(tmp_path) else None
    assert quiet > 0  # at least one decision after the first met a quiet machine
    assert {a["decision"] for a in decisions} == {"allow"}
    assert {a["plan"] for a in decisions} == {f"'{tmp_path / 'tools' / 'cat'}' 'a.txt'"}
    assert set(followed) == {str(tmp_path / name) for name in ("empty", "tools", "tools/cat")}


def _ancestors(path: Path) -> list[tuple[int, ...]]:
    """The identity of every directory above `path`, as the lookup takes it."""
    return [
        (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)
        for st in (os.stat(p) for p in path.parents)
    ]
