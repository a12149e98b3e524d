"""Hostile names and bytes never reach a person's terminal as they are (issue 30, class 6; issue 25,
item 16): one place (bastion/_safe.py) shows escape sequences, controls, NUL, bidirectional controls
and lone surrogates as visible text, quotes a name that is not plain, and redacts the keys bastion
holds; the agent's screen, the file tools, `bastion audit`, `check` (and `--explain`), the hooks and
doctor all print through it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

# Private: the redaction and display helpers are the thing tested.
from bastion._safe import (
    REDACTED,
    SafeStream,
    hold,
    holding,
    redact,
    redact_data,
    safe_line,
    safe_name,
    safe_text,
)
from bastion.agent.tools import AGENT_TOOLS, ToolContext
from bastion.analyzer import Stamper
from bastion.audit._hook import reason_text
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

ROOT = Path(__file__).resolve().parents[1]
# What a terminal obeys or hides: a title change, a screen clear, a bell, NUL, an 8-bit CSI, a bidi
# override, a line separator, a lone surrogate (a byte that was not UTF-8).
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x00\x9b31m\u202egpj.exe\u2028\udcff\ud800"
OBEYED = ("\x1b", "\x07", "\x00", "\x9b", "\u202e", "\u2028", "\udcff", "\ud800")


def _obeys(text: str) -> list[str]:
    return [c for c in OBEYED if c in text]


def test_controls_escapes_bidi_and_surrogates_are_made_visible() -> None:
    shown = safe_text(HOSTILE + "\tok\r\nnext\rover")
    assert _obeys(shown) == []
    assert shown == (
        "\\x1b]0;pwned\\x07\\x1b[2J\\x00\\x9b31m\\u202egpj.exe\\u2028\\xff\\ud800\tok\r\nnext\\rover"
    )
    assert safe_line("two\nlines") == "two\\nlines" and safe_text("two\nlines") == "two\nlines"


@given(st.text())
def test_whatever_the_text_nothing_a_terminal_obeys_is_left_and_it_can_be_written(text: str) -> None:
    for shown in (safe_text(text), safe_line(text), safe_name(text)):
        assert _obeys(shown) == [] and not any("\x00" <= c < " " and c not in "\t\n\r" for c in shown)
        shown.encode("utf-8")  # no lone surrogate: printing it never raises
    assert "\n" not in safe_line(text) and "\n" not in safe_name(text)
    assert safe_text(safe_text(text)) == safe_text(text)  # made safe twice is made safe once


@given(st.text(min_size=1))
def test_a_name_that_is_not_plain_is_quoted_as_json_and_reads_back_as_itself(name: str) -> None:
    shown = safe_name(name)
    if shown == name:
        assert name.isprintable() and not name.startswith('"')
    else:
        assert json.loads(shown) == name


def test_a_held_key_whole_or_any_run_of_8_is_redacted_in_text_data_and_streams() -> None:
    key = "sk-proj-ABCDEFGHIJKLMNOP1234"
    with holding():
        hold(key)
        hold("short")  # under 8 characters: not a key, ordinary words stay
        assert redact(f"x {key} y") == f"x sk-proj-{REDACTED} y"
        assert redact("sk-proj-ABCD and EFGHIJKL end") == f"sk-proj-ABCD and {REDACTED} end"
        assert redact("a short word") == "a short word"
        assert redact_data({"m": [f"k={key}"], key: 1}) == {
            "m": [f"k=sk-proj-{REDACTED}"],
            f"sk-proj-{REDACTED}": 1,
        }
        stream = SafeStream()
        pieces = [stream.feed(c) for c in f"say {key} ok"]  # a character at a time, as tokens come
        assert "".join(pieces) + stream.end() == f"say sk-proj-{REDACTED} ok"
        assert safe_line(f"\x1b{key}") == f"\\x1bsk-proj-{REDACTED}"
    assert redact(key) == key  # let go when the run ended


@pytest.mark.parametrize(
    ("key", "prefix"),
    [
        ("sk-proj-ABCDEFGHIJKLMNOP1234", "sk-proj-"),
        ("sk-ant-api03-ABCDEFGHIJKLMNOP", "sk-ant-api03-"),
        ("sk-or-v1-0123456789abcdef0123", "sk-or-v1-"),
        ("sk-svcacct-ABCDEFGHIJKLMNOP12", "sk-svcacct-"),
        ("AIzaSyABCDEFGHIJKLMNOP", "AIza"),
    ],
)
def test_a_providers_public_key_prefix_is_left_in_ordinary_text_and_only_the_secret_hidden(
    key: str, prefix: str
) -> None:
    other = prefix + "ZYXWVUTSRQPONMLK"  # another key of that provider: shares only the prefix
    with holding():
        hold(key)
        assert redact(f"keys look like {prefix}... and {other}") == f"keys look like {prefix}... and {other}"
        assert redact(f"mine: {key}") == f"mine: {prefix}{REDACTED}"


def test_a_key_whose_prefix_leaves_under_8_secret_characters_is_redacted_whole() -> None:
    with holding():
        hold("sk-proj-abc1234")  # 7 after the prefix: the whole value is taken for secret
        assert redact("it is sk-proj-abc1234") == f"it is {REDACTED}"


@pytest.fixture
def hostile(tmp_path: Path) -> ToolContext:
    for name in ("a\nb.txt", "\x1b]0;pwned\x07.txt", "invoice\u202etxt.exe", "plain.txt"):
        (tmp_path / name).write_text("x\n")
    return tool_context(LocalWorkspace(str(tmp_path)), Stamper(), max_read_bytes=4096)


def test_ls_and_glob_never_show_a_name_with_a_newline_as_two_entries(hostile: ToolContext) -> None:
    listing = AGENT_TOOLS["ls"].run({"path": "."}, hostile).text.splitlines()
    assert len(listing) == 4 and "plain.txt (2 bytes)" in listing
    assert '"a\\nb.txt" (2 bytes)' in listing and '"invoice\\u202etxt.exe" (2 bytes)' in listing
    assert '"\\u001b]0;pwned\\u0007.txt" (2 bytes)' in listing
    found = AGENT_TOOLS["glob"].run({"pattern": "*"}, hostile).text.splitlines()
    assert len(found) == 4 and json.loads(found[0]) == "\x1b]0;pwned\x07.txt"
    assert all(_obeys(line) == [] for line in listing + found)
    # A quoted name is what the model passes back: it reads the file.
    assert AGENT_TOOLS["read"].run({"path": json.loads('"a\\nb.txt"')}, hostile).text.strip().endswith("x")


def test_a_hooks_reason_shows_a_names_sequences_never_obeyed() -> None:
    shown = reason_text(f"cat {HOSTILE} asks")
    assert _obeys(shown) == [] and shown.startswith("bastion: cat \\x1b]0;pwned")


def _bastion(*argv: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd / "xdg"), "LANG": "C.UTF-8",
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "bastion", *argv], cwd=cwd, env=env, input=stdin, capture_output=True,
        text=True, errors="surrogateescape", timeout=120,
    )  # fmt: skip


def test_audit_shows_a_historys_hostile_bytes_and_survives_a_lone_surrogate(tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    lines = [
        {"tool": "bash", "args": {"command": f"cat {HOSTILE}"}, "cwd": str(tmp_path)},
        {"tool": "bash", "args": {"command": "ls a\\\nb"}, "cwd": str(tmp_path)},
        {"tool": "read", "args": {"path": "x\ny"}, "cwd": str(tmp_path)},
    ]
    calls.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = _bastion("audit", "--format", "jsonl", str(calls), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _obeys(done.stdout + done.stderr) == []
    each = [line for line in done.stdout.splitlines() if line.startswith(str(calls))]
    assert len(each) == 3  # one line a call, whatever newlines it holds
    assert "cat \\x1b]0;pwned\\x07" in done.stdout and "\\ud800" in done.stdout


def test_check_and_explain_show_a_lines_hostile_bytes_never_obeyed(tmp_path: Path) -> None:
    (tmp_path / "a\nb").write_text("x\n")
    (tmp_path / "r\u202etxt").write_text("x\n")
    # (An argument cannot hold NUL, nor a surrogate that stands for no byte: \ud800.)
    word = HOSTILE.replace("\x00", "").replace("\ud800", "")
    for argv in (["check", "--", "cat 'a\nb' 'r\u202etxt'"], ["check", "--explain", "--", f"cat '{word}'"]):
        done = _bastion(*argv, cwd=tmp_path)
        assert done.returncode in (0, 3), done.stderr
        assert _obeys(done.stdout + done.stderr) == [], done.stdout
    plain = _bastion("check", "--", "cat r\u202etxt", cwd=tmp_path).stdout
    assert 'bash "cat r\\u202etxt"' in plain


def test_doctor_shows_a_hostile_directory_name_never_obeyed(tmp_path: Path) -> None:
    work = tmp_path / "w\x1b]0;pwned\x07\u202e"
    work.mkdir()
    out = io.StringIO()
    from bastion.doctor import doctor_main

    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path)}
    doctor_main(["--offline", "--cwd", str(work), "--section", "sandbox"], env, out, io.StringIO())
    assert _obeys(out.getvalue()) == [] and "w\\x1b]0;pwned\\x07\\u202e" in out.getvalue()
