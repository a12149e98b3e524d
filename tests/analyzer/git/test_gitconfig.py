"""git-config probing against real repositories, the neutralised run, and output redaction."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.analyzer import analyze, git_fingerprint, neutral_env, probe_git, redact_userinfo

# Private: the config key judge and its tables are the thing tested, entry by entry.
from bastion.analyzer.git._keys import _HARMLESS, _NEUTRALISED, Entry, judge_entries
from bastion.analyzer.git._neutral import NEUTRAL_GIT_CONFIG
from bastion.workspace import ExecRequest, ExecResult, LocalWorkspace
from tests.analyzer.gitrepo import GIT_ENV, add_submodule, git, make_repo, set_config, workspace, write

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

    def exec(self, request: ExecRequest) -> ExecResult:
        self.spawns += 1
        env = request.env
        assert env is not None and env["LC_ALL"] == "C"
        assert env["GIT_CONFIG_COUNT"] == str(len(NEUTRAL_GIT_CONFIG))
        assert request.timeout == 10.0
        if self.hang:
            return ExecResult(None, b"", timed_out=True)
        return super().exec(request)


def test_a_probe_that_times_out_asks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, "include.path", "extra")  # an include: git is asked (the files are not read here)
    ws = Recording(str(repo), GIT_ENV, hang=True)
    assert "could not be read" in probe_git(ws, ".", strict=False)
    assert not analyze("git status", ws).auto


def test_a_probe_spawns_git_once_and_reuses_its_answer_until_a_config_file_changes(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, {"extra.cfg": "[user]\n\tname = x\n"})
    set_config(repo, "include.path", "../extra.cfg")
    ws = Recording(str(repo), GIT_ENV)
    before = git_fingerprint(ws, ".")
    assert probe_git(ws, ".", strict=False) == ""
    assert ws.spawns == 1  # the listing; where git finds the repository and the gitlinks are read (issue 31)
    assert probe_git(ws, ".", strict=True) == ""
    assert git_fingerprint(ws, ".") == before
    assert ws.spawns == 1
    write(repo, {"extra.cfg": "[core]\n\teditor = vim\n"})
    assert git_fingerprint(ws, ".") != before
    assert "core.editor" in probe_git(ws, ".", strict=False)
    assert ws.spawns == 2


def test_the_fingerprint_changes_when_git_becomes_a_file(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    ws = workspace(tmp_path / "ws")
    before = git_fingerprint(ws, ".")
    (tmp_path / "ws" / ".git").write_text("gitdir: /elsewhere\n")
    assert git_fingerprint(ws, ".") != before
    assert "points git at another directory" in probe_git(ws, ".", strict=False)


HOOK = '#!/bin/sh\ntouch "$MARKER"\ncat "$1" 2>/dev/null\nexit 0\n'


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
    ws.exec(ExecRequest(line, env=ws.env()))
    assert marker.exists(), "the typed line did not run the program: the test proves nothing"
    marker.unlink()
    words = line[:2] + ["--no-ext-diff", "--no-textconv"] + line[2:] if line[1] != "status" else line
    ws.exec(ExecRequest(words, env=neutral_env(ws.env())))
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


# The repository's config is an allow-list for lines run neutralised (issue 12, class 2): a key that
# makes git read a file, verify a signature or change which files it reads asks, naming the key and
# its file.
READS_A_FILE = [
    ("mailmap.file", ".env", "git log"),
    ("mailmap.blob", "HEAD:.env", "git shortlog"),
    ("blame.ignoreRevsFile", ".env", "git blame README.md"),
    ("core.excludesFile", "/etc/passwd", "git status"),
    ("core.attributesFile", ".env", "git diff"),
    ("diff.orderFile", ".env", "git diff"),
    ("commit.template", ".env", "git status"),
    ("format.pretty", "%G?", "git show"),
    ("format.pretty", "%G?", "git log"),
    ("pretty.sig", "%GS", "git stash list"),
    ("log.mailmap", "true", "git log"),
    ("core.sparseCheckout", "true", "git status"),
    ("core.splitIndex", "true", "git status"),
    ("notes.displayRef", "refs/notes/*", "git log"),
    ("gpg.format", "ssh", "git log"),
    ("gpg.ssh.allowedSignersFile", ".env", "git log"),
    ("user.signingKey", "/home/u/.ssh/id_ed25519", "git status"),
    ("url.https://evil.example/.insteadOf", "https://github.com/", "git remote -v"),
    ("http.sslCAInfo", ".env", "git status"),
    ("remote.origin.promisor", "true", "git log -p"),
    ("remote.origin.partialCloneFilter", "blob:none", "git log -p"),
    ("status.submoduleSummary", "true", "git status"),
    ("submodule.recurse", "true", "git status"),
    ("core.sharedRepository", "group", "git status"),
]


@pytest.mark.parametrize(("key", "value", "line"), READS_A_FILE)
def test_a_key_not_known_harmless_for_the_subcommand_asks_naming_it_and_its_file(
    tmp_path: Path, key: str, value: str, line: str
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hi\n", ".env": "KEY=1\n"})
    set_config(repo, key, value)
    a = analyze(line, workspace(repo))
    assert not a.auto and a.rendered is None
    assert key.lower() in a.git_reason.lower()
    assert str(repo / ".git" / "config") in a.git_reason
    assert "harmless" in a.git_reason


@pytest.mark.parametrize(
    ("section", "asks"),
    [
        ("[Mailmap]\n\tFile = .env\n", True),
        ("[MAILMAP]\n\tfile = .env\n", True),
        ('[blame "x"]\n\tignoreRevsFile = .env\n', True),
        ('[core "x"]\n\tfilemode = true\n', True),  # a plain key under a subsection is another key
        ('[diff "x"]\n\trenames = true\n', True),
        ('[Remote "Origin"]\n\tURL = https://example.com/x.git\n', False),
        ('[remote "a.b"]\n\turl = https://example.com/x.git\n', False),
        ("[branch.Main]\n\tremote = origin\n", False),
        ("[CORE]\n\tBare = false\n", False),
        ("[core]\n\tbare\n", True),  # a key without a value is true
        ("[alias]\n\tst = !touch x\n", False),  # git never runs an alias named like its own command
    ],
)
def test_keys_in_odd_case_or_with_subsections_are_judged_as_git_reads_them(
    tmp_path: Path, section: str, asks: bool
) -> None:
    repo = make_repo(tmp_path / "repo")
    with open(repo / ".git" / "config", "a") as f:
        f.write(section)
    reason = probe_git(workspace(repo), ".", strict=False, subcommands=frozenset({"log"}))
    assert bool(reason) is asks, reason


@pytest.mark.parametrize(
    ("key", "value", "asks_for", "runs_for"),
    [
        ("format.pretty", "%GS", "git log -n 1", "git status"),
        ("pretty.sig", "%G?", "git stash list", "git branch -a"),
        ("format.pretty", "%G?", "git show HEAD", "git diff"),
        ("status.submoduleSummary", "true", "git status", "git log -n 1"),
    ],
)
def test_a_key_harmless_for_one_subcommand_asks_for_the_one_that_uses_it(
    tmp_path: Path, key: str, value: str, asks_for: str, runs_for: str
) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, key, value)
    ws = workspace(repo)
    assert analyze(runs_for, ws).auto
    assert key.lower() in analyze(asks_for, ws).git_reason.lower()
    both = analyze(f"{runs_for} && {asks_for}", ws)
    assert not both.auto and key.lower() in both.git_reason.lower()


def test_without_a_subcommand_only_keys_harmless_for_all_of_them_pass(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, "format.pretty", "%G?")
    ws = workspace(repo)
    assert "format.pretty" in probe_git(ws, ".", strict=False)
    assert probe_git(ws, ".", strict=False, subcommands=frozenset({"status"})) == ""


# What `git clone https://github.com/o/r` writes.
CLONED = """[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = true
[remote "origin"]
\turl = https://github.com/o/r.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[branch "main"]
\tremote = origin
\tmerge = refs/heads/main
"""
# ... and what a clone worked in (a Mac checkout, a fork, gh, VS Code, a few settings) adds.
WORKED_IN = (
    CLONED
    + """[core]
\tignorecase = true
\tprecomposeunicode = true
\tautocrlf = input
[remote "origin"]
\tgh-resolved = base
[remote "fork"]
\turl = git@github.com:me/r.git
\tfetch = +refs/heads/*:refs/remotes/fork/*
[branch "feature/x"]
\tremote = fork
\tmerge = refs/heads/feature/x
\tvscode-merge-base = origin/main
[user]
\tname = Someone
\temail = someone@example.com
[init]
\tdefaultBranch = main
[pull]
\trebase = true
[color]
\tui = auto
[pager]
\tbranch = false
[alias]
\tst = status -sb
[maintenance]
\tauto = false
\tstrategy = incremental
"""
)
USUAL_CONFIGS = {"a GitHub clone": CLONED, "a clone worked in": WORKED_IN}


@pytest.mark.parametrize("name", USUAL_CONFIGS)
@pytest.mark.parametrize(
    "line", ["git status", "git log --oneline -5", "git diff", "git branch -a", "git remote -v"]
)
def test_a_usual_repository_config_still_runs_unasked(tmp_path: Path, name: str, line: str) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / ".git" / "config").write_text(USUAL_CONFIGS[name])
    a = analyze(line, workspace(repo))
    assert a.auto, a.git_reason


def test_a_repository_with_a_checked_out_submodule_still_runs_unasked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    config = add_submodule(repo, tmp_path / "src")
    main = (repo / ".git" / "config").read_text()
    assert "[submodule" in main and "worktree" in config.read_text()
    ws = workspace(repo)
    for line in ("git status", "git log -p -n 1", "git ls-files", "git show HEAD"):
        assert analyze(line, ws).auto, (line, analyze(line, ws).git_reason)


@pytest.mark.parametrize(
    ("key", "value"), [("core.fsmonitor", "false"), ("mailmap.file", "../../../.env"), ("core.pager", "cat")]
)
def test_a_submodule_config_meets_the_allow_list_without_the_neutral_overrides(
    tmp_path: Path, key: str, value: str
) -> None:
    repo = make_repo(tmp_path / "repo")
    config = add_submodule(repo, tmp_path / "src")
    git(repo, "config", "--file", str(config), key, value)
    reason = probe_git(workspace(repo), ".", strict=False, subcommands=frozenset({"status"}))
    assert "a submodule's config" in reason and key.lower() in reason.lower() and str(config) in reason


def test_an_included_file_meets_the_allow_list_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, {"extra.cfg": "[mailmap]\n\tfile = .env\n"})
    set_config(repo, "include.path", "../extra.cfg")
    reason = analyze("git log", workspace(repo)).git_reason
    assert "mailmap.file" in reason and str(repo / "extra.cfg") in reason


def test_a_line_run_as_typed_is_judged_by_what_runs_programs(tmp_path: Path) -> None:
    """A line that will run as typed is one a person or a rule approved, whatever its subcommand:
    the probe asks only for what runs a program (the allow-list is for lines run unasked)."""
    repo = make_repo(tmp_path / "repo")
    set_config(repo, "mailmap.file", ".env")
    ws = workspace(repo)
    assert probe_git(ws, ".", strict=True) == ""
    assert "mailmap.file" in probe_git(ws, ".", strict=False, subcommands=frozenset({"log"}))
    set_config(repo, "core.editor", "vim")
    assert "core.editor" in probe_git(ws, ".", strict=True)


# What git reads inside the git directory must be regular files and directories (issue 12, class 3).
def _replace_with_link(path: Path, target: str) -> None:
    if path.is_dir() and not path.is_symlink():  # objects/ab holds the commit one run in 256
        shutil.rmtree(path)
    path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))


# A link in the git directory, by its name there, and where it leads.
LINKS_IN_GITDIR = {
    "packed-refs": "../.env",
    "info/exclude": "/etc/passwd",
    "refs/heads/x": "../../../.env",
    "shallow": "../.env",
    "info/grafts": "/etc/hostname",
    "logs/HEAD": "../../.env",
    "objects/info/alternates": "../../../.env",
    "objects/ab": "/tmp",
    "objects/pack/pack-1.pack": "/etc/passwd",
    "index": "../.env",
}


def _hard_link(git_dir: Path, name: str) -> None:
    (git_dir / name).unlink(missing_ok=True)
    os.link(git_dir.parent / ".env", git_dir / name)


# Files that are not links but git must not read: what they are, and the words of the refusal.
ODD_FILES: dict[str, tuple[Callable[[Path], object], str]] = {
    "alternates naming another repository": (
        lambda g: (g / "objects" / "info" / "alternates").write_text("/tmp/other/.git/objects\n"),
        "another directory",
    ),
    "commondir": (lambda g: (g / "commondir").write_text("../other/.git\n"), "another directory"),
    "a FIFO": (lambda g: os.mkfifo(g / "FETCH_HEAD"), "FIFO"),
    "a FIFO as a loose ref": (lambda g: os.mkfifo(g / "refs" / "heads" / "x"), "FIFO"),
    "a socket": (lambda g: _socket(g / "fsmonitor--daemon.ipc"), "socket"),
    "packed-refs hard-linked to .env": (lambda g: _hard_link(g, "packed-refs"), "hard links"),
    "info/exclude hard-linked to .env": (lambda g: _hard_link(g, "info/exclude"), "hard links"),
}


def _asks_everywhere(repo: Path, words: str) -> None:
    ws = workspace(repo)
    for line in ("git status", "git rev-parse HEAD", "git log -n 1"):
        a = analyze(line, ws)
        assert not a.auto and a.rendered is None, line
        assert words in a.git_reason and str(repo / ".git") in a.git_reason
    assert words in probe_git(ws, ".", strict=True)  # a line run as typed reads the same files


@pytest.mark.parametrize(("name", "target"), LINKS_IN_GITDIR.items())
def test_a_link_inside_the_git_directory_asks(tmp_path: Path, name: str, target: str) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hi\n", ".env": "KEY=1\n"})
    _replace_with_link(repo / ".git" / name, target)
    _asks_everywhere(repo, "symbolic link")


@pytest.mark.parametrize("name", ODD_FILES)
def test_an_odd_file_inside_the_git_directory_asks(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hi\n", ".env": "KEY=1\n"})
    make, words = ODD_FILES[name]
    make(repo / ".git")
    _asks_everywhere(repo, words)


def test_a_link_inside_a_submodules_git_directory_asks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hi\n", ".env": "KEY=1\n"})
    config = add_submodule(repo, tmp_path / "src")
    _replace_with_link(config.parent / "packed-refs", "../../../.env")
    assert "symbolic link" in analyze("git status", workspace(repo)).git_reason


def test_a_link_in_the_git_directory_above_the_workspace_asks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/a.go": "package a\n"})
    _replace_with_link(repo / ".git" / "packed-refs", "/etc/passwd")
    assert "symbolic link" in analyze("git status", workspace(repo / "pkg")).git_reason


@pytest.mark.parametrize(
    "name",
    ["a linked hook", "hard-linked objects of a local clone", "a linked worktree", "alternates of comments"],
)
def test_what_git_does_itself_in_the_git_directory_still_runs_unasked(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / "repo")
    if name == "a linked hook":
        os.symlink("../../scripts/pre-commit", repo / ".git" / "hooks" / "pre-commit")
    elif name == "hard-linked objects of a local clone":
        git(tmp_path, "clone", "-q", str(repo), "clone")
        repo = tmp_path / "clone"
        objects = [p for p in (repo / ".git" / "objects").rglob("*") if p.is_file()]
        assert any(p.stat().st_nlink > 1 for p in objects), "git did not hard-link: the test proves nothing"
    elif name == "a linked worktree":
        git(repo, "worktree", "add", "-q", str(tmp_path / "other"))
        assert (repo / ".git" / "worktrees" / "other" / "commondir").exists()
    else:
        (repo / ".git" / "objects" / "info" / "alternates").write_text("# none\n\n")
    for line in ("git status", "git log -n 1", "git branch -a"):
        a = analyze(line, workspace(repo))
        assert a.auto, (line, a.git_reason)


def test_a_git_directory_too_large_to_walk_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    monkeypatch.setattr("bastion.workspace._gitdir.MAX_ENTRIES", 5)
    assert "entries to check" in probe_git(workspace(repo), ".", strict=False)


def test_a_link_made_deep_in_the_git_directory_changes_the_fingerprint_and_the_cached_answer(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hi\n", ".env": "KEY=1\n"})
    git(repo, "branch", "topic/a")
    ws = Recording(str(repo), GIT_ENV)
    before = git_fingerprint(ws, ".")
    assert probe_git(ws, ".", strict=False, subcommands=frozenset({"status"})) == ""
    assert ws.spawns == 0  # git's config read from its files (analyzer/git/_configread.py)
    assert git_fingerprint(ws, ".") == before and ws.spawns == 0
    _replace_with_link(repo / ".git" / "refs" / "heads" / "topic" / "a", "../../../../.env")
    assert git_fingerprint(ws, ".") != before
    assert "symbolic link" in probe_git(ws, ".", strict=False, subcommands=frozenset({"status"}))


def test_alternates_written_in_place_change_the_fingerprint(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    alternates = repo / ".git" / "objects" / "info" / "alternates"
    alternates.write_text("")
    ws = workspace(repo)
    before = git_fingerprint(ws, ".")
    assert probe_git(ws, ".", strict=False) == ""
    with open(alternates, "a") as f:
        f.write("/tmp/other/objects\n")
    assert git_fingerprint(ws, ".") != before
    assert "another directory" in probe_git(ws, ".", strict=False)


PLAIN_HARMLESS = ["core.filemode", "user.email", "init.defaultbranch", "diff.renames", "log.date"]
SUBSECTION_HARMLESS = ["remote.origin.url", "branch.main.merge", "submodule.lib.url"]


def _verdict(key: str, subcommands: frozenset[str] = frozenset({"status", "log"})) -> str:
    entry = Entry("local", "/repo/.git/config", key, "x")
    origins = frozenset({"/repo/.git/config"})
    found = judge_entries([entry], origins, "/home/u", strict=False, subcommands=subcommands)
    return "" if found is None else found.reason


def _recase(text: str, flips: list[bool]) -> str:
    flips = flips + [False] * len(text)
    return "".join(c.upper() if flip else c for c, flip in zip(text, flips, strict=False))


@given(st.sampled_from(PLAIN_HARMLESS + SUBSECTION_HARMLESS), st.lists(st.booleans(), max_size=40))
@settings(max_examples=200, deadline=None)
def test_section_and_variable_are_read_in_any_case_as_git_does(key: str, flips: list[bool]) -> None:
    section, _, rest = key.partition(".")
    sub, _, variable = rest.rpartition(".")
    recased = ".".join(p for p in (_recase(section, flips), sub, _recase(variable, flips[::-1])) if p)
    assert _verdict(recased) == ""


@given(st.sampled_from(PLAIN_HARMLESS), st.text(alphabet="abcXYZ.-_ ", min_size=1, max_size=8))
@settings(max_examples=200, deadline=None)
def test_a_harmless_key_under_a_subsection_is_another_key_and_asks(key: str, sub: str) -> None:
    section, _, variable = key.partition(".")
    assert f"{section}.{sub}.{variable}" in _verdict(f"{section}.{sub}.{variable}")


@given(
    st.from_regex(r"[a-z][a-z0-9-]{0,11}", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9]{0,15}", fullmatch=True),
)
@settings(max_examples=300, deadline=None)
def test_a_key_off_the_list_asks_naming_itself_and_its_file(section: str, variable: str) -> None:
    key = f"{section}.{variable}"
    listed = key in _HARMLESS or f"{section}.*" in _HARMLESS or section in ("color", "pager", "alias")
    if not listed and key not in _NEUTRALISED:
        reason = _verdict(key, frozenset({"status"}))
        assert key in reason and "/repo/.git/config" in reason
