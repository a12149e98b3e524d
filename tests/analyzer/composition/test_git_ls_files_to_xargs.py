"""Issue 33, `git ls-files [PATHSPEC...] | xargs READER` (design rules 114-116).

The risk: a name git lists reaches the reader as something else. Without `-z`/`-0` xargs splits a
tracked `x /abs/outside/canary.txt` (a file in a directory named `x `) into `x` and the file
outside, and `notes .env x.py` into three names, `.env` among them; a tracked link leads out, a
file swapped for a link after `git add` is followed, a gitlink hands on a submodule's directory, a
tracked secret is printed, a flag makes git print more than names. Each allowed form runs here as
planned in a repository holding all of those: no canary is printed, every name reaches the reader
whole. Each dangerous sibling asks, with the reason of the check that closes it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.analyzer import Analysis, Stamper, analyze
from bastion.analyzer.composition import _tracked
from bastion.policy import Decision, DryRun
from tests.analyzer.gitrepo import GIT_ENV, git, make_repo, set_config, workspace

CANARY = "CANARY-33x-"
# Names that are regular files, each harmless, some odd: a blank xargs splits on, quotes and a
# backslash it interprets, a newline, a tab, a leading dash.
PLAIN = {
    "src/a.py": "import os\n",
    "src/b.py": "import sys\n",
    "notes .env x.py": "import spaced\n",
    "odd/new\nline.py": "import newline\n",
    "odd/-rf.py": "import dash\n",
    'odd/it\'s "q".py': "import quotes\n",
    "odd/back\\slash.py": "import backslash\n",
    "odd/tab\there.py": "import tab\n",
}


def _decided(ws: Path, line: str) -> Decision:
    return DryRun(os.devnull).gate(str(ws)).decide("bash", {"command": line}).decision


def _run(ws: Path, a: Analysis) -> str:
    assert a.rendered is not None
    env = {**GIT_ENV, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["bash", "-c", a.rendered], cwd=ws, env=env, capture_output=True, timeout=60)
    return done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose plain names are tracked, beside an untracked `.env` and a file outside
    whose absolute path a tracked name holds after `x `."""
    base = tmp_path_factory.mktemp("tracked33")
    outside = base / "outside"
    outside.mkdir()
    (outside / "canary.py").write_text(f"import {CANARY}outside\n")
    ws = make_repo(base / "ws", {**PLAIN, f"x {outside}/canary.py": "import inside\n"})
    (ws / ".env").write_text(f"import {CANARY}env\n")  # untracked: only a split name reaches it
    (ws / "x").mkdir()
    return ws


RUNS = [
    "git ls-files | xargs grep -l import",
    "git ls-files src odd | xargs wc -l",
    "git ls-files '*.py' | xargs grep -c import",
    "git ls-files -- 'x ' | xargs cat",
    "git ls-files 'notes .env x.py' | xargs cat",
    "git ls-files -z | xargs -0 grep -H import",
    "git ls-files -c --deduplicate src | xargs -n 1 head -n 1",
    "git ls-files | xargs -I {} grep -H import {}",
    "git ls-files | xargs grep -l import | xargs wc -l",
    "cd src && git ls-files | xargs cat",
    "cd odd && git ls-files '*.py' | xargs grep -l import",
]


@pytest.mark.parametrize("line", RUNS)
def test_the_form_runs_unasked_and_prints_no_secret(repo: Path, line: str) -> None:
    a = analyze(line, workspace(repo))
    assert a.auto, [s.why for s in a.stages]
    assert _decided(repo, line) is Decision.ALLOW
    out = _run(repo, a)
    assert CANARY not in out, out
    assert "'ls-files' '-z'" in (a.rendered or "") and "'-0' '-r'" in (a.rendered or "")


def test_run_as_typed_the_split_names_reach_the_secrets(repo: Path) -> None:
    """The fixture has teeth: the lines as typed (no -z, no -0) read the file outside and `.env`."""
    for line in ("git ls-files -- 'x ' | xargs cat", "git ls-files 'notes .env x.py' | xargs cat"):
        done = subprocess.run(["bash", "-c", line], cwd=repo, env=GIT_ENV, capture_output=True, timeout=60)
        assert CANARY in done.stdout.decode(errors="replace"), line


def test_every_name_reaches_the_reader_whole(repo: Path) -> None:
    a = analyze("git ls-files | xargs grep -l import", workspace(repo))
    printed = set(_run(repo, a).split("\n"))
    for name in PLAIN:
        if "\n" not in name:
            assert name in printed, (name, printed)
    assert "odd/new" in printed and "line.py" in printed


