"""The subjects of a parsed line (stages, reads, sentinels, wrappers) and of a file-tool path."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.analyzer import Analysis, Check, StageResult, analyze
from bastion.grammar import Pipeline, Plan, Stage, Word
from bastion.policy import Kind, Subject, bash_subjects, path_subjects

# Private: which lines words hand to a shell, and how words are joined into one value, are the seams tested.
from bastion.policy._wrappers import _wrapped
from bastion.policy._written import joined
from bastion.workspace import LocalWorkspace
from fuzz.strategies import plans

U, OUT, LINKS = Kind.UNCHECKED, Kind.OUTSIDE, Kind.LINKS_UNKNOWN


@pytest.fixture
def ws(tmp_path: Path) -> LocalWorkspace:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / ".env").write_text("KEY=1\n")
    (root / "README.md").write_text("hi\n")
    for link, target in {
        "notes": ".env",
        "docs": "sub",
        "sub/up": "..",
        "out": "/outside",
        "abs": str(root / "README.md"),
        "loop1": "loop2",
        "loop2": "loop1",
    }.items():
        os.symlink(target, root / link)
    return LocalWorkspace(str(root))


def stage(text: str) -> Stage:
    return Stage(tuple(Word(w) for w in text.split()))


def analysis(*results: tuple[str, bool, Check]) -> Analysis:
    """A parsed line whose every stage's analysis the test chooses: (text, governed, check)."""
    stages = [stage(text) for text, _, _ in results]
    plan = Plan((Pipeline(tuple(stages)),))
    pairs = enumerate(zip(stages, results, strict=True))
    done = tuple(StageResult(s, i, governed, check, ".") for i, (s, (_, governed, check)) in pairs)
    return Analysis(" | ".join(t for t, _, _ in results), plan, None, done)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("make", [Subject("bash", "make", about="the command")]),
        ("  make   test  ", [Subject("bash", "make test", about="the command")]),
        (
            'echo "a b" && make',
            [
                Subject("bash", "echo 'a b'", about="part 1 of the line"),
                Subject("bash", "make", about="part 2 of the line"),
            ],
        ),
    ],
)
def test_each_stage_of_a_parsed_line_is_a_command_subject(
    ws: LocalWorkspace, line: str, expected: list[Subject]
) -> None:
    assert bash_subjects(analyze(line.strip(), ws, probe=False), ws) == expected


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        (
            [("cat a .env", True, Check(ok=True, reads=("a", ".env")))],
            [
                Subject("bash", "cat a .env", about="the command"),
                Subject("read", "a", about="a file the command reads"),
                Subject("read", ".env", about="a file the command reads"),
            ],
        ),
        (
            [("cat notes", True, Check(ok=True, reads=("notes", ".env"))), ("wc -l", True, Check(ok=True))],
            [
                Subject("bash", "cat notes", about="part 1 of the line"),
                Subject("read", "notes", about="a file part 1 of the line reads"),
                Subject("read", ".env", about="a file part 1 of the line reads"),
                Subject("bash", "wc -l", about="part 2 of the line"),
            ],
        ),
        (
            [("cat /etc/passwd", True, Check.refuse("'/etc/passwd' is outside the working directory"))],
            [
                Subject(
                    "bash",
                    "cat /etc/passwd",
                    about="the command",
                    why="'/etc/passwd' is outside the working directory",
                    kind=U,
                ),
                Subject("bash", "cat /etc/passwd", about="the command"),
            ],
        ),
        ([("make x", False, Check(ok=True, auto=False))], [Subject("bash", "make x", about="the command")]),
    ],
)
def test_a_stage_gives_its_reads_and_a_sentinel_when_governed_and_failing(
    ws: LocalWorkspace, results: list[tuple[str, bool, Check]], expected: list[Subject]
) -> None:
    assert bash_subjects(analysis(*results), ws) == expected


