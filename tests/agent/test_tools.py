"""The tools' behaviour beyond confinement: what each prints, its bounds, and its clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS, ToolContext, ToolOutput

# private: grep's deadline is shortened in the module it is read from
from bastion.agent.tools import _grep as grep_module
from bastion.policy import STAMP_ARG
from tests.contexts import tool_context


def call(ctx: ToolContext, tool: str, **args: object) -> ToolOutput:
    return AGENT_TOOLS[tool].run(args, ctx)


def test_every_tool_has_a_schema_with_the_stamp_field_and_runs_through_the_registry() -> None:
    assert sorted(AGENT_TOOLS) == ["bash", "edit", "glob", "grep", "ls", "read", "write"]
    for name, tool in AGENT_TOOLS.items():
        assert tool.schema["name"] == name and tool.schema["description"]
        assert tool.parameters["type"] == "object" and STAMP_ARG in tool.parameters["properties"]
        assert set(tool.parameters["required"]) <= set(tool.parameters["properties"])


@pytest.mark.parametrize(
    ("tool", "args", "error"),
    [
        ("read", {}, "the argument 'path' is required"),
        ("read", {"path": 3}, "the argument 'path' must be a string"),
        ("read", {"path": "notes.txt", "offset": 0}, "'offset' must be between 1"),
        ("read", {"path": "notes.txt", "limit": "9"}, "'limit' must be a whole number"),
        ("read", {"path": "notes.txt", "limit": True}, "'limit' must be a whole number"),
        ("read", {"path": "notes.txt", "limit": float("nan")}, "'limit' must be a whole number"),
        ("read", {"path": "nope.txt"}, "nope.txt does not exist"),
        ("read", {"path": "src"}, "src is not a regular file"),
        ("read", {"path": ""}, "the path is empty"),
        ("read", {"path": "notes.txt", "Path": "x"}, "unknown argument 'Path'"),
        ("write", {"path": "src", "content": "x"}, "src is not a regular file"),
        ("write", {"path": "x.txt", "content": "\ud800"}, "lone surrogate"),
        ("edit", {"path": "notes.txt", "old_string": "four", "new_string": "4"}, "not found in notes.txt (0"),
        ("edit", {"path": "notes.txt", "old_string": "o", "new_string": "0"}, "occurs 2 times in notes.txt"),
        ("edit", {"path": "notes.txt", "old_string": "", "new_string": "0"}, "old_string is empty"),
        ("edit", {"path": "notes.txt", "old_string": "one", "new_string": "one"}, "are the same"),
        ("glob", {"pattern": "../*"}, "must be relative, without .."),
        ("glob", {"pattern": "{a,b"}, "unclosed {"),
        ("glob", {"pattern": "*", "path": "notes.txt"}, "notes.txt is not a directory"),
        ("grep", {"pattern": "(unclosed"}, "is not a valid regular expression"),
        ("grep", {"pattern": "x", "max_results": 0}, "'max_results' must be between 1"),
        ("ls", {"path": "missing"}, "missing does not exist"),
        ("bash", {"command": "   "}, "the command is empty"),
        ("bash", {"command": "true", "timeout_seconds": 0}, "'timeout_seconds' must be between 1"),
    ],
)
def test_bad_input_is_a_clear_error_naming_the_part(
    ctx: ToolContext, tool: str, args: dict[str, object], error: str
) -> None:
    out = AGENT_TOOLS[tool].run(args, ctx)
    assert out.is_error and error in out.text


@pytest.mark.parametrize("args", [None, [], "path", {1: "x"}])
def test_arguments_that_are_not_an_object_are_an_error(ctx: ToolContext, args: object) -> None:
    out = AGENT_TOOLS["read"].run(args, ctx)
    assert out.is_error and "must be a JSON object" in out.text


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ({}, "     1\tone\n     2\ttwo\n     3\tthree"),
        ({"offset": 2}, "     2\ttwo\n     3\tthree"),
        ({"offset": 1, "limit": 1}, "     1\tone\n... [2 more lines; read on with offset=2]"),
        ({"offset": 9}, "notes.txt has 3 lines; offset 9 is past the end"),
    ],
)
def test_read_numbers_lines_from_an_offset_up_to_a_limit(
    ctx: ToolContext, args: dict[str, object], text: str
) -> None:
    assert call(ctx, "read", path="notes.txt", **args).text == text


def test_read_scans_at_most_max_read_bytes(ctx: ToolContext, root: Path) -> None:
    (root / "big.txt").write_text("".join(f"{i:09d}\n" for i in range(2000)))
    out = call(ctx, "read", path="big.txt").text
    assert out.count("\n") == 4096 // 10
    assert out.endswith("[read stops after 4096 bytes; the rest of big.txt is not shown]")


def test_write_creates_parents_and_edit_replaces_the_one_occurrence(ctx: ToolContext, root: Path) -> None:
    assert call(ctx, "write", path="a/b/c.txt", content="alpha beta\n").text == "wrote 11 bytes to a/b/c.txt"
    assert call(ctx, "edit", path="a/b/c.txt", old_string="beta", new_string="gamma").text.startswith(
        "edited"
    )
    assert (root / "a/b/c.txt").read_text() == "alpha gamma\n"


@pytest.mark.parametrize(
    ("pattern", "path", "found"),
    [
        ("*.txt", ".", ["alias.txt", "notes.txt"]),
        ("**/*.py", ".", ["src/app.py", "src/util.py"]),
        ("**/*.{md,py}", ".", ["docs/guide.md", "src/app.py", "src/util.py"]),
        ("src/[a]*.py", ".", ["src/app.py"]),
        ("*.py", "src", ["src/app.py", "src/util.py"]),
        ("**/*.js", ".", []),
        ("**/*.js", "node_modules", ["node_modules/dep/index.js"]),
        ("node_modules/**/*.js", ".", ["node_modules/dep/index.js"]),
        ("**/config", ".", []),
        ("out*", ".", []),
    ],
)
def test_glob_matches_sorted_skipping_caches_and_links_that_leave(
    ctx: ToolContext, pattern: str, path: str, found: list[str]
) -> None:
    out = call(ctx, "glob", pattern=pattern, path=path)
    assert not out.is_error
    assert out.text.splitlines() == found if found else out.text.startswith("no names match")


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        ({"pattern": "hello"}, ["docs/guide.md:2:hello world", "src/app.py:2:print('hello')"]),
        ({"pattern": "HELLO", "ignore_case": True, "include": "*.py"}, ["src/app.py:2:print('hello')"]),
        (
            {"pattern": "hello", "path": "node_modules"},
            ["node_modules/dep/index.js:1:hello from a dependency"],
        ),
        ({"pattern": "^t", "path": "notes.txt"}, ["notes.txt:2:two", "notes.txt:3:three"]),
        ({"pattern": "^t", "path": "notes.txt", "max_results": 1}, ["notes.txt:2:two", "... [more than 1"]),
        ({"pattern": "SECRET"}, []),
        ({"pattern": "KEY"}, []),
        ({"pattern": "KEY", "path": ".env"}, [".env:1:KEY=1"]),
    ],
)
def test_grep_prints_path_line_text_within_its_bounds(
    ctx: ToolContext, args: dict[str, object], lines: list[str]
) -> None:
    out = call(ctx, "grep", **args)
    assert not out.is_error, out.text
    got = [line for line in out.text.splitlines() if not line.startswith("[")]  # the note of skipped files
    if not lines:
        assert got[0].startswith("no matches")
        return
    assert len(got) == len(lines) and all(g.startswith(w) for g, w in zip(got, lines, strict=True))


def test_grep_skips_big_and_binary_files(ctx: ToolContext, root: Path) -> None:
    (root / "big.txt").write_text("needle\n" * 1000)
    (root / "bin.dat").write_bytes(b"needle\x00\n")
    (root / "small.txt").write_text("needle\n")
    found = call(ctx, "grep", pattern="needle").text.splitlines()
    assert found[0] == "small.txt:1:needle"
    assert not any(line.startswith(("big.txt", "bin.dat")) for line in found)


def test_a_pattern_that_backtracks_without_end_is_stopped(
    ctx: ToolContext, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep_module, "DEADLINE_SECONDS", 1.0)
    (root / "evil.txt").write_text("a" * 40 + "!\n")
    out = call(ctx, "grep", pattern="(a+)+$", path="evil.txt")
    assert out.is_error and "ran for more than 1s" in out.text


def test_ls_lists_one_directory_sorted(ctx: ToolContext) -> None:
    assert call(ctx, "ls", path="src").text == "app.py (25 bytes)\nutil.py (22 bytes)"
    listing = call(ctx, "ls").text.splitlines()
    assert listing[:3] == [".env (6 bytes)", ".git/", "alias.txt -> notes.txt"]
    assert "fifo (not a regular file)" in listing and "src/" in listing


@pytest.mark.parametrize(
    ("command", "text"),
    [
        ("echo hi", "hi\n[exit 0]"),
        ("echo oops >&2; exit 3", "oops\n[exit 3]"),
        ("printf 'no newline'", "no newline\n[exit 0]"),
        # Escape sequences are shown, never obeyed (bastion/_safe.py); a line's \r\n stays.
        (
            "printf '\\033[31mred\\033[0m \\033]0;title\\007ok\\r\\n'",
            "\\x1b[31mred\\x1b[0m \\x1b]0;title\\x07ok\r\n[exit 0]",
        ),
        ("true", "[exit 0]"),
        ("kill -9 $$", "[killed by signal 9]"),
        ("sleep 5", "[killed after 1s]"),
        ("pwd", None),
    ],
)
def test_bash_prints_output_and_how_the_command_ended(
    ctx: ToolContext, root: Path, command: str, text: str | None
) -> None:
    # Only the command that is to be killed has a timeout short enough to meet on a busy machine.
    out = call(ctx, "bash", command=command, timeout_seconds=1 if command.startswith("sleep") else 3600)
    assert not out.is_error
    assert out.text == (text if text is not None else f"{root}\n[exit 0]")


def test_bash_output_is_capped_with_the_count_of_what_was_left_out(ctx: ToolContext) -> None:
    out = call(ctx, "bash", command="head -c 60000 /dev/zero | tr '\\0' x").text
    assert out.endswith("x\n... [truncated, 8800 bytes omitted]\n[exit 0]")
    assert out.index("\n") == 51_200


def test_bash_streams_safe_output_as_it_arrives(root: Path, ctx: ToolContext) -> None:
    pieces: list[str] = []
    streaming = tool_context(ctx.ws, ctx.gate.stamper, ctx.max_read_bytes, on_output=pieces.append)
    out = call(streaming, "bash", command="echo one; sleep 0.2; printf '\\033[1mtwo\\n'")
    assert pieces == ["one\n", "\\x1b[1mtwo\n"]
    assert out.text == "one\n\\x1b[1mtwo\n[exit 0]"
