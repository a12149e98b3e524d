"""A plan switches off every filter driver by the name git compares the attribute's value with (the
subsection, case kept: dots, quotes and the empty name too); a name git's `-c` cannot spell, or more
drivers than a plan carries, asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bastion.analyzer import analyze
from bastion.analyzer.git._filters import MAX_DRIVERS, drivers_of  # private: the words are the seam
from bastion.analyzer.git._keys import Entry  # private: a listing's entries, as the probe reads them
from bastion.workspace import LocalWorkspace
from tests.analyzer.gitfilters import STRACE, Driven, driven, started, traced

_NEEDS_STRACE = pytest.mark.skipif(STRACE is None, reason="strace is not installed: nothing can be traced")
_NAMES = ("NbStrip", "nbstrip", "a.b", "it's", "", "ünï")


def _decided(d: Driven, line: str) -> tuple[bool, str, str]:
    a = analyze(line, LocalWorkspace(str(d.repo), env=d.env))
    return a.auto, a.rendered or "", a.git_reason


def test_the_words_name_each_driver_once_in_the_listings_order_and_skip_keys_without_a_driver() -> None:
    entries = [
        Entry("system", "/etc/gitconfig", "filter.lfs.process", "git-lfs filter-process"),
        Entry("global", "/h/.gitconfig", "filter.Nb.Strip.clean", "x"),
        Entry("global", "/h/.gitconfig", "filter.lfs.required", "true"),
        Entry("global", "/h/.gitconfig", "filter.clean", "not a driver"),
        Entry("command", "", "filter..smudge", "y"),
    ]
    drivers = drivers_of(entries)
    assert drivers.why == ""
    assert drivers.words == tuple(
        w
        for name in ("lfs", "Nb.Strip", "")
        for off in ("clean=", "smudge=", "process=", "required=false")
        for w in ("-c", f"filter.{name}.{off}")
    )
    assert drivers_of([Entry("global", "/h/.gitconfig", "diff.x.textconv", "t")]).words == ()


def test_a_name_with_an_equals_sign_or_too_many_drivers_cannot_be_switched_off() -> None:
    equals = drivers_of([Entry("global", "/h/.gitconfig", "filter.a=b.clean", "x")])
    assert equals.words == () and "'a=b' (in /h/.gitconfig)" in equals.why and "'='" in equals.why
    many = drivers_of(Entry("global", "/h/c", f"filter.d{i}.clean", "x") for i in range(MAX_DRIVERS + 1))
    assert many.words == () and f"{MAX_DRIVERS + 1} filter drivers" in many.why
    enough = drivers_of(Entry("global", "/h/c", f"filter.d{i}.clean", "x") for i in range(MAX_DRIVERS))
    assert enough.why == "" and len(enough.words) == 8 * MAX_DRIVERS


@_NEEDS_STRACE
def test_every_driver_is_switched_off_by_its_own_name_case_dots_quotes_and_all(tmp_path: Path) -> None:
    user = "".join(f'[filter "{name}"]\n\tclean = {{mark}} {i}\n' for i, name in enumerate(_NAMES))
    files = {f"f{i}.txt": f"{i}\n" for i in range(len(_NAMES))}
    chosen = "".join(f"f{i}.txt filter={name}\n" for i, name in enumerate(_NAMES))
    d = driven(tmp_path, files, user=user, attributes=chosen)
    _, violations = traced(d.repo, "git status", d.env, tmp_path / "typed")
    assert started(violations) and sorted(d.marker.read_text().split()) == [
        str(i) for i in range(len(_NAMES))
    ]
    d.marker.unlink()
    auto, plan, why = _decided(d, "git status")
    assert auto, why
    assert "'-c' 'filter.it'\"'\"'s.clean='" in plan and "'-c' 'filter..process='" in plan
    done, violations = traced(d.repo, plan, d.env, tmp_path / "plan")
    assert done.returncode == 0 and violations == [] and not d.marker.exists(), violations


@_NEEDS_STRACE
def test_a_driver_named_with_an_equals_sign_asks_where_git_hashes_files(tmp_path: Path) -> None:
    user = '[filter "a=b"]\n\tclean = {mark}\n'
    d = driven(tmp_path, {"a.txt": "a\n"}, user=user, attributes="*.txt filter=a=b\n")
    _, violations = traced(d.repo, "git status", d.env, tmp_path / "typed")
    assert started(violations) and d.marker.exists()  # the attribute's value `a=b` names it
    for line in ("git status", "git diff", "git blame a.txt"):
        auto, _, why = _decided(d, line)
        assert not auto and "'a=b'" in why and "cannot be switched off" in why
    auto, _, why = _decided(d, "git log -p")  # hashes no work-tree file
    assert auto, why


def test_more_drivers_than_a_plan_carries_ask_where_git_hashes_files(tmp_path: Path) -> None:
    user = "".join(f'[filter "d{i}"]\n\tclean = {{mark}}\n' for i in range(MAX_DRIVERS + 1))
    d = driven(tmp_path, {"a.txt": "a\n"}, user=user, attributes="*.txt filter=d0\n")
    auto, _, why = _decided(d, "git diff --stat")
    assert not auto and f"more than {MAX_DRIVERS}" in why
