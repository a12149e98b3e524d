"""Issue 12: a hostile repository gets no read, no write and no program out of an allowed line.

Each class has attacks (fixture, who runs the allowed line, line) run by the execution oracle of
property 2: today's fixes make them pass; a class whose fix is not merged yet is an xfail naming it
(strict: the lead removes the class from UNFIXED when its fix lands). Run ungated, the same attacks
must do harm the oracle sees, so that a passing case means a refusal or a neutralised run, not a
fixture that lost its teeth. The long runs are `fuzz/readonly.py --fixtures all` (docs/soundness.md).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.policy import Decision
from fuzz.execution import Fixture, ReadOnlyRunner
from fuzz.fixtures import scratch_env
from fuzz.hostile import CLASSES, UNFIXED, VARIANTS
from fuzz.strategies import hostile_lines

ATTACKS: dict[int, tuple[tuple[Fixture, str, str], ...]] = {
    1: ((None, "bastion", "'ls /../evil.sh'"), (None, "claude", "\"cat /../evil.sh\" main.go")),
    2: (("key:blame.ignoreRevsFile", "bastion", "git blame main.go"),
        ("key:mailmap.file@outside", "bastion", "git shortlog -s HEAD"),
        ("key:core.excludesFile", "bastion", "git status")),
    3: (("link:packed-refs", "bastion", "git log --oneline"),
        ("link:info/exclude@outside", "bastion", "git status"),
        ("alternates@outside", "bastion", "git log --oneline")),
    4: ((None, "bastion", "git show"), (None, "bastion", "git diff --stat"),
        ("no-repository", "bastion", "git diff sub other"),
        (None, "bastion", "git status -vv -- main.go"),  # status's verbose diff ignores the pathspec
        ("tracked-dir-link@outside", "bastion", "git grep -e e"),  # grep follows the link out
        # ls-files --eol opens every tracked file it lists by its path, through the link
        ("tracked-dir-link@outside", "bastion", "git ls-files --eol"),
        ("tracked-dir-link@outside", "claude", "git ls-files --eol | sort -u")),
    # status's verbose diff enters the submodule despite --ignore-submodules=all (and shows .env)
    5: (("embedded", "bastion", "git stash list -p"), ("embedded", "bastion", "git status -vv -- '*.go'"),
        # issue 20: status and diff show submodules only when every one was probed clean
        ("submodule-nested", "bastion", "git status"), ("submodule-gitdir@outside", "claude", "git diff"),
        ("submodule-clean", "claude", "git status")),
    6: ((None, "claude", "git status"),),
    7: (("big-history", "bastion", "git show | sort"), (None, "bastion", "go env GOGCCFLAGS"),
        (None, "bastion", "go env CGO_LDFLAGS")),
    # issue 30: a name that reaches the committed .env's blob, credentials at rest, a fresh index
    31: (("ref:packed-refs", "bastion", "git show packed"), ("ref:tags", "claude", "git show annotated"),
         ("ref:stash", "bastion", "git show 'stash@{0}'"), ("ref:notes", "bastion", "git log -1"),
         ("ref:notes", "claude", "git log --all -p"),
         ("ref:reflog", "bastion", "git cat-file -p 'leak@{0}^{tree}'"), ("ref:HEAD", "bastion", "git show"),
         ("ref:FETCH_HEAD", "claude", "git grep -e KEY FETCH_HEAD"),
         ("ref:replace", "claude", "git show HEAD")),
    32: (("credentials:remote", "claude", "git remote -v"),
         ("credentials:insteadOf", "claude", "git remote -v"),
         ("credentials:remote", "claude", "git config --get remote.origin.url"),
         ("credentials:remote", "bastion", "git remote -v"),
         ("credentials:remote", "bastion", "cat .git/config"),
         ("credentials:worktree", "bastion", "grep -r CANARY .git/"),
         ("credentials:submodule", "claude", "sed -n 1,9p .git/modules/m/config")),
    33: (("fresh-index", "bastion", "git status"), ("fresh-index", "claude", "git status -s"),
         ("fresh-index", "bastion", "git ls-files --eol"), ("fresh-index", "claude", "git -C sub status")),
    # issue 30: listers and walkers around secret-looking directories; a program of the workspace on PATH
    304: tuple(("secret-directories", agent, line) for agent, line in (
        ("bastion", "ls -R"), ("claude", "find . -name '*'"), ("bastion", "du -a"), ("claude", "tree -a"),
        ("bastion", "ls -la .ssh/keys"), ("bastion", "ls */"), ("bastion", "cd secrets && ls -R"),
        ("bastion", "find sshlink"))),
    305: (("path-relative", "bastion", "cat main.go"), ("path-inside", "claude", "ls -la"),
          ("path-inside", "bastion", "tree -L 1 && file main.go"),
          ("path-relative", "claude", "which cat && echo hi"),
          ("path-inside", "bastion", "git status && head -n 1 README.md"),
          ("path-relative", "bastion", "test -f x")),
    # issue 33: git ls-files | xargs, names split on a blank, a file swapped for a link, a gitlink
    331: (("tracked-names", "bastion", "git ls-files 'x ' | xargs cat"),
          ("tracked-names", "claude", "git ls-files 'x ' | xargs cat"),
          ("tracked-names", "bastion", "git ls-files names | xargs grep -c ."),
          ("tracked-names", "bastion", "git ls-files swap.txt | xargs cat"),
          ("tracked-names", "claude", "git ls-files tlink.txt | xargs cat"),
          ("tracked-names", "bastion", "git ls-files gl | xargs cat"),
          ("tracked-names", "bastion", "git ls-files 'notes .env x.go' | xargs cat"),
          (None, "claude", "git ls-files dash docs | xargs wc -l")),
    # filter drivers of the run environment's config, chosen by the repository's attributes
    433: (("filter:user", "bastion", "git status"), ("filter:nbstripout", "claude", "git diff"),
          ("filter:system-lfs", "bastion", "git status -s"),
          ("filter:include", "claude", "git blame main.go"),
          ("filter:info-attributes", "bastion", "git diff --stat"),
          ("filter:names", "claude", "git status"), ("filter:command-scope", "claude", "git status"),
          ("filter:command-scope", "bastion", "git diff")),
    # issue 43: a variable where the plan runs that loads the project's code
    434: (("env-library-path", "claude", "ls -la"),
          ("env-library-path", "bastion", "ls -la && grep -c a main.go"),
          ("env-pythonpath", "claude", "mypy --version"), ("env-pythonpath", "bastion", "mypy --version"),
          ("env-bash-env", "claude", "echo hi"), ("env-bash-env", "bastion", "cat main.go"),
          ("env-library-path", "claude", "git status")),
}  # fmt: skip
# File tool calls (tool, arguments): class 7's grep tool reading secrets below a directory, class
# 32's read and grep of the git directory's config files.
TOOL_ATTACKS: dict[int, tuple[tuple[Fixture, str, dict[str, object]], ...]] = {
    7: ((None, "grep", {"pattern": "KEY", "path": "."}), (None, "grep", {"pattern": "C", "path": "sub/up"})),
    32: (("credentials:remote", "read", {"path": ".git/config"}),
         ("credentials:config.worktree", "read", {"path": ".git/config.worktree"}),
         ("credentials:remote", "grep", {"pattern": "CANARY", "path": ".git"}),
         ("credentials:worktree", "grep", {"pattern": "url", "path": ".git/"})),
    304: tuple(("secret-directories", tool, dict[str, object](args)) for tool, args in (
        ("glob", {"pattern": "**"}), ("glob", {"pattern": ".ssh/**"}),
        ("grep", {"pattern": "CANARY", "path": "."}), ("grep", {"pattern": ".", "path": "sub"}),
        ("ls", {"path": "sshlink"}))),
}  # fmt: skip


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> ReadOnlyRunner:
    return ReadOnlyRunner(tmp_path_factory.mktemp("hostile"), hostile=())


def _plain(runner: ReadOnlyRunner, fixture: Fixture = None) -> dict[str, str]:
    """The environment a line runs in as typed (with the variant's PATH and variables, if it has any)."""
    variant = VARIANTS.get(fixture) if isinstance(fixture, str) else None
    path = variant.path(runner._ws(fixture)) if variant is not None and variant.path is not None else None
    env = scratch_env(runner.work / "home", runner.work / "tmp", path)
    return {**env, **(variant.env(runner._ws(fixture)) if variant is not None and variant.env else {})}


def _case(klass: int) -> object:
    unfixed = pytest.mark.xfail(strict=True, reason=f"issue 12 class {klass} not merged")
    return pytest.param(klass, marks=[unfixed] if klass in UNFIXED else [], id=f"class-{klass}")


@pytest.mark.parametrize("klass", [_case(k) for k in ATTACKS])
def test_a_hostile_repository_gets_nothing_from_an_allowed_line(hostile: ReadOnlyRunner, klass: int) -> None:
    failed = []
    for fixture, agent, line in ATTACKS[klass]:
        outcome = hostile.check(line, fixture, agent)
        if outcome.problems:
            failed.append((fixture, agent, line, outcome.problems[:2]))
    for fixture, tool, args in TOOL_ATTACKS.get(klass, ()):
        outcome = hostile.check_tool(tool, args, fixture)
        if outcome.problems:
            failed.append((fixture, "tool", outcome.line, outcome.problems[:2]))
    assert failed == [], CLASSES[klass]


@pytest.mark.parametrize("klass", list(ATTACKS), ids=[f"class-{k}" for k in ATTACKS])
def test_each_attack_does_harm_the_oracle_sees_when_run_ungated(hostile: ReadOnlyRunner, klass: int) -> None:
    fixture, _, line = ATTACKS[klass][0]
    ws = hostile._ws(fixture)
    problems = hostile._run(ws, line, _plain(hostile, fixture), {"git", "go", "ls", "cat"}, line)
    hostile.scratch.pop(fixture, None)
    assert problems, f"class {klass}: {line!r} in {fixture} did no harm the oracle sees"


_FIXTURES = (
    None, "key:diff.orderFile", "link:packed-refs", "embedded", "no-repository", "big-history",
    "secret-directories", "path-inside", "tracked-names",
)  # fmt: skip


@pytest.mark.xfail(bool(UNFIXED), strict=True, reason=f"issue 12 classes {sorted(UNFIXED)} not merged")
@settings(
    max_examples=30,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(hostile_lines(), st.sampled_from(_FIXTURES), st.sampled_from(["bastion", "bastion", "claude"]))
def test_an_allowed_attack_line_gets_nothing(
    hostile: ReadOnlyRunner, line: str, fixture: Fixture, agent: str
) -> None:
    outcome = hostile.check(line, fixture, agent)
    assert outcome.problems == [] or outcome.decision is not Decision.ALLOW, outcome


def test_every_secret_holds_a_canary_the_oracle_finds(hostile: ReadOnlyRunner) -> None:
    ws = hostile._ws(None)
    for name in (".env", "id_rsa", "secrets/token.txt", "../outside/secret.txt", "notes.txt"):
        problems = hostile._run(ws, f"cat {name}", _plain(hostile), {"cat"}, f"cat {name}")
        assert any("canary" in p for p in problems) and any("read of a secret" in p for p in problems), name
