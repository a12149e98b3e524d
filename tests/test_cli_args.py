"""`bastion check` reads a plainly written command line without argparse, exactly as argparse would."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.cli import _check_parser, _plain_args

_WORDS = [
    "--cwd", "--config", "--json", "--jsonl", "--tool", "--path", "--pattern", "--explain", "--",
    "x", "", "ls -la", "-x", "-1", "-", "--cw", "--json=1", "--tool=read", "-h", "/tmp", "--help",
]  # fmt: skip


_VALUES = ["x", "", "ls -la", "/tmp", "read", "-x", "-1", "--", "a=b"]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """Options with values and a line after "--", mostly well formed, with now and then any word."""
    argv: list[str] = []
    for option in draw(st.lists(st.sampled_from(_WORDS[:8]), unique=True, max_size=5)):
        argv.append(option)
        if option in ("--cwd", "--config", "--tool", "--path", "--pattern"):
            argv.append(draw(st.sampled_from(_VALUES)))
    if draw(st.booleans()):
        argv += ["--", *draw(st.lists(st.sampled_from(_VALUES), min_size=1, max_size=2))]
    for _ in range(draw(st.integers(0, 1))):
        argv.insert(draw(st.integers(0, len(argv))), draw(st.sampled_from(_WORDS)))
    return argv


@settings(max_examples=1500, deadline=None)
@given(command_lines() | st.lists(st.sampled_from(_WORDS), max_size=8))
def test_what_the_plain_reading_takes_argparse_reads_the_same(argv: list[str]) -> None:
    plain = _plain_args(argv)
    if plain is not None:  # None claims nothing: argparse reads it
        assert vars(_check_parser().parse_args(argv)) == vars(plain)


@pytest.mark.parametrize(
    "argv",
    [
        ["--config", "/dev/null", "--cwd", "/tmp", "--", "ls -la"],
        ["--json", "--", "git log -p | head"],
        ["--tool", "read", "--path", "README.md"],
        ["--jsonl"],
        ["--explain", "--config", "c.toml", "--", "-n"],
    ],
)
def test_the_usual_command_lines_are_read_plainly(argv: list[str]) -> None:
    plain = _plain_args(argv)
    assert plain is not None and vars(_check_parser().parse_args(argv)) == vars(plain)