def test_what_git_can_list_is_each_a_read(repo: Path) -> None:
    a = analyze("git ls-files src odd | xargs cat", workspace(repo))
    assert set(a.stages[1].reads) == {n for n in PLAIN if n.startswith(("src/", "odd/"))}
    assert a.stages[0].check.depends[-2:] == (".git", ".git/index")


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    """A repository whose index holds what must not reach a reader: a tracked link out and to a
    secret, a tracked secret, a file swapped for a link after `git add`, a gitlink, a link where the
    work tree has a file."""
    (tmp_path / "outside.txt").write_text(f"{CANARY}outside\n")
    ws = make_repo(tmp_path / "ws", {"src/a.py": "import os\n", "swap/s.py": "import swapped\n"})
    (ws / "keys").mkdir()
    (ws / "keys" / "id_rsa.py").write_text(f"import {CANARY}key\n")
    (ws / ".env.py").write_text(f"import {CANARY}env\n")
    os.symlink("../../outside.txt", ws / "src" / "out.py")
    os.symlink("../.env.py", ws / "src" / "env.py")
    (ws / "linked").mkdir()
    os.symlink("../src/a.py", ws / "linked" / "l.py")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "bad")
    (ws / "swap" / "s.py").unlink()
    os.symlink("../.env.py", ws / "swap" / "s.py")  # swapped after the commit: the index says a file
    head = git(ws, "rev-parse", "HEAD").strip()
    git(ws, "update-index", "--add", "--cacheinfo", f"160000,{head},mod")  # a gitlink, never checked out
    # the index says a link, the work tree has a regular file
    (ws / "linked" / "l.py").unlink()
    (ws / "linked" / "l.py").write_text("import os\n")
    return ws


ASKS = [
    ("git ls-files src | xargs cat", "a tracked symbolic link"),
    ("git ls-files swap | xargs cat", "the work tree holds a link"),
    ("git ls-files mod | xargs cat", "a submodule (gitlink)"),
    ("git ls-files keys | xargs cat", "secret-looking name"),
    ("git ls-files '*.py' | xargs cat", "secret-looking name"),
    ("git ls-files '.env*' | xargs cat", "secret-looking name"),
    ("git ls-files linked | xargs cat", "a tracked symbolic link"),
]


@pytest.mark.parametrize(("line", "why"), ASKS, ids=[c[0] for c in ASKS])
def test_a_name_that_is_not_a_plain_file_asks(bad: Path, line: str, why: str) -> None:
    a = analyze(line, workspace(bad))
    assert not a.auto
    assert why in a.stages[0].why, a.stages[0].why
    assert _decided(bad, line) is not Decision.ALLOW


def test_a_link_in_the_work_tree_to_a_harmless_file_still_asks(bad: Path) -> None:
    """The reader's own check would let a link to `src/a.py` through: the index said a file, so the
    work tree is not what git listed."""
    os.remove(bad / "swap" / "s.py")
    os.symlink("../src/a.py", bad / "swap" / "s.py")
    a = analyze("git ls-files swap | xargs cat", workspace(bad))
    assert not a.auto and "the work tree holds a link" in a.stages[0].why
    os.remove(bad / "swap" / "s.py")
    (bad / "swap" / "s.py").write_text("import os\n")
    assert analyze("git ls-files swap | xargs cat", workspace(bad)).auto


def test_the_narrow_pathspec_runs_beside_the_bad_names(bad: Path) -> None:
    a = analyze("git ls-files src/a.py | xargs cat", workspace(bad))
    assert a.auto, [s.why for s in a.stages]
    assert CANARY not in _run(bad, a)


FLAG_ASKS = [
    "-s", "--stage", "-u", "-t", "-v", "-o", "--others", "-i", "--ignored", "-d", "-m", "-k",
    "--directory", "--format=%(path)", "--eol", "--recurse-submodules", "--full-name", "--debug",
    "--with-tree=HEAD", "-X .gitignore", "--exclude-from=x", "--exclude=x", "-x x", "--abbrev",
    "--exclude-standard", "-sz", "-cs", "--sparse", "--error-unmatch=x", "-",
]  # fmt: skip


@pytest.mark.parametrize("flag", FLAG_ASKS)
def test_a_flag_that_changes_what_git_prints_asks(repo: Path, flag: str) -> None:
    line = f"git ls-files {flag} src | xargs cat"
    assert not analyze(line, workspace(repo)).auto, line


