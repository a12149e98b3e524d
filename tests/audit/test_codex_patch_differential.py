"""Codex's patches are read as Codex's own apply_patch reads them: every path the real binary of the
pinned Codex CLI tries to write, given a patch or a shell line bastion read, is one bastion read
(the file, or a directory above it), whatever the headers, blanks, line ends or shell shape."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.patch_cases import line, patch
from fuzz.patch_oracle import CODEX, CODEX_VERSION, Scratch, compare_line, compare_patch

pytestmark = pytest.mark.skipif(
    CODEX is None,
    reason=f"{CODEX_VERSION}'s binary (make integration installs it), strace or Landlock is missing",
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    return Scratch(tmp_path_factory.mktemp("patch"))


_SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SLOW
@given(st.randoms(use_true_random=False))
def test_every_path_apply_patch_writes_from_a_patch_bastion_read_is_one_it_read(
    scratch: Scratch, rng: random.Random
) -> None:
    text = patch(rng).replace("{ROOT}", str(scratch.root))
    verdict = compare_patch(scratch, text)
    assert not verdict.unread, (text, verdict)


@_SLOW
@given(st.randoms(use_true_random=False))
def test_every_path_a_shell_line_writes_through_apply_patch_is_one_bastion_read(
    scratch: Scratch, rng: random.Random
) -> None:
    text = line(rng).replace("{ROOT}", str(scratch.root))
    verdict = compare_line(scratch, text)
    assert not verdict.unread, (text, verdict)


def _tree(scratch: Scratch, *names: str) -> frozenset[str]:
    return frozenset(str(scratch.cwd / name) for name in names)


def test_a_patch_of_every_kind_writes_exactly_what_bastion_read(scratch: Scratch) -> None:
    text = (
        "*** Begin Patch\n*** Add File: new/n.txt\n+hi\n*** Update File: f.txt\n*** Move to: ../moved.txt\n"
        "@@\n-two\n+TWO\n*** Delete File: sub/g.txt\n*** Update File: x y.txt\n one\n+more\n"
        f"*** Add File: {scratch.root}/abs2.txt\n+x\n*** End Patch\n"
    )
    verdict = compare_patch(scratch, text)
    named = _tree(scratch, "new/n.txt", "f.txt", "sub/g.txt", "x y.txt") | {
        str(scratch.root / "a/b/moved.txt"),
        str(scratch.root / "abs2.txt"),
    }
    assert verdict.read == named
    assert verdict.written == named | _tree(scratch, "new")  # and the new file's directory


@pytest.mark.parametrize(
    "text",
    [
        "*** Begin Patch\n*** Add File: f.txt \n+x\n*** End Patch",  # Codex trims the header line
        "*** Begin Patch\n*** Add File: f.txt\u00a0\n+x\n*** End Patch",  # of Unicode white space
        "*** Begin Patch\n*** Add File: f.txt\u2028\n+x\n*** End Patch",
        "*** Begin Patch\n*** Delete File: f.txt\x0b\n*** End Patch",
        "*** Begin Patch\n *** Delete File: f.txt\n*** End Patch",
        "*** Begin Patch\r\n*** Delete File: f.txt\r\n*** End Patch\r\n",
        "<<'EOF'\n*** Begin Patch\n*** Delete File: f.txt\n*** End Patch\nEOF",
        "  *** Begin Patch\n*** Delete File: f.txt\n*** End Patch  \n\n",
    ],
)
def test_a_patch_codex_reads_leniently_is_applied_by_it_and_not_read_by_bastion(
    scratch: Scratch, text: str
) -> None:
    verdict = compare_patch(scratch, text)
    assert verdict.read is None
    assert str(scratch.cwd / "f.txt") in verdict.written  # the real tool did apply it: bastion asks


def test_a_line_in_a_shape_bash_runs_is_applied_where_bastion_read_it(scratch: Scratch) -> None:
    body = "*** Begin Patch\n*** Add File: ../z.txt\n+hi\n*** End Patch"
    verdict = compare_line(scratch, f"cd sub && apply_patch <<'EOF'\n{body}\nEOF")
    assert verdict.read == verdict.written == _tree(scratch, "z.txt")
    unquoted = compare_line(scratch, f"apply_patch '{body}'")
    assert unquoted.read == unquoted.written == {str(Path(scratch.cwd).parent / "z.txt")}


@pytest.mark.parametrize(
    ("name", "expanded"), [("n$X.txt", "n.txt"), ("n`echo`.txt", "n.txt"), ("n\\\\.txt", "n\\.txt")]
)
def test_a_name_bash_expands_in_a_bare_here_document_is_not_read(
    scratch: Scratch, name: str, expanded: str
) -> None:
    body = f"*** Begin Patch\n*** Add File: {name}\n+x\n*** End Patch"
    bare = compare_line(scratch, f"apply_patch <<EOF\n{body}\nEOF")
    assert bare.read is None
    assert bare.written == _tree(scratch, expanded)  # bash handed apply_patch another name
    quoted = compare_line(scratch, f"apply_patch <<'EOF'\n{body}\nEOF")
    assert quoted.read == quoted.written == _tree(scratch, name)
