"""resolve(): a path argument judged inside the working directory, links followed, no `..` at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bastion.workspace import LocalWorkspace, resolve


@pytest.mark.parametrize(
    ("cwd", "raw", "name", "real", "exists"),
    [
        (".", "main.go", "main.go", "main.go", True),
        (".", "./main.go", "main.go", "main.go", True),
        (".", "sub//a.go", "sub/a.go", "sub/a.go", True),
        (".", "sub/", "sub", "sub", True),
        (".", ".", ".", ".", True),
        ("sub", "a.go", "sub/a.go", "sub/a.go", True),
        (".", "notes.txt", "notes.txt", ".env", True),
        (".", "chain1", "chain1", ".env", True),
        (".", "inlink/a.go", "inlink/a.go", "sub/a.go", True),
        ("inlink", "deep/b.go", "inlink/deep/b.go", "sub/deep/b.go", True),
        (".", "sub/up/main.go", "sub/up/main.go", "main.go", True),
        (".", "missing.txt", "missing.txt", "missing.txt", False),
        (".", "nodir/x/y", "nodir/x/y", "nodir/x/y", False),
        (".", "later.txt", "later.txt", "missing.txt", False),
        (".", "-n", "-n", "-n", False),
    ],
)
def test_a_path_inside_resolves_to_its_name_and_where_it_leads(
    ws: LocalWorkspace, cwd: str, raw: str, name: str, real: str, exists: bool
) -> None:
    r = resolve(ws, cwd, raw)
    assert r.ok, r.why
    assert (r.name, r.real, r.exists) == (name, real, exists)


def test_an_absolute_path_inside_the_root_is_accepted_both_as_given_and_with_links_resolved(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "sub" / "a.go").write_text("x\n")
    os.symlink(real, tmp_path / "alias")
    ws = LocalWorkspace(str(tmp_path / "alias"))
    for raw in (f"{tmp_path}/alias/sub/a.go", f"{tmp_path}/real/sub/a.go"):
        r = resolve(ws, ".", raw)
        assert r.ok, r.why
        assert r.name == "sub/a.go" and r.is_regular


@pytest.mark.parametrize(
    ("cwd", "raw", "closes"),
    [
        (".", "", "empty"),
        (".", "~", "home"),
        (".", "~/x", "home"),
        (".", "~root/x", "home"),
        (".", "..", ".."),
        (".", "../x", ".."),
        (".", "sub/..", ".."),
        (".", "sub/../main.go", ".."),
        (".", "missing/../main.go", ".."),
        ("sub", "../main.go", ".."),
        (".", "/etc/passwd", "outside"),
        (".", "/", "outside"),
        (".", "a\x00b", "NUL"),
        (".", "etclink", "link"),
        (".", "etclink/passwd", "link"),
        (".", "outfile", "link"),
        (".", "dangling", "link"),
        (".", "evil/secret.txt", "link"),
        (".", "outdir/escape", "link"),
        (".", "outdir/escape/ws/main.go", "link"),
        (".", "ghost", "missing directory"),
        (".", "main.go/x", "not a directory"),
    ],
)
def test_a_path_that_could_leave_the_working_directory_is_refused(
    ws: LocalWorkspace, cwd: str, raw: str, closes: str
) -> None:
    r = resolve(ws, cwd, raw)
    assert not r.ok
    assert closes in r.why


def test_a_sibling_directory_sharing_the_roots_prefix_is_outside(ws: LocalWorkspace, root: Path) -> None:
    r = resolve(ws, ".", f"{root}-evil/secret.txt")
    assert not r.ok and "outside" in r.why
    assert resolve(ws, ".", f"{root}/main.go").ok


def test_a_loop_of_links_is_refused(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    r = resolve(LocalWorkspace(str(tmp_path)), ".", "a")
    assert not r.ok and "links" in r.why


@pytest.mark.parametrize(("hops", "ok"), [(40, True), (41, False)])
def test_at_most_forty_links_are_followed(tmp_path: Path, hops: int, ok: bool) -> None:
    (tmp_path / "end").write_text("x\n")
    for i in range(hops):
        os.symlink(f"l{i + 1}" if i + 1 < hops else "end", tmp_path / f"l{i}")
    assert resolve(LocalWorkspace(str(tmp_path)), ".", "l0").ok is ok


@pytest.mark.parametrize(
    ("raw", "regular", "directory"),
    [
        ("main.go", True, False),
        ("sub", False, True),
        ("inlink", False, True),
        ("pipe", False, False),
        ("missing.txt", False, False),
    ],
)
def test_the_kind_of_file_is_that_of_where_the_path_leads(
    ws: LocalWorkspace, raw: str, regular: bool, directory: bool
) -> None:
    r = resolve(ws, ".", raw)
    assert r.ok
    assert (r.is_regular, r.is_dir) == (regular, directory)