@pytest.mark.parametrize(
    ("line", "inner"),
    [
        ("timeout 5 rm -rf x", ["rm -rf x"]),
        ("timeout -s KILL 5 rm x", ["5 rm x", "rm x"]),
        ("sudo env X=1 timeout 5 rm x", ["env X=1 timeout 5 rm x", "timeout 5 rm x", "rm x"]),
        ("nice -n 5 rm x", ["5 rm x", "rm x"]),
        ("xargs rm", ["rm"]),
        ("xargs -0 -n 1 rm -f", ["1 rm -f", "rm -f"]),
        ("env -i PATH=/bin rm x", ["rm x"]),
        ("nohup rm x", ["rm x"]),
        ("command rm x", ["rm x"]),
        ("exec rm x", ["rm x"]),
        ("stdbuf -oL rm x", ["rm x", "x"]),  # does -oL take a value? both
        ("chroot / rm x", ["rm x"]),
        ("flock lockfile rm x", ["rm x"]),
        ("sudo -u root -- rm x", ["root -- rm x", "rm x"]),
        ("/bin/rm -rf x", ["rm -rf x"]),
        ("/usr/bin/timeout 5 /bin/rm x", ["timeout 5 /bin/rm x", "/bin/rm x", "rm x"]),
        ("find . -exec rm {} ;", ["rm {}"]),
        ("echo rm x", []),
        ("git status", []),
    ],
)
def test_a_wrapper_adds_a_constraint_for_every_word_that_could_start_its_command(
    ws: LocalWorkspace, line: str, inner: list[str]
) -> None:
    found = bash_subjects(analyze(line, ws, probe=False), ws)
    assert sorted(s.value for s in found if s.constraint) == sorted(inner)


@pytest.mark.parametrize(
    ("words", "lines"),
    [
        (("bash", "-c", "rm x; true"), ["rm x; true"]),
        (("sh", "-ec", "rm x"), ["rm x"]),
        (("su", "root", "-c", "rm x"), ["rm x"]),
        (("eval", "rm", "x"), ["rm x"]),
        (("env", "-S", "rm x"), ["rm x"]),
        (("sudo", "bash", "-c", "rm x"), ["rm x"]),
        (("bash", "script.sh"), []),
    ],
)
def test_a_line_handed_to_a_shell_is_found_for_cutting(words: tuple[str, ...], lines: list[str]) -> None:
    assert list(_wrapped(words)[1]) == lines


def test_a_line_handed_to_a_shell_in_a_parsed_stage_is_cut_into_constraints(ws: LocalWorkspace) -> None:
    found = bash_subjects(analyze("bash -c 'true; rm -rf x'", ws, probe=False), ws)
    assert {s.value for s in found if s.constraint} == {"true", "rm -rf x"}


def test_a_failure_while_building_subjects_gives_the_sentinel_and_an_unreadable_subject(
    ws: LocalWorkspace,
) -> None:
    broken = Analysis("make", Plan(()), None, (None,))  # type: ignore[arg-type]
    sentinel, unreadable = bash_subjects(broken, ws)
    assert (sentinel.tool, sentinel.value, sentinel.kind) == ("bash", "make", U)
    assert (unreadable.tool, unreadable.value, unreadable.kind) == ("bash", "make", Kind.UNREADABLE)


def shown(s: Subject) -> tuple[object, ...]:
    """(tool, value), and the kind when it is not plain."""
    return (s.tool, s.value) if s.kind is Kind.PLAIN else (s.tool, s.value, s.kind)


def outside(raw: str) -> Subject:
    why = f"{raw!r} is outside the working directory"
    return Subject("read", raw, about="the path of read", why=why, kind=OUT)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("README.md", [("read", "README.md")]),
        ("./README.md", [("read", "README.md")]),
        ("sub/../README.md", [("read", "README.md")]),
        ("sub/./x", [("read", "sub/x")]),
        (".", [("read", ".")]),
        ("notes", [("read", "notes"), ("read", ".env")]),
        ("docs/up/notes", [("read", "docs/up/notes"), ("read", ".env")]),
        ("abs", [("read", "abs"), ("read", "README.md")]),
        ("out/x", [("read", "out/x"), ("read", "out/x", OUT)]),
        ("sub/up/x", [("read", "sub/up/x"), ("read", "x")]),
        ("loop1", [("read", "loop1"), ("read", "loop1", LINKS)]),
        ("..", [("read", "..", OUT)]),
        ("sub/../../x", [("read", "sub/../../x", OUT)]),
        ("/etc/passwd", [("read", "/etc/passwd", OUT)]),
        ("~/.ssh/id_rsa", [("read", "~/.ssh/id_rsa", OUT)]),
        ("", [("read", "", OUT)]),
        ("a\x00b", [("read", "a\x00b", OUT)]),
    ],
)
def test_a_file_tool_path_is_normalised_against_the_root_and_followed_through_links(
    ws: LocalWorkspace, path: str, expected: list[tuple[object, ...]]
) -> None:
    assert [shown(s) for s in path_subjects("read", path, ws)] == expected


@pytest.mark.parametrize(
    ("tool", "path", "expected"),
    [
        ("glob", None, [("glob", ".")]),
        ("grep", None, [("grep", ".")]),
        ("ls", None, [("ls", ".")]),
        ("read", None, [("read", "None", OUT)]),
        ("write", 3, [("write", "3", OUT)]),
        ("edit", ["x"], [("edit", "['x']", OUT)]),
    ],
)
def test_an_absent_or_odd_path_takes_the_default_or_is_outside(
    ws: LocalWorkspace, tool: str, path: object, expected: list[tuple[object, ...]]
) -> None:
    assert [shown(s) for s in path_subjects(tool, path, ws)] == expected


