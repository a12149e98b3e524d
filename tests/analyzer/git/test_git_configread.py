"""git's config read without git (`analyzer/git/_configread.py`, design rule 117) is git's own
listing wherever it answers: held to `git config --list` on generated files (headers, keys, values,
comments and the near-misses git reads otherwise), on realistic ones, and in each case it leaves to
git; and the probe that uses it spawns no git, still finds what the judge refuses, and makes
the fingerprint git's listing would."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.analyzer import analyze, git_fingerprint, probe_git
from bastion.analyzer.git._configread import (
    parse_config,
    parse_listing,
    read_configs,
    read_local,
    system_path_from,
)
from bastion.analyzer.git._keys import Entry
from bastion.analyzer.git._neutral import neutral_env
from tests.analyzer.git.test_git_one_spawn import Counting
from tests.analyzer.gitrepo import GIT_ENV, make_repo

LISTING = ["git", "config", "--list", "-z", "--show-scope", "--show-origin"]


def _git_says(repo: Path, env: dict[str, str]) -> tuple[Entry, ...] | None:
    """git's own listing in `repo` (None when git refuses the files)."""
    done = subprocess.run(LISTING, cwd=repo, env=env, capture_output=True)
    return parse_listing(done.stdout, str(repo)) if done.returncode == 0 else None


def _read(repo: Path, env: dict[str, str], system: str | None = None) -> tuple[Entry, ...] | None:
    gitdir = str(repo / ".git") if (repo / ".git").is_dir() else ""
    return read_configs(env, lambda: system, gitdir, read_local, os.lstat, {})


