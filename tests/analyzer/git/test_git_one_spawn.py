"""A first git decision spawns no git (issue 31; once per process where git's system config must be
found), and what the probe no longer asks git is what git would have said: its config
(`_configread`, held to git in test_git_configread.py), where git finds the repository
(`_discovery`) and the gitlinks of the index (`_index`), each held to git itself on the same
repositories."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.analyzer import analyze, neutral_env, probe_git

# Private: the gitlink reader and the config reader are the seams that replace git processes.
from bastion.analyzer.git._configread import read_configs, read_local, system_path_from
from bastion.analyzer.git._index import gitlinks
from bastion.audit import claude_code_hook
from bastion.workspace import ExecRequest, ExecResult, LocalWorkspace
from tests.analyzer.gitrepo import GIT_ENV, add_submodule, git, make_repo, set_config, workspace, write


class Counting(LocalWorkspace):
    """A local workspace that records the argv of every process it starts."""

    def __init__(self, root: str, env: Mapping[str, str]) -> None:
        super().__init__(root, env)
        self.argvs: list[list[str]] = []

    def exec(self, request: ExecRequest) -> ExecResult:
        self.argvs.append(_named(request.argv))
        return super().exec(request)


def _named(argv: Sequence[str]) -> list[str]:
    """An argv with git named `git` (the probe runs the plan's git by its absolute path)."""
    return ["git" if argv[0].endswith("/git") else argv[0], *argv[1:]]


@pytest.fixture
def spawns(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Every argv any local workspace starts while the test runs (the hook makes its own)."""
    seen: list[list[str]] = []
    real = LocalWorkspace.exec

    def exec_(self: LocalWorkspace, request: ExecRequest) -> ExecResult:
        seen.append(_named(request.argv))
        return real(self, request)

    monkeypatch.setattr(LocalWorkspace, "exec", exec_)
    yield seen


def _listing(argv: list[str]) -> bool:
    return argv[0] == "git" and "config" in argv and "--list" in argv


SHAPES = {
    "fresh": lambda root: make_repo(root, commit=False),
    "committed": lambda root: make_repo(root),
    "index v4": lambda root: _then(make_repo(root), "update-index", "--index-version", "4"),
    "intent to add (v3)": lambda root: _then(make_repo(root, {"a.go": "package a\n"}), "add", "-N", "b"),
}


def _then(repo: Path, *args: str) -> Path:
    if args[:2] == ("add", "-N"):
        write(repo, {args[2]: "x\n"})
    git(repo, *args)
    return repo


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("line", ["git status", "git log --oneline", "git diff", "git show"])
def test_a_first_git_decision_in_a_repository_spawns_no_git(tmp_path: Path, shape: str, line: str) -> None:
    """git's config is read from its files (`_configread`): no system file to find (GIT_ENV has
    GIT_CONFIG_NOSYSTEM), so no process at all."""
    repo = SHAPES[shape](tmp_path / "repo")
    ws = Counting(str(repo), GIT_ENV)
    a = analyze(line, ws)
    assert a.auto, [r.why for r in a.stages]
    assert ws.argvs == []
    analyze(line, ws)
    assert ws.argvs == []


@pytest.fixture
def unlearnt(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not yet asked git where its system config is, on a machine whose system
    config the reader takes (else git is asked for every listing, rightly: skipped, saying so)."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C"}
    done = subprocess.run(
        ["git", "config", "--system", "--list", "-z", "--show-origin"], env=env, capture_output=True
    )
    system = system_path_from(done.returncode, done.stdout + done.stderr)
    plain = {**neutral_env(env), "GIT_CONFIG_GLOBAL": "/dev/null"}
    if system is None or read_configs(plain, lambda: system, "", read_local, os.lstat, {}) is None:
        pytest.skip(f"this machine's system git config ({system or 'its path not shown'}) is left to git")
    monkeypatch.setattr("bastion.analyzer.git._configread._learnt", {})


@pytest.mark.usefixtures("unlearnt")
def test_the_system_files_path_is_asked_of_git_once_per_process(tmp_path: Path) -> None:
    env = {k: v for k, v in GIT_ENV.items() if k != "GIT_CONFIG_NOSYSTEM"}
    for name in ("one", "two", "three"):
        ws = Counting(str(make_repo(tmp_path / name)), env)
        assert analyze("git status", ws).auto
        asked = [["git", "config", "--system", "--list", "-z", "--show-origin"]] if name == "one" else []
        assert ws.argvs == asked, ws.argvs


@pytest.mark.usefixtures("unlearnt")
def test_a_hook_call_for_git_status_spawns_git_at_most_once(tmp_path: Path, spawns: list[list[str]]) -> None:
    """The hook's first call in a process asks git where the system config is; the next, in
    another fresh repository, spawns nothing."""
    for name, expected in (("repo", 1), ("other", 0)):
        repo = make_repo(tmp_path / name)
        payload = {
            "session_id": "s",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git status"},
        }
        answer = claude_code_hook(json.dumps(payload), os.devnull)
        assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "allow", answer
        assert len([a for a in spawns if a[0] == "git"]) == expected, spawns
        spawns.clear()


def test_a_repository_with_a_submodule_spawns_once_for_the_top_and_twice_for_the_submodule(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    add_submodule(repo, tmp_path / "lib")
    ws = Counting(str(repo), GIT_ENV)
    a = analyze("git status", ws)
    assert a.auto and not a.submodules_hidden, a.submodules_hidden
    # The top's listing (git asked: the submodule's config is included on its command line); where
    # it is and its gitlinks: read.
    # The submodule: git asked where its repository is, and its config.
    assert [next(w for w in argv[1:] if not w.startswith("-") and "=" not in w) for argv in ws.argvs] == [
        "config",
        "rev-parse",
        "config",
    ], ws.argvs


# --- where git finds the repository: shown from the walk, or asked, never otherwise than git ---


def _rev_parse(cwd: Path) -> tuple[int, list[str]]:
    env = {**GIT_ENV, "GIT_CONFIG_GLOBAL": "/dev/null"}
    done = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir", "--show-toplevel"], cwd=cwd, env=env, capture_output=True
    )
    return done.returncode, [os.path.realpath(x) for x in done.stdout.decode().splitlines()]


@pytest.mark.parametrize("where", [".", "pkg", "pkg/deep"])
def test_a_repository_found_from_the_walk_is_where_git_finds_it(tmp_path: Path, where: str) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/deep/a.go": "package a\n", "pkg/HEAD": "not a ref\n"})
    ws = Counting(str(repo), GIT_ENV)
    assert probe_git(ws, where, strict=False) == ""
    assert ws.argvs == []  # the directory holding a file named HEAD is no git directory
    assert _rev_parse(repo / where) == (0, [str(repo / ".git"), str(repo)])


@pytest.mark.parametrize("key", ["core.worktree", "core.bare"])
def test_a_key_that_moves_the_work_tree_makes_the_probe_ask_git(tmp_path: Path, key: str) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, key, str(repo) if key == "core.worktree" else "false")
    ws = Counting(str(repo), GIT_ENV)
    probe_git(ws, ".", strict=False)
    spawned = [argv[1] for argv in ws.argvs]
    assert ("rev-parse" in spawned) is (key == "core.worktree"), spawned  # core.bare = false: as git init


@pytest.mark.parametrize("config", ["kept", "emptied"])
def test_a_git_directory_git_would_skip_asks_instead_of_probing_the_repository_above(
    tmp_path: Path, config: str
) -> None:
    """An empty `.git` in a subdirectory is no git directory: git goes on up to the repository
    above, whose git directory the walk did not look at. (With entries in that repository's
    config, its listing names a file the probe cannot find; without, only the walk tells.)"""
    repo = make_repo(tmp_path / "repo", {"sub/a.go": "package a\n"})
    (repo / "sub" / ".git").mkdir()
    if config == "emptied":
        (repo / ".git" / "config").write_text("")
    assert _rev_parse(repo / "sub") == (0, [str(repo / ".git"), str(repo)]), "git does go up"
    found = probe_git(workspace(repo / "sub"), ".", strict=False)
    assert found and ("is not a git directory git would use" in found or config == "kept"), found
    assert not analyze("git log", workspace(repo / "sub")).auto


def test_a_head_rewritten_in_place_changes_the_fingerprint(tmp_path: Path) -> None:
    from bastion.analyzer import git_fingerprint

    repo = make_repo(tmp_path / "repo")
    ws = workspace(repo)
    before = git_fingerprint(ws, ".")
    with open(repo / ".git" / "HEAD", "r+b") as f:  # in place: the directory's own identity stays
        f.write(b"junk: not a ref\n")
    assert git_fingerprint(ws, ".") != before
    assert "not a git directory" in probe_git(ws, ".", strict=False)


# --- the gitlinks of an index: what git ls-files lists, or not sure ---


def _listed(repo: Path) -> list[bytes] | None:
    done = subprocess.run(
        ["git", "ls-files", "--stage", "-z", "--full-name", ":(top)"],
        cwd=repo,
        env=GIT_ENV,
        capture_output=True,
    )
    if done.returncode != 0:
        return None
    records = [r.partition(b"\t") for r in done.stdout.split(b"\0")[:-1]]
    return [path for head, _, path in records if head.startswith(b"160000 ")]


def _index(repo: Path) -> bytes:
    return (repo / ".git" / "index").read_bytes()


def _gitlinked(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"a.go": "package a\n", "é t/x.md": "x\n"})
    add_submodule(repo, tmp_path / "lib", "mods/lib")
    add_submodule(repo, tmp_path / "other", "zz")
    # A name longer than the 12 bits of its length (in the index only: no file system holds it).
    blob = git(repo, "hash-object", "-w", "a.go").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},{'/'.join(['n' * 200] * 21)}")
    return repo


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_gitlinks_read_from_the_index_are_those_git_lists(tmp_path: Path, version: str) -> None:
    repo = _gitlinked(tmp_path)
    git(repo, "update-index", "--index-version", version)
    if version == "3":
        git(repo, "update-index", "--skip-worktree", "a.go")  # an extended entry
    assert int.from_bytes(_index(repo)[4:8], "big") == int(version)
    assert list(gitlinks(_index(repo)) or ["not sure"]) == _listed(repo) == [b"mods/lib", b"zz"]


@pytest.mark.parametrize(
    ("write", "mark"),
    [
        (("-c", "index.threads=2", "update-index", "--force-write-index"), b"EOIE"),  # read in threads
        (("update-index", "--split-index"), b"link"),  # the entries in another file
        (("-c", "index.skipHash=true", "update-index", "--force-write-index"), b""),  # no checksum (2.40)
    ],
)
def test_an_index_the_reader_is_not_sure_of_goes_to_git(
    tmp_path: Path, write: tuple[str, ...], mark: bytes
) -> None:
    repo = _gitlinked(tmp_path)
    git(repo, *write)
    data = _index(repo)
    if mark not in data or not mark and data[-20:] != bytes(20):
        pytest.skip(f"this git wrote no {mark!r} for {write}")
    assert gitlinks(data) is None
    ws = Counting(str(repo), GIT_ENV)
    a = analyze("git status", ws)
    assert any("ls-files" in argv for argv in ws.argvs), ws.argvs
    assert a.auto and not a.submodules_hidden, a.submodules_hidden


@pytest.fixture(scope="module")
def index_sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    root = tmp_path_factory.mktemp("index")
    repo = _gitlinked(root)
    git(repo, "update-index", "--index-version", "4")
    return repo, _index(repo)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    version=st.sampled_from([2, 3, 4]),
    edits=st.lists(st.tuples(st.integers(min_value=12), st.integers(0, 255)), min_size=1, max_size=4),
)
def test_an_index_changed_anywhere_is_read_as_git_reads_it_or_not_at_all(
    index_sample: tuple[Path, bytes],
    tmp_path_factory: pytest.TempPathFactory,
    version: int,
    edits: list[tuple[int, int]],
) -> None:
    """Bytes of a real index changed (its checksum made again, so that git reads it): where the
    reader is sure, git lists exactly those gitlinks."""
    sample_repo, _ = index_sample
    repo = tmp_path_factory.mktemp("copy") / "repo"
    shutil.copytree(sample_repo, repo, symlinks=True)
    git(repo, "update-index", "--index-version", str(version))
    data = bytearray(_index(repo)[:-20])
    for at, value in edits:
        data[at % len(data)] = value
    body = bytes(data)
    changed = body + hashlib.sha1(body).digest()
    (repo / ".git" / "index").write_bytes(changed)
    ours = gitlinks(changed)
    if ours is not None:
        assert _listed(repo) == list(ours)
