"""Matchers: the command glob with its word-boundary `:*`, path globs, aliases and carve-outs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bastion.grammar import Stage, Word, shown
from bastion.policy import Decision, Kind, Layer, Policy, Subject, mcp_subjects

# Private: the rule matchers' compilers are the thing tested.
from bastion.policy._match import clean_path_pattern, compile_command, compile_glob

ROOT = "/home/me/project"


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("go test:*", "go test ./...", True),
        ("go test:*", "go test", True),
        ("go test:*", "go testing", False),
        ("ls:*", "ls -la", True),
        ("ls:*", "lsof", False),
        ("ls:*", "ls\t-la", False),
        (":*", "", True),
        (":*", "anything at all", True),
        ("*", "a b/c", True),
        ("ls *", "ls", False),
        ("ls *", "ls -la", True),
        ("ls*", "lsof -i", True),
        ("* --version", "node --version", True),
        ("git log * main", "git log --oneline main", True),
        ("git push * main", "git push origin main-backup", False),
        ("git * main:*", "git push origin main --force", True),
        ("git * main:*", "git push origin mainline", False),
        ("*.env", "cat .env", True),
        ("git status", "Git status", False),
        ("a.b", "axb", False),
        ("a+b", "a+b", True),
        ("echo:*", "echo a\nrm -rf x", True),
    ],
)
def test_the_command_glob_matches_as_the_reference_does(pattern: str, value: str, matches: bool) -> None:
    assert compile_glob(pattern)(value) is matches


def test_a_matcher_compiles_its_regex_when_first_used() -> None:
    matcher = compile_glob("git lazy:*")
    assert matcher._regex is None and matcher.source == r"git\ lazy(?: .*)?"
    assert matcher("git lazy -x") and matcher.regex.pattern == matcher.source


@pytest.mark.parametrize(
    ("pattern", "cleaned"),
    [
        ("./docs/**", "docs/**"),
        ("a/../.env", ".env"),
        (f"{ROOT}/secrets/**", "secrets/**"),
        (ROOT, "."),
        ("/etc/**", "/etc/**"),
        ("docs/", "docs"),
    ],
)
def test_a_path_pattern_is_cleaned_as_subject_paths_are(pattern: str, cleaned: str) -> None:
    assert clean_path_pattern(pattern, [ROOT]) == cleaned


def _allowed(rules: list[str], subject: Subject) -> bool:
    policy = Policy([Layer.user("u.toml", allow=rules)], builtin=False, roots=[ROOT])
    return policy.decide([subject]).decision is Decision.ALLOW


@pytest.mark.parametrize(
    ("rule", "tool", "value", "allowed"),
    [
        ("write(docs/**)", "write", "docs/a/b.md", True),
        ("write(docs/**)", "write", "docs", False),
        ("write(docs/**)", "write", "src/a.go", False),
        ("read(*.pem)", "read", "x/y/cert.pem", True),
        ("read(id_*)", "read", "id_rsa", True),
        ("read(id_*)", "read", "keys/id_rsa", False),
        ("read(.env)", "read", ".ENV", False),
        ("read(ci:.env)", "read", ".env", False),
        ("read(./.env)", "read", ".env", True),
        (f"read({ROOT}/notes/**)", "read", "notes/a.txt", True),
        ("Read(config/*.pem)", "grep", "config/server.pem", True),
        ("Read(config/*.pem)", "ls", "config/server.pem", True),
        ("Read(config/*.pem)", "write", "config/server.pem", False),
        ("Edit", "write", "x", True),
        ("Edit", "edit", "x", True),
        ("Write", "edit", "x", False),
        ("Bash(git status:*)", "bash", "git status", True),
        ("BASH", "bash", "ls", False),
        ("bash", "bash", "anything", True),
    ],
)
def test_a_user_allow_rule_reaches_what_its_pattern_and_alias_name(
    rule: str, tool: str, value: str, allowed: bool
) -> None:
    assert _allowed([rule], Subject(tool, value)) is allowed


@pytest.mark.parametrize(
    ("rules", "value", "allowed"),
    [
        (["bash"], "git status; rm x", True),
        (["bash(:*)"], "git status; rm x", True),
        (["bash(*)"], "git status; rm x", True),
        (["bash(git:*)"], "git stash pop", False),
        (["bash(* pop)"], "git stash pop", False),
        (["bash(*pop)"], "git stash pop", False),
    ],
)
def test_a_sentinel_is_allowed_only_by_a_bare_rule_or_one_that_matches_everything(
    rules: list[str], value: str, allowed: bool
) -> None:
    assert _allowed(rules, Subject("bash", value, kind=Kind.UNCHECKED)) is allowed


@pytest.mark.parametrize(
    ("deny", "value", "decision"),
    [
        (
            ["bash(git push * main)", "bash(!git push --dry-run main)"],
            "git push --force origin main",
            Decision.DENY,
        ),
        (
            ["bash(git push * main)", "bash(!git push --dry-run main)"],
            "git push --dry-run main",
            Decision.ALLOW,
        ),
        (
            ["bash(git push * main)", "bash(!git push --dry-run main)"],
            "git push origin feature",
            Decision.ALLOW,
        ),
        (["bash(rm:*)", "bash(!:*)"], ("rm x; true", Kind.UNCHECKED), Decision.ALLOW),
        (["bash(rm:*)", "bash(!rm *)"], "rm x", Decision.ALLOW),
    ],
)
def test_a_carve_out_cancels_the_rules_of_its_own_list(
    deny: list[str], value: str | tuple[str, Kind], decision: Decision
) -> None:
    policy = Policy([Layer.user("u.toml", deny=deny)], fallback=Decision.ALLOW)
    subject = Subject("bash", value) if isinstance(value, str) else Subject("bash", value[0], kind=value[1])
    assert policy.decide([subject]).decision is decision


def test_a_tool_name_glob_in_a_deny_list_reaches_every_tool_it_names() -> None:
    policy = Policy([Layer.user("u.toml", allow=["mcp(fs:read)"], deny=["mcp__*"])])
    subjects = mcp_subjects("mcp__fs__read", {})
    assert subjects is not None
    assert policy.decide(subjects).decision is Decision.DENY
    assert policy.decide([Subject("mcp__fs__read", "")]).decision is Decision.DENY
    assert policy.decide([Subject("bash", "git status")]).decision is Decision.ALLOW


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("ls:*", "'ls /../evil.sh'", False),
        ("ls*", "'ls /../evil.sh'", False),
        ("l*", "'ls x'", False),
        ("ls*", "ls/../evil.sh", False),
        ("ls:*", "/bin/ls -l", False),
        ("ls*", "lsof -i", True),
        ("ls:*", "ls 'a b'", True),
        ("git *", "'git status' x", False),
        ("git status:*", "git 'status --short'", False),
        ("cat a:*", "cat 'a b'", False),
        ("cat *.txt", "cat 'a b.txt'", False),
        ("cat *.txt*", "cat 'a b.txt'", True),
        ("./evil.sh:*", "./evil.sh -x", True),
        ("/bin/ls:*", "/bin/ls -l", True),
        ("'ls x':*", "'ls x' -l", True),
        ("*", "'ls /../evil.sh'", True),
        ("* --version", "./evil.sh --version", True),
        ("*.sh", "'ls /../evil.sh'", False),
        ("*.sh'", "'ls /../evil.sh'", True),
    ],
)
def test_a_command_rule_written_for_a_name_matches_only_a_name(
    pattern: str, value: str, matches: bool
) -> None:
    assert compile_command(pattern)(value) is matches


def test_a_rule_for_a_name_keeps_to_names_among_every_rule_of_its_list() -> None:
    rules = ["bash(make)", "bash(ls:*)", "bash(./run.sh:*)"]
    assert not _allowed(rules, Subject("bash", "'ls /../evil.sh'"))
    assert _allowed(rules, Subject("bash", "ls -l")) and _allowed(rules, Subject("bash", "./run.sh x"))


@given(st.text(min_size=1), st.lists(st.text(), max_size=3), st.sampled_from(["ls", "git", "a.b", "c++"]))
def test_a_name_rule_with_the_boundary_matches_exactly_when_the_first_word_is_the_name(
    first: str, rest: list[str], name: str
) -> None:
    value = Stage(tuple(Word(w) for w in (first, *rest))).text
    assert compile_command(f"{name}:*")(value) is (first == name)
    if compile_command(f"{name[0]}*")(value):
        assert first.startswith(name[0]) and "/" not in first and shown(first) == first
