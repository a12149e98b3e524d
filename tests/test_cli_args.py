"""`bastion check` and `bastion hook` read a plainly written command line without argparse, exactly
as argparse would (bastion/_argv.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Private: the CLI's argument tables and parsers are the thing tested.
from bastion._argv import Reading, read_plainly
from bastion.audit._cli import _HOOK_ARGS, _hook_parser
from bastion.cli import _DEFAULTS, _FLAGS, _VALUED, _check_parser

_CHECK_ARGS = Reading(_VALUED, _FLAGS, _DEFAULTS, "line", {}, after_dashes=True)

_WORDS = [
    "--cwd", "--config", "--json", "--jsonl", "--tool", "--path", "--pattern", "--explain", "--",
    "x", "", "ls -la", "-x", "-1", "-", "--cw", "--json=1", "--tool=read", "-h", "/tmp", "--help",
    "--no-project-config", "--no-project",
]  # fmt: skip
_HOOK_WORDS = [
    "--config", "--others", "--strict", "claude-code", "codex", "gemini", "pass", "ask", "--",
    "x", "", "-x", "-", "--conf", "--strict=1", "--others=ask", "-h", "--help", "claude", "Codex",
]  # fmt: skip
_VALUES = ["x", "", "ls -la", "/tmp", "read", "-x", "-1", "--", "a=b", "pass", "ask", "codex"]


@st.composite
def command_lines(draw: st.DrawFn, options: list[str], valued: tuple[str, ...], tail: list[str]) -> list[str]:
    """Options with values and the positional, mostly well formed, with now and then any word."""
    argv: list[str] = []
    for option in draw(st.lists(st.sampled_from(options), unique=True, max_size=5)):
        argv.append(option)
        if option in valued:
            argv.append(draw(st.sampled_from(_VALUES)))
    if draw(st.booleans()):
        argv.insert(draw(st.integers(0, len(argv))), draw(st.sampled_from(tail)))
    for _ in range(draw(st.integers(0, 1))):
        argv.insert(draw(st.integers(0, len(argv))), draw(st.sampled_from(options + tail + _VALUES)))
    return argv


_CHECK_LINES = command_lines(_WORDS[:8], ("--cwd", "--config", "--tool", "--path", "--pattern"), ["--"])
_HOOK_LINES = command_lines(_HOOK_WORDS[:3], ("--config", "--others"), _HOOK_WORDS[3:6])


@settings(max_examples=1500, deadline=None)
@given(
    (_CHECK_LINES.map(lambda a: a + ["ls"] if a[-1:] == ["--"] else a))
    | st.lists(st.sampled_from(_WORDS), max_size=8)
)
def test_what_the_plain_reading_of_check_takes_argparse_reads_the_same(argv: list[str]) -> None:
    plain = read_plainly(argv, _CHECK_ARGS)
    if plain is not None:  # None claims nothing: argparse reads it
        assert vars(_check_parser().parse_args(argv)) == vars(plain)


@settings(max_examples=1500, deadline=None)
@given(_HOOK_LINES | st.lists(st.sampled_from(_HOOK_WORDS), max_size=6))
def test_what_the_plain_reading_of_hook_takes_argparse_reads_the_same(argv: list[str]) -> None:
    plain = read_plainly(argv, _HOOK_ARGS)
    if plain is not None:
        assert vars(_hook_parser().parse_args(argv)) == vars(plain)


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
def test_the_usual_check_command_lines_are_read_plainly(argv: list[str]) -> None:
    plain = read_plainly(argv, _CHECK_ARGS)
    assert plain is not None and vars(_check_parser().parse_args(argv)) == vars(plain)


@pytest.mark.parametrize(
    "argv",
    [
        ["claude-code"],
        ["--config", "/x/c.toml", "claude-code", "--others", "ask"],
        ["codex", "--strict"],
        ["gemini", "--config", "c.toml", "--strict"],
    ],
)
def test_the_usual_hook_command_lines_are_read_plainly(argv: list[str]) -> None:
    plain = read_plainly(argv, _HOOK_ARGS)
    assert plain is not None and vars(_hook_parser().parse_args(argv)) == vars(plain)


def test_every_command_the_command_line_dispatches_is_named_in_the_agents_help() -> None:
    # The commands `bastion.cli` sends elsewhere, read from its dispatch (`args[:1] == ["NAME"]`),
    # each named in `bastion --help`'s list of other commands: none is found only by reading code.
    import ast
    import inspect
    import io
    from contextlib import redirect_stdout, suppress

    from bastion import cli
    from bastion.agent import main as agent_main

    tree = ast.parse(inspect.getsource(cli._dispatch))
    named = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier()
    }
    out = io.StringIO()
    with redirect_stdout(out), suppress(SystemExit):
        agent_main(["--help"])
    other = out.getvalue().split("Other commands:", 1)[1]
    assert {"check", "doctor", "runtime", "mcp", "execute", "audit", "hook"} <= named
    assert [name for name in sorted(named) if name not in other] == []
