"""workspace.real_path is os.path.realpath (a root's real path, and every PATH entry's, decides
what lies inside the workspace): the same answer for any path, links, `.`, `..`, doubled slashes
and missing names included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.workspace._system import real_path  # the private helper is the thing tested

PARTS = st.sampled_from(["a", "b", "l", "up", "loop", "gone", "abs", ".", "..", ""])


def _tree(root: Path) -> None:
    """Directories, a relative and an absolute link, a link up, a link loop and a dangling one."""
    (root / "a" / "b").mkdir(parents=True)
    os.symlink("a", root / "l")
    os.symlink("..", root / "a" / "up")
    os.symlink("loop", root / "loop")
    os.symlink("nowhere", root / "gone")
    os.symlink(root / "a" / "b", root / "a" / "abs")


@settings(max_examples=300)
@given(parts=st.lists(PARTS, max_size=6), trailing=st.booleans())
def test_real_path_answers_as_os_path_realpath(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str], trailing: bool
) -> None:
    root = tmp_path_factory.mktemp("real")
    _tree(root)
    path = "/".join([str(root), *parts]) + ("/" if trailing else "")
    assert real_path(path) == os.path.realpath(path), path


def test_a_relative_path_and_the_root_answer_as_os_path_realpath() -> None:
    for path in ("/", "relative/x", ".", "//", "/usr/bin/../bin"):
        assert real_path(path) == os.path.realpath(path), path
