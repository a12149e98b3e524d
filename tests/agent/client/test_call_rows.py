"""Each call is drawn as what it does, on one line with a short body, whole on Ctrl-O: a row that
says too little hides what ran, one that says too much buries the conversation; a failure shows its
error, a running command its last line, a call waiting on a question what it would do."""

from __future__ import annotations

import json

import pytest

from bastion.agent.client._rows import Row, body, detail, head  # private: the rows are the thing tested
from bastion.agent.runtime import INTERRUPTED, Answer, ToolCall, ToolResult
from bastion.policy import Decision, Verdict


def _row(name: str, args: dict[str, object], content: str | None = None, error: bool = False) -> Row:
    row = Row(ToolCall("c1", name, json.dumps(args)))
    if content is not None:
        row.ended(ToolResult("c1", name, content, error))
    return row


EDIT: dict[str, object] = {
    "path": "src/app.py",
    "old_string": "\n".join(f"old {i}" for i in range(10)),
    "new_string": "new",
}


@pytest.mark.parametrize(
    ("name", "args", "content", "line", "collapsed"),
    [
        ("edit", EDIT, "edited src/app.py", "edit src/app.py +1 −10",
         ["@@ -1,10 +1 @@", "-old 0", "-old 1", "-old 2", "-old 3", "-old 4", "-old 5", "-old 6",
          "… 4 more lines (Ctrl-O)"]),
        ("write", {"path": "a.txt", "content": "1\n2\n3\n"}, "wrote a.txt", "write a.txt (3 lines)", []),
        ("bash", {"command": "make test\nmake lint", "timeout_seconds": 60}, "ok\nfine\n[exit 0]",
         "$ make test  (timeout 60 s)", ["2 lines printed"]),
        ("bash", {"command": "make"}, "a\nb\nc\nd\nerror: boom\n[exit 2]", "$ make",
         ["✗ [exit 2]", "c", "d", "error: boom"]),
        ("read", {"path": "a.go", "offset": 120, "limit": 80}, "   120\tx\n   121\ty", "read a.go:120-199",
         ["2 lines read"]),
        ("grep", {"pattern": "TODO", "path": "src"}, "src/a.py:1:TODO\nsrc/a.py:9:TODO\nsrc/b.py:2:TODO",
         "grep TODO in src", ["3 matches in 2 files"]),
        ("glob", {"pattern": "**/*.md"}, "README.md\ndocs/a.md", "glob **/*.md in .", ["2 files"]),
        ("ls", {"path": "src"}, "a.py (3 bytes)\nb/", "ls src", ["2 entries"]),
        ("task", {"kind": "explore", "prompt": "find the parser\nand its tests"},
         "It is in p.py.\nTests: t.py.\nMore.",
         "task (explore): find the parser", ["It is in p.py.", "Tests: t.py."]),
        ("mcp__docs__search", {"query": "x"}, "found one\nfound two", 'mcp__docs__search {"query": "x"}',
         ["found one"]),
    ],
    ids=["edit", "write", "bash", "bash-failed", "read", "grep", "glob", "ls", "task", "mcp"],
)  # fmt: skip
def test_each_tool_is_drawn_by_what_it_does(
    name: str, args: dict[str, object], content: str, line: str, collapsed: list[str]
) -> None:
    row = _row(name, args, content)
    assert head(row) == line
    assert body(row) == collapsed


def test_ctrl_o_shows_the_whole_of_a_call() -> None:
    assert body(_row("bash", {"command": "make"}, "a\nb\nc\nd\n[exit 2]"), full=True) == [
        "a",
        "b",
        "c",
        "d",
        "[exit 2]",
    ]
    assert len(body(_row("edit", EDIT, "edited"), full=True)) == 13  # the whole diff (12), then the result
    write = _row("write", {"path": "a.txt", "content": "1\n2\n"}, "wrote a.txt")
    assert body(write, full=True) == ["1", "2", "wrote a.txt"]


def test_a_call_that_failed_shows_its_error_in_place_of_its_body() -> None:
    row = _row("read", {"path": "gone.txt"}, "error: gone.txt: no such file", error=True)
    assert row.state == "failed" and body(row) == ["✗ error: gone.txt: no such file"]


def test_an_interrupted_call_says_so() -> None:
    row = _row("read", {"path": "a"}, INTERRUPTED, error=True)
    assert row.state == "interrupted" and body(row)[0].startswith("✗ interrupted")


def test_a_running_command_shows_its_last_line_and_a_waiting_one_what_it_would_do() -> None:
    row = _row("bash", {"command": "make\nmake install"})
    row.state, row.tail = "running", "compiling c.o"
    assert body(row) == ["│ compiling c.o"]
    row.state = "asked"
    assert body(row) == ["make install"]  # a command of several lines: the rest of it
    edit = _row("edit", dict[str, object](path="a", old_string="x", new_string="y"))
    edit.state = "asked"
    assert body(edit) == ["@@ -1 +1 @@", "-x", "+y"]


def test_a_denied_or_refused_call_says_why_instead_of_a_body() -> None:
    denied = _row("bash", {"command": "rm -rf /"})
    denied.verdict, denied.state = Verdict(Decision.DENY, "rm is denied"), "denied"
    assert body(denied) == ["✗ denied: rm is denied"]
    refused = _row("bash", {"command": "touch a"})
    refused.answer, refused.state = Answer(False, "not now"), "refused"
    assert body(refused) == ["✗ refused: not now"]


def test_a_row_line_never_carries_a_terminal_control() -> None:
    row = _row("bash", {"command": "echo \x1b[31mred"})
    assert "\x1b" not in head(row)


def test_the_detail_of_a_call_never_decided_says_so() -> None:
    row = _row("nope", {})
    row.state, row.error = "unusable", "there is no tool named 'nope'"
    assert detail(row)[-1] == "decision: none (there is no tool named 'nope')"