@pytest.mark.parametrize(
    ("absolute", "expected"),
    [
        ("{root}/README.md", ["README.md"]),
        ("{root}", ["."]),
        ("{root}/", ["."]),
        ("{root}/sub/../notes", ["notes", ".env"]),
        ("{real}/docs/x", ["docs/x", "sub/x"]),
    ],
)
def test_an_absolute_path_inside_the_root_is_named_relative_to_it(
    ws: LocalWorkspace, absolute: str, expected: list[str]
) -> None:
    path = absolute.format(root=ws.root, real=ws.real_root)
    assert [s.value for s in path_subjects("read", path, ws)] == expected


def test_a_path_outside_says_why(ws: LocalWorkspace) -> None:
    assert path_subjects("read", "/etc/passwd", ws) == [outside("/etc/passwd")]


def test_a_line_a_wrapper_hands_to_a_shell_is_judged_in_the_file_system_each_time(
    ws: LocalWorkspace,
) -> None:
    line = "timeout 5 bash -c 'echo hi >log.txt'"
    first = bash_subjects(analyze(line, ws, probe=False), ws)
    assert Subject("write", "log.txt", about="a file the line writes (log.txt)", constraint=True) in first
    os.symlink(".env", os.path.join(ws.root, "log.txt"))
    again = bash_subjects(analyze(line, ws, probe=False), ws)
    assert Subject("write", ".env", about="a file the line writes (log.txt)", constraint=True) in again
    assert [s for s in again if s.tool == "bash"] == [s for s in first if s.tool == "bash"]


@settings(max_examples=200, deadline=None)
@given(plans())
def test_a_parsed_stage_subject_split_as_bash_would_gives_back_its_words(plan: Plan) -> None:
    for s in plan.stages:
        assert shlex.split(s.text) == [w.text for w in s.words]


@given(
    st.lists(
        st.text(st.characters(codec="ascii", exclude_categories=["Cc"]) | st.sampled_from("\t\n")),
        min_size=1,
        max_size=4,
    )
)
def test_any_literal_words_are_shown_so_that_bash_reads_them_back(words: list[str]) -> None:
    assert shlex.split(Stage(tuple(Word(w) for w in words)).text) == words


@given(st.lists(st.text(), min_size=1, max_size=4))
def test_cut_words_are_joined_so_that_each_word_stays_one(words: list[str]) -> None:
    assert shlex.split(joined(tuple(words))) == words


@pytest.mark.parametrize(
    ("line", "subject", "inner"),
    [
        ("'ls /../x'", "'ls /../x'", ["x"]),
        ("'git status'", "'git status'", []),
        ("'cat' x", "cat x", []),
        ("env 'ls /../x'", "env 'ls /../x'", ["'ls /../x'", "x"]),
        ("timeout 5 'ls x'", "timeout 5 'ls x'", ["'ls x'"]),
        ("xargs 'rm -rf' x", "xargs 'rm -rf' x", ["'rm -rf' x"]),
        ("echo 'it'\"'\"'s' '' '*' HEAD~1", "echo 'it'\"'\"'s' '' '*' HEAD~1", []),
    ],
)
def test_a_quoted_word_stays_one_word_in_the_subjects(
    ws: LocalWorkspace, line: str, subject: str, inner: list[str]
) -> None:
    found = bash_subjects(analyze(line, ws, probe=False), ws)
    # (a governed stage whose check failed has its sentinel too, of the same value: xargs 'rm -rf' x)
    assert list(dict.fromkeys(s.value for s in found if s.tool == "bash" and not s.constraint)) == [subject]
    assert sorted(s.value for s in found if s.constraint) == sorted(inner)


@pytest.mark.parametrize("command", ["'ls '", "' ls'", "'ls\t'", "'git status'", "./ls", "/bin/cat"])
def test_a_command_word_that_is_not_a_governed_name_is_left_to_the_rules(
    ws: LocalWorkspace, command: str
) -> None:
    a = analyze(f"{command} README.md", ws, probe=False)
    assert not a.stages[0].governed and not a.auto


def test_a_glob_word_is_shown_bare_and_a_quoted_star_quoted(ws: LocalWorkspace) -> None:
    a = analyze("ls *.md '*.md'", ws, probe=False)
    assert a.plan is not None and a.plan.stages[0].text == "ls *.md '*.md'"
