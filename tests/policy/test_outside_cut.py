"""Lines outside the subset: the bashlex cut into parts, redirect write subjects, the line sentinel."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.analyzer import Analysis
from bastion.grammar import Outside
from bastion.policy import Decision, Kind, Layer, Policy, Subject, bash_subjects, redirect_targets
from bastion.workspace import LocalWorkspace

U = Kind.UNCHECKED


@pytest.fixture
def ws(tmp_path: Path) -> LocalWorkspace:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / ".env").write_text("KEY=1\n")
    for link, target in {
        "notes": ".env",
        "docs": "sub",
        "sub/up": "..",
        "out": "/outside",
        "loop1": "loop2",
        "loop2": "loop1",
    }.items():
        os.symlink(target, root / link)
    return LocalWorkspace(str(root))


def outside(line: str) -> Analysis:
    return Analysis(line, None, Outside(line, 0, "outside the subset"))


def subjects(line: str, ws: LocalWorkspace) -> list[Subject]:
    return bash_subjects(outside(line), ws)


def writes(line: str, ws: LocalWorkspace) -> list[tuple[object, ...]]:
    """(tool, value) of each subject but bash's, and the kind when it is not plain."""
    found = [s for s in subjects(line, ws) if s.tool != "bash"]
    return [(s.tool, s.value) if s.kind is Kind.PLAIN else (s.tool, s.value, s.kind) for s in found]


def parts(line: str, ws: LocalWorkspace) -> list[str]:
    return [s.value for s in subjects(line, ws) if s.tool == "bash" and not s.constraint and not s.sentinel]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("echo x > notes", [("write", "notes"), ("write", ".env")]),
        ("echo x >> notes", [("write", "notes"), ("write", ".env")]),
        ("echo x >| notes", [("write", "notes"), ("write", ".env")]),
        ("echo x &> notes", [("write", "notes"), ("write", ".env")]),
        ("echo x &>> notes", [("write", "notes"), ("write", ".env")]),
        ("echo x 2> notes", [("write", "notes"), ("write", ".env")]),
        ("echo x <> notes", [("write", "notes"), ("write", ".env")]),
        ("echo x > ./notes", [("write", "notes"), ("write", ".env")]),
        ("echo x > sub/../notes", [("write", "notes"), ("write", ".env")]),
        ("echo x > docs/new.txt", [("write", "docs/new.txt"), ("write", "sub/new.txt")]),
        (
            "cd sub && echo x > ../notes",
            [("write", "../notes"), ("write", "../notes", U), ("write", "notes"), ("write", ".env")],
        ),
        ("cd sub && echo x > ../.env", [("write", "../.env"), ("write", "../.env", U), ("write", ".env")]),
        (
            "(cd sub; echo x > ../notes)",
            [("write", "../notes"), ("write", "../notes", U), ("write", "notes"), ("write", ".env")],
        ),
        (
            "cd docs && echo x > up/notes",
            [("write", "up/notes"), ("write", "docs/up/notes"), ("write", ".env")],
        ),
        ("echo x > sub/up/notes", [("write", "sub/up/notes"), ("write", ".env")]),
        ("echo x > out/x", [("write", "out/x"), ("write", "out/x", U)]),
        ("echo x > sub/up/../x", [("write", "sub/x"), ("write", "sub/up/../x", U)]),
        ("cd $D && echo x > ../notes", [("write", "../notes"), ("write", "../notes", U)]),
        ("cd $D && echo x > notes", [("write", "notes"), ("write", ".env"), ("write", "notes", U)]),
        ("echo x > ../x", [("write", "../x"), ("write", "../x", U)]),
        ("echo x > /etc/passwd", [("write", "/etc/passwd"), ("write", "/etc/passwd", U)]),
        ("echo x > $HOME/x", [("write", "$HOME/x"), ("write", "$HOME/x", U)]),
        ("echo x > ~/.bashrc", [("write", "~/.bashrc"), ("write", "~/.bashrc", U)]),
        ("echo x > a*", [("write", "a*"), ("write", "a*", U)]),
        ("git status >&2foo", [("write", "2foo")]),
        ("git status >& notes", [("write", "notes"), ("write", ".env")]),
        ("echo x > loop1", [("write", "loop1"), ("write", "loop1", Kind.LINKS_UNKNOWN)]),
        ("echo x > /dev/null; true", []),
        ("git status 2>&1 >&2; echo >&-", []),
        ("cat <<EOF\nhi\nEOF", []),
        ("cat < notes; true", []),
    ],
)
def test_a_redirect_target_becomes_write_subjects_from_every_directory_the_line_may_be_in(
    ws: LocalWorkspace, line: str, expected: list[tuple[object, ...]]
) -> None:
    assert writes(line, ws) == expected