def _setup(base: Path, files: dict[str, bytes]) -> tuple[Path, dict[str, str]]:
    """A repository with the given files (system, xdg, global, local: each written when given)
    and git's environment for it, as the probe makes it (the neutral keys in the command scope)."""
    repo = base / "repo"
    if not (repo / ".git").exists():
        make_repo(repo, commit=False)
    home = base / "home"
    (home / "xdg" / "git").mkdir(parents=True, exist_ok=True)
    places = {
        "system": base / "system.cfg",
        "xdg": home / "xdg" / "git" / "config",
        "global": home / ".gitconfig",
        "local": repo / ".git" / "config",
    }
    for name, path in places.items():
        if name in files:
            path.write_bytes(files[name])
        elif name != "local":
            path.unlink(missing_ok=True)
    base_env = {"PATH": GIT_ENV["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / "xdg")}
    base_env["GIT_CONFIG_SYSTEM"] = str(places["system"])
    return repo, {**neutral_env(base_env), "LC_ALL": "C"}


# Each list begins with the choices inside the subset; a clean file draws only from those.
NAMES = ["core", "Core", "remote", "user", "url", "branch", "x-y", "a1", "a.b", "", " core", "core "]
SUBS = ["origin", "Origin", "https://u:pw@h/x", "a b", "", "t\tab", "é", 'q"uote', "back\\slash"]
KEYS = [
    "name",
    "Name",
    "email",
    "url",
    "fetch",
    "bare",
    "x-1",
    "worktree",
    "repositoryFormatVersion",
    "1bad",
    "a_b",
    "k.e",
]
SEPS = ["", " = ", "=", " =", "= ", "\t=\t", "  =  "]
VALUES = [
    "", "plain", "two  spaces", "tab\tin", "https://u:pw@example.com/x", "trailing  ", "ünï", "a=b", "true",
    "[not]", "#hash", "a;b", '"quoted"', "back\\slash", "x\\", "\x0bvt", "\x0cff",
]  # fmt: skip
TAILS = ["", " ", "\t", " # c", ";c", "  ; c"]
ODD = ["#", ";", "", "   ", "\t# indented", "[core]bare=true", "\ufeff[core]", "[core]\r", "[core] ; c"]
CLEAN = {"names": 8, "subs": 7, "keys": 9, "values": 10, "pair tails": 3, "odd": 5}


@st.composite
def _line(draw: st.DrawFn, clean: bool) -> str:
    def pick(choices: list[str], part: str) -> str:
        return draw(st.sampled_from(choices[: CLEAN[part]] if clean else choices))

    kind = draw(st.sampled_from(["header", "pair", "pair", "pair", "odd"]))
    if kind == "header":
        sub = draw(st.none() | st.just(pick(SUBS, "subs")))
        name = pick(NAMES, "names")
        inner = name if sub is None else f'{name}{draw(st.sampled_from([" ", "  ", chr(9)]))}"{sub}"'
        return f"[{inner}]{draw(st.sampled_from(TAILS))}"
    if kind == "pair":
        lead = draw(st.sampled_from(["", " ", "\t", "  \t"]))
        sep = draw(st.sampled_from(SEPS))
        value = pick(VALUES, "values") if "=" in sep else ""
        return f"{lead}{pick(KEYS, 'keys')}{sep}{value}{pick(TAILS, 'pair tails')}"
    return pick(ODD, "odd")


@st.composite
def _file(draw: st.DrawFn) -> bytes:
    """A config file: half of them clean (inside the subset, so the reading must answer), the rest
    with anything the lists hold, git's own near-misses among them."""
    clean = draw(st.booleans())
    lines = draw(st.lists(_line(clean), max_size=8))
    if clean or draw(st.booleans()):
        lines.insert(0, draw(st.sampled_from(["[core]", '[remote "origin"]', "[user]"])))
    return ("\n".join(lines) + draw(st.sampled_from(["", "\n"]))).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.dictionaries(st.sampled_from(["system", "xdg", "global", "local"]), _file()))
def test_the_reading_is_gits_listing_wherever_it_answers(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as t:
        repo, env = _setup(Path(t), files)
        read, said = _read(repo, env), _git_says(repo, env)
        if read is not None:
            assert said is not None, "git refused files the reading took"
            assert read == said


REALISTIC = {
    "git init's": b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
    b"\tlogallrefupdates = true\n",
    "a clone's": b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
    b'[remote "origin"]\n\turl = https://github.com/o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
    b'[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n',
    "credentials in a URL": b'[remote "origin"]\n\turl = https://user:hunter2@example.com/r.git\n',
    "a user's": b"# mine\n[user]\n\tname = A Person\n\temail = a@example.com\n"
    b"[init]\n\tdefaultBranch = main\n[pull]\n\trebase = true\n[color]\n\tui\n",
    "a hostile key": b"[core]\n\tfsmonitor = /tmp/run-me\n\tpager = less -R\n",
    "a subsection with spaces": b'[url "git@github.com:"]\n\tinsteadOf = https://github.com/\n'
    b'[diff "my tool"]\n\ttextconv = cat\n',
}


@pytest.mark.parametrize("name", sorted(REALISTIC))
@pytest.mark.parametrize("where", ["system", "xdg", "global", "local"])
def test_realistic_files_are_read_and_read_as_git_lists_them(tmp_path: Path, name: str, where: str) -> None:
    repo, env = _setup(tmp_path, {where: REALISTIC[name]})
    read = _read(repo, env)
    assert read is not None, "a realistic file is left to git: the reading saves nothing"
    assert read == _git_says(repo, env)


LEFT_TO_GIT = {
    "an include": b"[include]\n\tpath = other.cfg\n",
    "an includeIf": b'[includeIf "gitdir:/x/"]\n\tpath = other.cfg\n',
    "worktreeConfig": b"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n",
    "a repository format 2": b"[core]\n\trepositoryformatversion = 2\n",
    "a quoted value": b'[alias]\n\tst = "status -s"\n',
    "a continued line": b"[alias]\n\tst = status \\\n -s\n",
    "an inline comment": b"[core]\n\tpager = less # mine\n",
    "a key after the header": b"[core] bare = true\n",
    "a legacy subsection": b"[remote.origin]\n\turl = x\n",
    "a CR": b"[core]\r\n\tbare = false\r\n",
    "a BOM": b"\xef\xbb\xbf[core]\n\tbare = false\n",
    "a NUL": b"[core]\n\tbare = fa\0lse\n",
    "a vertical tab": b"[core]\n\tbare =\x0bfalse\n",
    "a bare that is no boolean": b"[core]\n\tbare = plain\n",
    "a work tree": b"[core]\n\tworktree = /elsewhere\n",
}


@pytest.mark.parametrize("name", sorted(LEFT_TO_GIT))
def test_what_the_reading_cannot_vouch_for_is_left_to_git(tmp_path: Path, name: str) -> None:
    repo, env = _setup(tmp_path, {"local": LEFT_TO_GIT[name]})
    assert _read(repo, env) is None


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("GIT_CONFIG_PARAMETERS", "'core.pager'='x'"),
        ("GIT_CONFIG_NOSYSTEM", "maybe"),
        ("GIT_CONFIG_GLOBAL", "relative.cfg"),
        ("XDG_CONFIG_HOME", "relative"),
        ("HOME", "relative"),
        ("GIT_CONFIG_KEY_0", "not-a-key"),
    ],
)
def test_an_environment_the_reading_does_not_follow_is_left_to_git(
    tmp_path: Path, variable: str, value: str
) -> None:
    repo, env = _setup(tmp_path, {})
    assert _read(repo, env) is not None
    assert _read(repo, {**env, variable: value}) is None