ELSEWHERE = [
    ("git -C src ls-files | xargs cat", "git -C"),
    ("git -c core.quotePath=false ls-files | xargs cat", "git -c"),
    ("git --no-pager ls-files | xargs cat", "a global option"),
    ("git ls-files ../ws | xargs cat", "a pathspec above"),
    ("git ls-files /etc | xargs cat", "an absolute pathspec"),
    ("git ls-files ':(top)' | xargs cat", "magic"),
    ("git ls-files 'src/[ab].py' | xargs cat", "a bracket"),
    ("git ls-files 'src\\a.py' | xargs cat", "a backslash"),
    ("git ls-files *.py | xargs cat", "a glob bash expands"),
    ("git ls-files 2>&1 | xargs cat", "messages among the names"),
    ("git status | xargs cat", "not ls-files"),
    ("git ls-tree --name-only HEAD | xargs cat", "not ls-files"),
    ("git ls-files | xargs rm", "a writer"),
    ("git ls-files | xargs -a x cat", "a file of names"),
    ("git ls-files | xargs -p cat", "prompts"),
    ("git ls-files | xargs sh -c cat", "a shell"),
    ("git ls-files | grep py | xargs cat", "a filtered stream"),
    ("git ls-files | xargs grep -r import", "grep -r below each name"),
    ("git ls-files | xargs cat | xargs cat", "cat's output is not names"),
]


@pytest.mark.parametrize(("line", "what"), ELSEWHERE, ids=[c[0] for c in ELSEWHERE])
def test_the_dangerous_sibling_asks(repo: Path, line: str, what: str) -> None:
    assert not analyze(line, workspace(repo)).auto, what
    assert _decided(repo, line) is not Decision.ALLOW, what


def test_a_repository_above_the_workspace_asks(tmp_path: Path) -> None:
    """Its index may list names outside the workspace, and is not the workspace's to read."""
    make_repo(tmp_path, {"ws/a.py": "import os\n", "secret.py": "x\n"})
    a = analyze("git ls-files | xargs cat", workspace(tmp_path / "ws"))
    assert not a.auto and "no repository inside the workspace" in a.stages[0].why


