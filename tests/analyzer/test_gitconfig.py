"""git-config probing against real repositories, the neutralised run, and output redaction."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from bastion.analyzer import (
    ExecResult,
    LocalWorkspace,
    analyze,
    git_fingerprint,
    neutral_env,
    probe_git,
    redact_userinfo,
)
from bastion.analyzer._neutral import NEUTRAL_GIT_CONFIG

from .gitrepo import GIT_ENV, add_submodule, git, make_repo, set_config, workspace, write

MUST_ASK = [
    ("core.editor", "vim"),
    ("core.askPass", "/tmp/x"),
    ("core.gitProxy", "/tmp/x"),
    ("core.attributesFile", "/tmp/attrs"),
    ("core.worktree", "/"),
    ("core.bare", "true"),
    ("diff.external", "/tmp/x"),
    ("diff.x.textconv", "/tmp/x"),
    ("diff.x.command", "/tmp/x"),
    ("filter.lfs.smudge", "/tmp/x"),
    ("filter.lfs.clean", "/tmp/x"),
    ("filter.lfs.process", "/tmp/x"),
    ("merge.x.driver", "/tmp/x"),
    ("sequence.editor", "vim"),
    ("credential.helper", "store"),
    ("credential.https://example.com.helper", "store"),
    ("remote.origin.uploadpack", "/tmp/x"),
    ("remote.origin.receivepack", "/tmp/x"),
    ("remote.origin.proxy", "http://p"),
    ("remote.origin.vcs", "evil"),
    ("uploadpack.packObjectsHook", "/tmp/x"),
    ("pager.log", "less"),
    ("protocol.allow", "always"),
    ("protocol.ext.allow", "always"),
    ("extensions.worktreeConfig", "true"),
    ("submodule.mod.update", "!touch x"),
]

ALLOWED_BESIDE = [
    ("core.bare", "false"),
    ("pager.log", "false"),
    ("pager.diff", "true"),
    ("protocol.ext.allow", "never"),
    ("protocol.file.allow", "user"),
    ("submodule.mod.update", "rebase"),
    ("user.name", "Someone"),
    ("remote.origin.url", "https://example.com/x.git"),
    ("core.autocrlf", "input"),
    # overridden by the neutralising environment, so only strict probes flag them
    ("core.fsmonitor", "/tmp/x"),
    ("core.pager", "less"),
    ("core.sshCommand", "ssh -i key"),
    ("core.hooksPath", "hooks"),
    ("gpg.program", "/tmp/x"),
    ("gpg.ssh.program", "/tmp/x"),
]


@pytest.mark.parametrize(("key", "value"), MUST_ASK)
def test_a_program_running_key_in_the_repository_config_asks(tmp_path: Path, key: str, value: str) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, key, value)
    a = analyze("git status", workspace(repo))
    assert not a.auto
    assert key.lower() in a.git_reason.lower()
    assert "git config runs a program" in a.stages[0].why


@pytest.mark.parametrize(("key", "value"), ALLOWED_BESIDE)
def test_a_harmless_or_neutralised_key_still_runs_unasked(tmp_path: Path, key: str, value: str) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, key, value)
    a = analyze("git status", workspace(repo))
    assert a.auto, a.git_reason


STRICT_ONLY = [
    ("core.fsmonitor", "/tmp/x"),
    ("core.pager", "less"),
    ("core.sshCommand", "ssh -i key"),
    ("core.hooksPath", "hooks"),
    ("gpg.program", "/tmp/x"),
    ("gpg.x509.program", "/tmp/x"),
    ("alias.st", "!touch x"),
]


@pytest.mark.parametrize(("key", "value"), STRICT_ONLY)
def test_a_line_that_runs_as_typed_asks_for_keys_the_neutral_run_overrides(
    tmp_path: Path, key: str, value: str
) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, key, value)
    ws = workspace(repo)
    assert probe_git(ws, ".", strict=False) == ""
    assert key.lower() in probe_git(ws, ".", strict=True).lower()
    a = analyze("git commit -m x", ws)
    assert not a.stages[0].ok and key.lower() in a.stages[0].why.lower()


@pytest.mark.parametrize(("value", "asks"), [("false", False), ("true", False), ("/tmp/x", True)])
def test_a_boolean_fsmonitor_is_not_a_program(tmp_path: Path, value: str, asks: bool) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, "core.fsmonitor", value)
    assert bool(probe_git(workspace(repo), ".", strict=True)) is asks


@pytest.mark.parametrize(
    ("included", "asks"), [("[core]\n\teditor = vim\n", True), ("[user]\n\tname = x\n", False)]
)
def test_an_included_file_is_checked_like_the_repository_config(
    tmp_path: Path, included: str, asks: bool
) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, {"extra.cfg": included})
    set_config(repo, "include.path", "../extra.cfg")
    reason = probe_git(workspace(repo), ".", strict=False)
    assert bool(reason) is asks, reason
    if asks:
        assert "extra.cfg" in reason and "core.editor" in reason


def test_an_include_of_a_file_that_does_not_exist_yet_asks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, "include.path", "../later.cfg")
    assert "later.cfg" in probe_git(workspace(repo), ".", strict=False)


def test_an_include_whose_condition_is_false_asks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, {"branch.cfg": "[core]\n\teditor = vim\n"})
    set_config(repo, "includeIf.onbranch:evil.path", "../branch.cfg")
    assert "branch.cfg" in probe_git(workspace(repo), ".", strict=False)


SUBMODULE = [
    ("diff.x.textconv", "/tmp/x", True),
    ("core.pager", "less", True),
    ("core.fsmonitor", "/tmp/x", True),
    ("user.name", "x", False),
]


@pytest.mark.parametrize(("key", "value", "asks"), SUBMODULE)
def test_a_submodule_config_is_read_strictly(tmp_path: Path, key: str, value: str, asks: bool) -> None:
    repo = make_repo(tmp_path / "repo")
    config = add_submodule(repo, tmp_path / "src")
    git(repo, "config", "--file", str(config), key, value)
    reason = probe_git(workspace(repo), ".", strict=False)
    assert bool(reason) is asks, reason
    if asks:
        assert "submodule" in reason and key.lower() in reason.lower()


def test_a_clean_submodule_with_its_core_worktree_runs_unasked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    config = add_submodule(repo, tmp_path / "src")
    assert "worktree" in config.read_text()
    assert analyze("git status", workspace(repo)).auto


def test_a_git_file_that_points_elsewhere_asks(tmp_path: Path) -> None:
    make_repo(tmp_path / "real")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / ".git").write_text(f"gitdir: {tmp_path / 'real' / '.git'}\n")
    reason = probe_git(workspace(tmp_path / "ws"), ".", strict=False)
    assert "is a file that points git at another directory" in reason


def test_a_git_link_asks(tmp_path: Path) -> None:
    make_repo(tmp_path / "real")
    (tmp_path / "ws").mkdir()
    os.symlink(tmp_path / "real" / ".git", tmp_path / "ws" / ".git")
    assert "symbolic link" in probe_git(workspace(tmp_path / "ws"), ".", strict=False)


def test_a_bare_repository_asks(tmp_path: Path) -> None:
    (tmp_path / "bare").mkdir()
    git(tmp_path / "bare", "init", "-q", "--bare")
    assert "core.bare" in probe_git(workspace(tmp_path / "bare"), ".", strict=False)


@pytest.mark.parametrize(("key", "asks"), [("core.editor", True), ("user.name", False)])
def test_a_workspace_below_the_repository_root_is_probed_in_that_repository(
    tmp_path: Path, key: str, asks: bool
) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/a.go": "package a\n"})
    set_config(repo, key, "vim")
    a = analyze("git log -- a.go", workspace(repo / "pkg"))
    assert a.auto is not asks, a.git_reason


def test_a_directory_that_is_no_repository_has_nothing_to_report(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert probe_git(workspace(tmp_path / "plain"), ".", strict=True) == ""


def test_a_config_git_cannot_parse_asks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with open(repo / ".git" / "config", "a") as f:
        f.write("[broken\n")
    assert "could not be read" in probe_git(workspace(repo), ".", strict=False)


class Recording(LocalWorkspace):
    """A local workspace that counts its processes and can pretend they time out."""

    def __init__(self, root: str, env: Mapping[str, str], *, hang: bool = False) -> None:
        super().__init__(root, env)
        self.spawns = 0
        self.hang = hang

    def exec(
        self,
        argv: Sequence[str],
        *,
        cwd: str = ".",
        env: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        max_output: int = 51_200,
        on_output: Callable[[bytes], None] | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        self.spawns += 1
        assert env is not None and env["LC_ALL"] == "C"
        assert env["GIT_CONFIG_COUNT"] == str(len(NEUTRAL_GIT_CONFIG))
        assert timeout == 10.0
        if self.hang:
            return ExecResult(None, b"", timed_out=True)
        return super().exec(argv, cwd=cwd, env=env, timeout=timeout, max_output=max_output)


def test_a_probe_that_times_out_asks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    ws = Recording(str(repo), GIT_ENV, hang=True)
    assert "could not be read" in probe_git(ws, ".", strict=False)
    assert not analyze("git status", ws).auto


def test_a_probe_spawns_git_twice_and_reuses_its_answer_until_a_config_file_changes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, {"extra.cfg": "[user]\n\tname = x\n"})
    set_config(repo, "include.path", "../extra.cfg")
    ws = Recording(str(repo), GIT_ENV)
    before = git_fingerprint(ws, ".")
    assert probe_git(ws, ".", strict=False) == ""
    assert ws.spawns == 2
    assert probe_git(ws, ".", strict=True) == ""
    assert git_fingerprint(ws, ".") == before
    assert ws.spawns == 2
    write(repo, {"extra.cfg": "[core]\n\teditor = vim\n"})
    assert git_fingerprint(ws, ".") != before
    assert "core.editor" in probe_git(ws, ".", strict=False)
    assert ws.spawns == 4


def test_the_fingerprint_changes_when_git_becomes_a_file(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    ws = workspace(tmp_path / "ws")
    before = git_fingerprint(ws, ".")
    (tmp_path / "ws" / ".git").write_text("gitdir: /elsewhere\n")
    assert git_fingerprint(ws, ".") != before
    assert "points git at another directory" in probe_git(ws, ".", strict=False)


HOOK = "#!/bin/sh\ntouch \"$MARKER\"\ncat \"$1\" 2>/dev/null\nexit 0\n"


@pytest.mark.parametrize(
    ("key", "attributes", "line"),
    [
        ("core.fsmonitor", None, ["git", "status"]),
        ("diff.x.textconv", "*.txt diff=x\n", ["git", "log", "-p"]),
        ("diff.external", None, ["git", "diff"]),
    ],
)
def test_a_program_running_key_runs_as_typed_but_not_in_the_neutralised_run(
    tmp_path: Path, key: str, attributes: str | None, line: list[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"})
    hook = tmp_path / "hook.sh"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    marker = tmp_path / "ran"
    if attributes:
        write(repo, {".gitattributes": attributes, "a.txt": "two\n"})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "second")
    else:
        write(repo, {"a.txt": "two\n"})
    set_config(repo, key, str(hook))
    ws = workspace(repo, MARKER=str(marker))
    strict_reason = probe_git(ws, ".", strict=True)
    assert key in strict_reason
    ws.exec(line, env=ws.env())
    assert marker.exists(), "the typed line did not run the program: the test proves nothing"
    marker.unlink()
    words = line[:2] + ["--no-ext-diff", "--no-textconv"] + line[2:] if line[1] != "status" else line
    ws.exec(words, env=neutral_env(ws.env()))
    assert not marker.exists()


def test_the_neutral_environment_lets_no_inherited_variable_add_config_or_move_git() -> None:
    base = {
        "PATH": "/usr/bin",
        "GIT_CONFIG_COUNT": "21",
        "GIT_CONFIG_KEY_20": "core.pager",
        "GIT_CONFIG_VALUE_20": "sh -c evil",
        "GIT_CONFIG_PARAMETERS": "'core.pager'='evil'",
        "GIT_CONFIG": "/tmp/evil",
        "GIT_DIR": "/tmp/x",
        "GIT_WORK_TREE": "/",
        "GIT_EXEC_PATH": "/tmp",
        "GIT_SSH": "evil",
        "GIT_SSH_COMMAND": "evil",
        "GIT_ASKPASS": "evil",
        "GIT_EXTERNAL_DIFF": "evil",
        "GIT_PAGER": "evil",
        "PAGER": "evil",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    env = neutral_env(base)
    assert env["GIT_CONFIG_COUNT"] == str(len(NEUTRAL_GIT_CONFIG))
    assert "GIT_CONFIG_KEY_20" not in env and "GIT_CONFIG_VALUE_20" not in env
    dropped = ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG", "GIT_DIR", "GIT_WORK_TREE", "GIT_EXEC_PATH")
    for name in (*dropped, "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EXTERNAL_DIFF"):
        assert name not in env, name
    assert env["GIT_PAGER"] == env["PAGER"] == "cat"
    assert (env["GIT_TERMINAL_PROMPT"], env["GIT_OPTIONAL_LOCKS"], env["GOTOOLCHAIN"]) == ("0", "0", "local")
    keys = {env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(8)}
    assert keys["core.fsmonitor"] == "false" and keys["core.hooksPath"] == "/dev/null"
    kept = (env["PATH"], env["GIT_CONFIG_GLOBAL"], env["GIT_CONFIG_NOSYSTEM"])
    assert kept == ("/usr/bin", "/dev/null", "1")


REDACTIONS = [
    ("https://u:p@h/x", "https://***@h/x"),
    ("ssh://git@h/x", "ssh://***@h/x"),
    ("origin\thttps://tok@github.com/o/r (fetch)", "origin\thttps://***@github.com/o/r (fetch)"),
    ("git@h:o/r", "git@h:o/r"),
    ("https://h/x@y", "https://h/x@y"),
    ("no url here", "no url here"),
]


@pytest.mark.parametrize(("text", "shown"), REDACTIONS)
def test_url_userinfo_is_redacted_and_nothing_else(text: str, shown: str) -> None:
    assert redact_userinfo(text) == shown