def test_a_config_file_that_is_a_link_is_left_to_git(tmp_path: Path) -> None:
    repo, env = _setup(tmp_path, {})
    (tmp_path / "dotfiles.cfg").write_text("[user]\n\tname = x\n")
    os.symlink(tmp_path / "dotfiles.cfg", tmp_path / "home" / ".gitconfig")
    assert _read(repo, env) is None


def test_a_repository_another_user_owns_is_left_to_git(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a directory's owner needs root")
    repo, env = _setup(tmp_path, {})
    os.chown(repo / ".git", 65534, 65534)
    assert _read(repo, env) is None
    assert _read(repo, {**env, "GIT_CONFIG_NOSYSTEM": "1"}) is None


def test_a_commondir_is_left_to_git(tmp_path: Path) -> None:
    repo, env = _setup(tmp_path, {})
    (repo / ".git" / "commondir").write_text("../other\n")
    assert _read(repo, env) is None


def test_without_home_git_reads_no_global_file_and_neither_does_the_reading(tmp_path: Path) -> None:
    repo, env = _setup(tmp_path, {"global": b"[user]\n\tname = x\n", "local": REALISTIC["a clone's"]})
    env = {k: v for k, v in env.items() if k not in ("HOME", "XDG_CONFIG_HOME")}
    read = _read(repo, env)
    assert read is not None and read == _git_says(repo, env)
    assert not any(e.scope == "global" for e in read)


def test_the_system_files_path_is_what_git_says_it_is(tmp_path: Path) -> None:
    env = {"PATH": GIT_ENV["PATH"], "LC_ALL": "C"}
    for path, content in ((tmp_path / "absent.cfg", None), (tmp_path / "there.cfg", "[a]\n\tb = c\n")):
        if content is not None:
            path.write_text(content)
        done = subprocess.run(
            ["git", "config", "--system", "--list", "-z", "--show-origin"],
            env={**env, "GIT_CONFIG_SYSTEM": str(path)},
            capture_output=True,
        )
        assert system_path_from(done.returncode, done.stdout + done.stderr) == str(path)
    (tmp_path / "empty.cfg").write_text("")
    assert system_path_from(0, b"") is None  # an empty file does not show its path
    assert system_path_from(128, b"fatal: something else\n") is None


def test_a_values_inner_blanks_are_single_spaces_and_its_ends_dropped() -> None:
    assert parse_config(b"[a]\n\tk =  x \t y\t \n") == [("a.k", "x   y")]
    assert parse_config(b"[a]\n\tk\n") == [("a.k", None)]


# --- the probe that uses it ---------------------------------------------------------------------


def test_a_hostile_key_is_found_without_a_spawn(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with open(repo / ".git" / "config", "a") as f:
        f.write("[diff]\n\texternal = /tmp/run-me\n")
    ws = Counting(str(repo), GIT_ENV)
    assert "diff.external" in probe_git(ws, ".", strict=False, subcommands=frozenset({"diff"}))
    assert "diff.external" in probe_git(ws, ".", strict=True)
    assert not analyze("git diff", ws).auto
    assert ws.argvs == []


@pytest.mark.parametrize("files", [{}, {"global": REALISTIC["a user's"], "local": REALISTIC["a clone's"]}])
def test_the_fingerprint_is_the_same_whether_read_or_asked_of_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, bytes]
) -> None:
    """A stamp made where the files are read verifies where git is asked (an executor's recheck
    reads them, its client asked git), and the reverse: the places are git's origins either way."""
    repo, env = _setup(tmp_path, files)
    env = {k: v for k, v in env.items() if not k.startswith("GIT_CONFIG_") or k == "GIT_CONFIG_SYSTEM"}
    read_ws = Counting(str(repo), env)
    read = git_fingerprint(read_ws, ".")
    assert read_ws.argvs == []
    monkeypatch.setattr("bastion.analyzer.git._prober.read_configs", lambda *args: None)
    monkeypatch.setattr("bastion.analyzer.git._probe._cache", OrderedDict())
    asked_ws = Counting(str(repo), env)
    assert git_fingerprint(asked_ws, ".") == read
    assert [a[:2] for a in asked_ws.argvs] == [["git", "config"]]


def test_a_file_left_to_git_is_asked_of_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (tmp_path / "extra.cfg").write_text("[diff]\n\texternal = /tmp/run-me\n")
    with open(repo / ".git" / "config", "a") as f:
        f.write(f"[include]\n\tpath = {tmp_path / 'extra.cfg'}\n")
    ws = Counting(str(repo), GIT_ENV)
    assert "diff.external" in probe_git(ws, ".", strict=False, subcommands=frozenset({"diff"}))
    assert [a[:2] for a in ws.argvs] == [["git", "config"]]