def test_an_absolute_redirect_target_inside_the_root_is_named_relative_to_it(ws: LocalWorkspace) -> None:
    assert writes(f"echo x > {ws.root}/notes", ws) == [("write", "notes"), ("write", ".env")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("git status; rm x", ["git status", "rm x"]),
        ("'rm' -rf x; true", ["rm -rf x", "true"]),
        ("\\rm -rf x; true", ["rm -rf x", "true"]),
        ("X=1 rm -rf x", ["rm -rf x"]),
        ('r"m" -rf x && true', ["rm -rf x", "true"]),
        ("echo $(rm x) a", ['echo "$(rm x)" a', "rm x"]),
        ("echo `rm x`", ['echo "`rm x`"', "rm x"]),
        ('echo "$(rm x)"', ['echo "$(rm x)"', "rm x"]),
        ("cat <(rm x)", ['cat "<(rm x)"', "rm x"]),
        ("X=$(rm x) true", ["true", "rm x"]),
        ("echo ${v:-$(rm x)}", ['echo "${v:-$(rm x)}"', '"$(rm x)"', "rm x"]),
        ("a | b || c & d", ["a", "b", "c", "d"]),
        ("if true; then rm x; fi", ["true", "rm x"]),
        ("for i in a; do rm $i; done", ["rm $i"]),
        ("f() { rm x; }", ["rm x"]),
        ("echo x > notes", ["echo x"]),
        ("git status $'\\'' ; touch /x #'", ['git status "$\'"', "touch /x"]),
    ],
)
def test_every_simple_command_of_the_line_becomes_a_part_as_bash_reads_it(
    ws: LocalWorkspace, line: str, expected: list[str]
) -> None:
    assert parts(line, ws) == expected


@pytest.mark.parametrize(
    ("line", "part"),
    [
        ("time rm x", "rm x"),
        ("case a in b) rm z;; esac", "rm z"),
        ("echo $((1+2)); rm q", "rm q"),
        ("coproc rm x", "rm x"),
        ('echo "open; rm y', "rm y"),
    ],
)
def test_a_line_bashlex_cannot_read_still_gives_textual_parts_and_the_sentinel(
    ws: LocalWorkspace, line: str, part: str
) -> None:
    found = subjects(line, ws)
    assert part in [s.value for s in found if s.tool == "bash"]
    assert found[0] == Subject("bash", line, about="the whole line", why="outside the subset", kind=U)
    assert (found[1].tool, found[1].value, found[1].kind) == ("bash", line, Kind.UNREADABLE)


def test_a_line_bashlex_cannot_read_still_finds_its_redirect_targets(ws: LocalWorkspace) -> None:
    assert ("write", ".env") in writes("echo $((1+2)) > notes", ws)