def test_an_index_the_reader_is_not_sure_of_asks(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws", {"a.py": "import os\n"})
    assert analyze("git ls-files | xargs cat", workspace(ws)).auto
    git(ws, "update-index", "--index-version", "4")
    assert analyze("git ls-files | xargs cat", workspace(ws)).auto  # version 4 is read
    git(ws, "update-index", "--split-index")
    a = analyze("git ls-files | xargs cat", workspace(ws))
    assert not a.auto and "not an index this check reads" in a.stages[0].why
    git(ws, "update-index", "--no-split-index")
    assert analyze("git ls-files | xargs cat", workspace(ws)).auto
    data = bytearray((ws / ".git" / "index").read_bytes())
    data[-1] ^= 1
    (ws / ".git" / "index").write_bytes(bytes(data))
    assert not analyze("git ls-files | xargs cat", workspace(ws)).auto


def test_too_many_names_ask(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_tracked, "MAX_TREE_FILES", 3)
    a = analyze("git ls-files | xargs cat", workspace(repo))
    assert not a.auto and "more than 3 names" in a.stages[0].why
    assert analyze("git ls-files src | xargs cat", workspace(repo)).auto


def test_a_hostile_config_is_probed_and_the_plan_runs_nothing(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws", {"a.py": "import os\n"})
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\n")
    evil.chmod(0o755)
    set_config(ws, "core.fsmonitor", str(evil))
    a = analyze("git ls-files | xargs cat", workspace(ws))
    if a.auto:
        _run(ws, a)
    assert not marker.exists()
    set_config(ws, "core.worktree", str(tmp_path))
    a = analyze("git ls-files | xargs cat", workspace(ws))
    assert not a.auto  # git would list another work tree's names


def test_the_stamp_binds_the_index_and_every_name(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws", {"a.py": "import os\n", "b.py": "import sys\n"})
    lw = workspace(ws)
    stamper = Stamper()

    def stamped() -> tuple[Analysis, str]:
        a = analyze("git ls-files | xargs cat", lw)
        stamp = stamper.plan_stamp(a, lw)
        assert a.auto and stamp is not None
        return a, stamp

    a, stamp = stamped()
    assert stamper.verify_plan(stamp, a, lw) is not None
    (ws / "c.py").write_text("import c\n")
    git(ws, "add", "c.py")  # the index written again: git would list a name never judged
    assert stamper.verify_plan(stamp, a, lw) is None
    a, stamp = stamped()
    os.remove(ws / "a.py")
    os.symlink("/etc/passwd", ws / "a.py")  # a listed file swapped for a link since the decision
    assert stamper.verify_plan(stamp, a, lw) is None


# --- the superset: every name git prints is one the check judged ---------------------------------

NAMES = (
    "a.py", "A.PY", "src/a.py", "src/deep/b.py", "src/a.pyc", "srcx/a.py", "s/r/c.py", "x?y/in", "x*y",
    "a b/c.py", "foo/bar", "foo/x/bar", "foo/x/y/bar", "é.py", "dir.py/in.txt", "ab", "a/b", "src/",
)  # fmt: skip


@pytest.fixture(scope="module")
def names_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = make_repo(
        tmp_path_factory.mktemp("superset") / "ws", {n: "x\n" for n in NAMES if not n.endswith("/")}
    )
    return ws


VARIABLES = ["", "GIT_ICASE_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS"]
# Each is a way git matches that a narrower superset would miss: `**/` matching no directory and
# `*` stopping at `/` (glob), case (icase), a literal name holding `?` as a leading directory, `?`
# matching `/` and one byte of a two-byte character.
CASES = ["foo/**/bar", "**/a.py", "foo/*", "x?y", "*.PY", "src?a.py", "??.py", "sr*", "src", "."]


def _printed(repo: Path, specs: list[str], cwd: str, variable: str) -> list[bytes] | None:
    env = {**GIT_ENV, **({variable: "1"} if variable else {})}
    done = subprocess.run(
        ["git", "ls-files", "-z", "--", *specs], cwd=repo / cwd, env=env, capture_output=True
    )
    return done.stdout.split(b"\0")[:-1] if done.returncode == 0 else None


def _missed(repo: Path, specs: list[str], cwd: str, variable: str) -> list[bytes]:
    prefix = b"" if cwd == "." else cwd.encode() + b"/"
    matches = _tracked._superset(prefix, [s.encode() for s in specs])
    return [n for n in _printed(repo, specs, cwd, variable) or [] if not matches(prefix + n)]


@pytest.mark.parametrize("variable", VARIABLES)
@pytest.mark.parametrize("spec", CASES)
def test_the_superset_holds_where_git_matches_widely(names_repo: Path, spec: str, variable: str) -> None:
    assert _printed(names_repo, [spec], ".", variable) is not None
    assert _missed(names_repo, [spec], ".", variable) == []


def test_the_cases_reach_what_they_are_for(names_repo: Path) -> None:
    """The fixture has teeth: each case prints what only the wider reading matches."""
    assert b"foo/bar" in (_printed(names_repo, ["foo/**/bar"], ".", "GIT_GLOB_PATHSPECS") or [])
    assert b"a.py" in (_printed(names_repo, ["*.PY"], ".", "GIT_ICASE_PATHSPECS") or [])
    assert b"x?y/in" in (_printed(names_repo, ["x?y"], ".", "") or [])
    assert b"src/a.py" in (_printed(names_repo, ["src?a.py"], ".", "") or [])
    assert "é.py".encode() in (_printed(names_repo, ["??.py"], ".", "") or [])


_PIECES = ("*", "**", "?", "/", "a", "src", "py", ".", "b", "foo", "bar", "x", "é", "A", " ")


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map("".join), min_size=1, max_size=2),
    st.sampled_from([".", "src", "foo"]),
    st.sampled_from(VARIABLES),
)
def test_every_name_git_prints_is_one_the_check_matched(
    names_repo: Path, specs: list[str], cwd: str, variable: str
) -> None:
    if any(_tracked._pathspec_why(s) for s in specs):
        return
    assert _missed(names_repo, specs, cwd, variable) == [], (specs, cwd, variable)


def test_a_name_a_case_blind_pathspec_reaches_above_the_directory_asks(tmp_path: Path) -> None:
    """Under GIT_ICASE_PATHSPECS, `*.py` in `src` matches `SRC/b.py` too, which git prints as
    `../SRC/b.py`: a name the reader would get from outside the working directory."""
    ws = make_repo(tmp_path / "ws", {"src/a.py": "import os\n", "SRC/b.py": "import sys\n"})
    a = analyze("cd src && git ls-files '*.py' | xargs cat", workspace(ws))
    assert not a.auto and "not below the working directory" in a.stages[1].why
    assert analyze("cd SRC && git ls-files b.py | xargs cat", workspace(ws)).auto
