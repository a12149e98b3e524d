"""sed scripts are read as GNU sed reads them: every script bastion runs unasked is one GNU sed 4.9
compiles to the same commands and addresses (its `--debug` program), in C.UTF-8 and in a GB18030
locale, and no GNU or busybox sed run of it writes, reads the canary or runs a program."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Private: the script judge is what these tests hold to sed's own reading.
from bastion.analyzer.commands._sed import script_prints_only
from fuzz.sed_oracle import BUSYBOX, GNU_SED, bastion_program, busybox_run, compare, gb18030, gnu_run, scratch
from fuzz.sed_scripts import case

pytestmark = pytest.mark.skipif(GNU_SED is None, reason="GNU sed 4 is not installed")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scratch(tmp_path_factory.mktemp("sed") / "run")


@pytest.fixture(scope="module")
def gb(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str] | None:
    return gb18030(tmp_path_factory.mktemp("locale"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.randoms(use_true_random=False))
def test_every_script_bastion_accepts_is_the_program_gnu_sed_compiles(
    runs: Path, gb: dict[str, str] | None, rng: random.Random
) -> None:
    generated = case(rng)
    verdict = compare(generated.pieces, generated.flags, runs, gb)
    assert not verdict.problems, (generated, verdict.problems)


@pytest.mark.parametrize(
    "script",
    [
        "/[/]/p",
        "/[^/]x/p",
        "/[]/]/p",
        "/[^]/]/p",
        "/[/p;/]/p",
        "/[/]w out/p",
        "/^[[:space:]]*$/d",
        "/[[:alpha:]x]/p",
        "/[[:alpha:]/x]/p",
        "/a\\/b/I,~4=",
        "0~3{n;d}",
        "1,5!{p;l 3;q5}",
        "/é/p",
    ],
)
def test_a_bracket_holds_the_delimiter_as_gnu_sed_reads_it(runs: Path, script: str) -> None:
    ours = bastion_program(script)
    assert ours is not None
    assert gnu_run([script], ["-n"], runs).program == ours


def test_a_bracket_opened_in_one_regex_is_one_regex_not_two_with_commands_between() -> None:
    # Without brackets bastion read `/[/` and `/]/` with a `p` between; sed reads `[/p;/]` whole.
    assert bastion_program("/[/p;/]/p") == ("  /[\\/p;\\/]/ p",)


@pytest.mark.parametrize(
    "script",
    [
        "/[/w out.txt",  # a bracket never closed
        "/[[a]/p",  # a `[` in a bracket that is not a class
        "/中\\/w out.txt/p",  # in GB18030 the backslash ends 中, and sed writes `out.txt/p`
        "/[中]/w out.txt;/]/p",
        "/中[/p",
    ],
)
def test_a_regex_that_another_sed_or_locale_ends_elsewhere_asks(script: str) -> None:
    assert not script_prints_only(script)


def test_gnu_sed_in_gb18030_reads_a_backslash_after_a_wide_character_as_part_of_it(
    runs: Path, gb: dict[str, str] | None
) -> None:
    if gb is None:
        pytest.skip("localedef cannot build zh_CN.GB18030 here (the locales package is not installed)")
    script = "/中\\/w out.txt"  # in UTF-8 one unclosed regex; in GB18030 `/中\/` and a write
    assert gnu_run([script], ["-n"], runs) == (None, ())
    assert gnu_run([script], ["-n"], runs, gb).effects == ("out.txt made or changed",)


@pytest.mark.skipif(BUSYBOX is None, reason="busybox is not installed")
def test_busybox_sed_refuses_a_bracket_it_ends_at_a_class_so_it_runs_nothing_after(runs: Path) -> None:
    script = "/[[:alpha:]/p;w out.txt;/]/p"  # GNU: one regex; busybox: `[[:alpha:]`, unclosed
    assert bastion_program(script) == gnu_run([script], ["-n"], runs).program
    assert busybox_run([script], ["-n"], runs) == (None, ())
