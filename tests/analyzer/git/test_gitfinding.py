"""A git finding is a value: the key, the file that sets it and why, read by the audit from its fields
(a key whose subsection holds a space, which no pattern over the sentence reads whole, is grouped by
its whole name), its words made in one place."""

from __future__ import annotations

from pathlib import Path

from bastion.analyzer import GitFinding, analyze, find_git, probe_git
from bastion.audit import Call, Decider, Outcome
from tests.analyzer.gitrepo import git, make_repo, set_config, workspace, write


def test_a_key_that_runs_a_program_is_found_with_its_file_and_why(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, "core.editor", "vim")
    found = find_git(workspace(repo), ".", strict=True)
    config = str(repo / ".git" / "config")
    assert found == GitFinding("names a program git runs", "core.editor", config, "vim")
    words = f"the repository's config sets core.editor (in {config}): it names a program git runs"
    assert found.reason == words
    assert probe_git(workspace(repo), ".", strict=True) == found.reason


def test_an_include_git_did_not_read_is_found_as_an_include(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    set_config(repo, "include.path", "../missing.cfg")
    found = find_git(workspace(repo), ".", strict=False)
    assert found is not None and found.includes and found.key == "include.path"
    assert found.value == "../missing.cfg" and found.origin == str(repo / ".git" / "config")
    assert found.reason.startswith("the repository's config includes '../missing.cfg' (in ")


def test_a_git_directory_that_redirects_git_is_a_finding_without_a_key(tmp_path: Path) -> None:
    real = make_repo(tmp_path / "real")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").symlink_to(real / ".git")
    found = find_git(workspace(repo), ".", strict=False)
    assert found is not None and (found.key, found.origin) == ("", "")
    assert found.reason == found.why and "symbolic link" in found.why


def test_a_clean_repository_has_no_finding(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert find_git(workspace(repo), ".", strict=True) is None
    a = analyze("git status", workspace(repo))
    assert a.auto and a.git_finding is None and a.git_reason == ""


def test_the_analysis_carries_the_finding_and_the_audit_groups_by_its_whole_key(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "remote.my origin.uploadpack", "/bin/evil")
    a = analyze("git status", workspace(repo))
    assert a.git_finding is not None and a.git_finding.key == "remote.my origin.uploadpack"
    assert not a.auto and a.git_reason == a.git_finding.reason
    write(tmp_path, {"empty.toml": ""})
    decider = Decider(str(tmp_path / "empty.toml"), str(repo))
    outcome = decider.decide(Call("bash", {"command": "git status"}, "t:1"))
    assert isinstance(outcome, Outcome) and outcome.group == "git key remote.my origin.uploadpack"
