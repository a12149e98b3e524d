"""The analyzer's shortcuts give the same answers as the long way round.

A name that is already normal skips posixpath; a stage's arguments are read once and remembered;
a path's walk reuses the lstat it ended on, and a name with no link on the way is settled by one
lstat; the workspace's root is opened once (the directory it first opened stays the workspace).
Each is checked against what it replaces, and the file system is still asked on every decision (a
change between two decisions is seen).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.analyzer import analyze

# Private: the fast flag parser and the reader tables are the twins tested against the slow path.
from bastion.analyzer.commands._flags import _parse, parse_args
from bastion.analyzer.commands._readers import TABLES
from bastion.grammar import Word
from bastion.workspace import ExecRequest, LocalWorkspace, join, resolve, walk

_NAME = st.lists(st.sampled_from(["a", "b", ".", "..", "", ".a", "..b", "..."]), min_size=1, max_size=5).map(
    "/".join
)


@settings(max_examples=500, deadline=None)
@given(cwd=st.sampled_from([".", "src", "src/deep"]), name=_NAME)
def test_joining_a_name_gives_what_posixpath_gives(cwd: str, name: str) -> None:
    joined = posixpath.normpath(posixpath.join(cwd, name))
    assert join(cwd, name) == ("." if joined in ("", ".") else joined)


def test_a_stage_read_twice_gives_the_same_arguments_without_reading_again() -> None:
    words = (Word("-n"), Word("5"), Word("notes.txt"))
    first = parse_args("head", TABLES["head"], words)
    hits = _parse.cache_info().hits
    assert parse_args("head", TABLES["head"], list(words)) == first
    assert _parse.cache_info().hits == hits + 1


def test_the_same_words_under_another_table_are_read_against_that_table() -> None:
    words = (Word("-c"), Word("x"))
    assert parse_args("grep", TABLES["grep"], words).ok
    assert not parse_args("cut", TABLES["cut"], words).ok


def test_a_file_that_grows_past_the_limit_between_two_decisions_is_refused_the_second_time(
    tmp_path: Path,
) -> None:
    (tmp_path / "log.txt").write_bytes(b"x" * 10)
    ws = LocalWorkspace(str(tmp_path))
    assert analyze("cat log.txt", ws, max_read_bytes=100).auto
    (tmp_path / "log.txt").write_bytes(b"x" * 200)
    assert not analyze("cat log.txt", ws, max_read_bytes=100).auto


def test_a_file_swapped_for_a_link_between_two_decisions_is_judged_by_the_link(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi")
    (tmp_path / ".env").write_text("KEY=1")
    ws = LocalWorkspace(str(tmp_path))
    assert resolve(ws, ".", "notes.txt").real == "notes.txt"
    os.unlink(tmp_path / "notes.txt")
    os.symlink(".env", tmp_path / "notes.txt")
    again = resolve(ws, ".", "notes.txt")
    assert (again.real, again.size) == (".env", 5)


@pytest.mark.parametrize(
    ("name", "state", "real", "links"),
    [
        ("src/app.py", "found", "src/app.py", 0),
        ("src", "found", "src", 0),
        ("inlink/app.py", "found", "src/app.py", 1),
        ("src/up/README.md", "found", "README.md", 1),
        ("notes.txt", "found", ".env", 1),
        ("README.md/x", "not-a-directory", "README.md", 0),
        ("src/missing/x", "absent", "src/missing/x", 0),
        ("out/x", "outside", "out", 1),
    ],
)
def test_a_name_walked_in_one_step_or_component_by_component_ends_in_the_same_place(
    tmp_path: Path, name: str, state: str, real: str, links: int
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    (tmp_path / "README.md").write_text("# r")
    (tmp_path / ".env").write_text("KEY=1")
    os.symlink("src", tmp_path / "inlink")
    os.symlink("..", tmp_path / "src" / "up")
    os.symlink(".env", tmp_path / "notes.txt")
    os.symlink("/tmp", tmp_path / "out")
    w = walk(LocalWorkspace(str(tmp_path)), name)
    assert (w.state, w.real, len(w.chain)) == (state, real, links)
    if state == "found":
        assert w.st is not None and w.st == os.lstat(tmp_path / real)


def test_the_workspace_keeps_the_directory_it_first_opened_when_its_path_is_replaced(tmp_path: Path) -> None:
    first = tmp_path / "ws"
    first.mkdir()
    (first / "notes.txt").write_text("first")
    ws = LocalWorkspace(str(first))
    before = ws.lstat("notes.txt")
    first.rename(tmp_path / "moved")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("second, longer")
    assert ws.lstat("notes.txt").st_ino == before.st_ino
    assert ws.read("notes.txt", 100) == b"first"
    ran = ws.exec(ExecRequest(["cat", "notes.txt"]))
    assert ran.output == b"first"


def test_a_dropped_workspace_closes_its_root_descriptor(tmp_path: Path) -> None:
    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    LocalWorkspace(str(tmp_path)).lstat(".")  # whatever the first use opens for good
    before = open_fds()
    for _ in range(50):
        LocalWorkspace(str(tmp_path)).lstat(".")
    assert open_fds() == before