@pytest.mark.parametrize(
    ("line", "inner"),
    [
        ("sudo env X=1 timeout 5 rm -rf x; true", "rm -rf x"),
        ("ls | xargs rm", "rm"),
        ("find . -name '*.o' -exec rm {} \\;", "rm {}"),
        ("bash -c 'rm -rf x' > log", "rm -rf x"),
        ("true; eval 'rm -rf x'", "rm -rf x"),
    ],
)
def test_the_wrappers_of_a_part_add_constraint_subjects(ws: LocalWorkspace, line: str, inner: str) -> None:
    assert Subject("bash", inner, constraint=True) in [
        Subject(s.tool, s.value, constraint=s.constraint) for s in subjects(line, ws)
    ]


def test_a_write_inside_a_line_a_shell_runs_is_a_constraint(ws: LocalWorkspace) -> None:
    found = subjects("bash -c 'echo x > notes'; true", ws)
    assert [(s.value, s.constraint) for s in found if s.tool == "write"] == [("notes", True), (".env", True)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("echo x > notes", [("notes", ".env")]),
        ("echo x > docs/new.txt", [("docs/new.txt", "sub/new.txt")]),
        ("cd sub && echo x > ../notes", [("../notes", ""), ("../notes", ".env")]),
        ("echo x > out/x", [("out/x", "")]),
        ("echo x > $HOME/x", [("$HOME/x", "")]),
        ("echo x > loop1", [("loop1", "")]),
        ("echo x > /dev/null; git status", []),
        ("echo $((1)) > notes", [("notes", ".env"), ("echo $((1)) > notes", "")]),
    ],
)
def test_redirect_targets_name_where_each_write_really_opens(
    ws: LocalWorkspace, line: str, expected: list[tuple[str, str]]
) -> None:
    assert redirect_targets(line, ws) == expected


@settings(max_examples=150, deadline=None)
@given(
    line=st.text(alphabet=st.sampled_from(list("ab rm;&|<>()$`'\"\\{}*~\n#=-2")), max_size=40)
    | st.text(max_size=30)
)
def test_arbitrary_text_never_raises_and_starts_with_the_whole_line_sentinel(line: str) -> None:
    ws = LocalWorkspace("/nonexistent-bastion-root")
    found = bash_subjects(outside(line), ws)
    assert (found[0].value, found[0].kind) == (line, U)
    assert all(isinstance(raw, str) and isinstance(real, str) for raw, real in redirect_targets(line, ws))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("'rm -rf' x; true", ["'rm -rf' x", "true"]),
        ('"ls x" ; true', ["'ls x'", "true"]),
        ("ls' '/../x; true", ["'ls /../x'", "true"]),
        ("echo 'a b' \"it's\" '' ; true", ["echo 'a b' 'it'\"'\"'s' ''", "true"]),
        ("rm -rf ~ $HOME /* ; true", ["rm -rf ~ $HOME /*", "true"]),
    ],
)
def test_a_part_keeps_its_word_boundaries_and_shows_what_bash_still_expands(
    ws: LocalWorkspace, line: str, expected: list[str]
) -> None:
    assert parts(line, ws) == expected


@pytest.mark.parametrize(
    ("deny", "line", "denied"),
    [
        ("bash(rm -rf ~)", "rm -rf ~; true", True),
        ("bash(rm -rf $HOME*)", "rm -rf $HOME/x; true", True),
        ("bash(rm -rf /*)", "true; rm -rf /*", True),
        ("bash(rm:*)", "'rm' -rf x; true", True),
        ("bash(rm:*)", "bash -c 'true; rm x'; true", True),
        ("bash(rm -rf:*)", "'rm -rf' x; true", False),  # a program named "rm -rf": not rm
        ("bash(ls:*)", '"ls x" ; true', False),
    ],
)
def test_a_deny_rule_meets_a_part_by_its_words(
    ws: LocalWorkspace, deny: str, line: str, denied: bool
) -> None:
    policy = Policy([Layer.user("u.toml", deny=[deny])])
    decision = policy.decide(subjects(line, ws)).decision
    assert (decision is Decision.DENY) is denied
    assert decision is not Decision.ALLOW
