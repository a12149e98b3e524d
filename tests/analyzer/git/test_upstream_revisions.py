"""Issue 33's git forms: `git count-objects` and the upstream revisions (`@{u}`, `@{upstream}`,
`HEAD@{push}`), unquoted as agents type them. The risk: an upstream that names a secret's blob
(a hand-written ref) printed by show, log or diff; or a word bash would brace-expand read as one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bastion.analyzer import analyze
from bastion.grammar import Outside, parse
from bastion.workspace import LocalWorkspace
from tests.analyzer.gitrepo import git, make_repo, workspace

CANARY = "CANARY-33-upstream"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(
        tmp_path_factory.mktemp("git33") / "repo", {"README.md": "# hi\n", ".env": f"{CANARY}\n"}
    )
    blob = git(root, "rev-parse", "HEAD:.env").strip()
    git(root, "branch", "up")
    git(root, "branch", "--set-upstream-to=up")
    (root / ".git" / "refs" / "heads" / "up").write_text(blob + "\n")  # the upstream names the blob
    return root


RUNS = [
    "git count-objects",
    "git count-objects -v",
    "git count-objects -vH",
    "git count-objects --verbose --human-readable",
    "git rev-parse @{u}",
    "git rev-parse --abbrev-ref @{u}",
    "git rev-parse --abbrev-ref --symbolic-full-name @{upstream}",
    "git rev-parse --abbrev-ref HEAD@{u}",
    "git log --oneline @{u}..HEAD",
    "git log --oneline HEAD..@{u}",
    "git diff --stat @{u}",
    "git show @{u}",
    "git log -p @{upstream}",
]


@pytest.mark.parametrize("line", RUNS)
def test_the_form_runs_unasked_and_shows_no_secret_by_reference(repo: Path, line: str) -> None:
    a = analyze(line, workspace(repo))
    assert a.auto, [s.why for s in a.stages]
    assert a.rendered is not None
    done = subprocess.run(["bash", "-c", a.rendered], cwd=repo, capture_output=True, timeout=60, check=False)
    assert CANARY not in done.stdout.decode() + done.stderr.decode()


def test_an_upstream_is_peeled_where_git_prints_what_it_names(repo: Path) -> None:
    for line, peeled in (("git show @{u}", "'@{u}~0'"), ("git log -p @{u}..HEAD", "'@{u}~0..HEAD~0'")):
        a = analyze(line, workspace(repo))
        assert a.rendered is not None and peeled in a.rendered, a.rendered
    # the same upstream without the peel prints the blob (what the plan keeps from running)
    assert CANARY in git(repo, "show", "@{u}")


ASKS = [
    ("git count-objects x", "takes no names"),
    ("git count-objects -q", "an unknown flag"),
    ("git count-objects --prune", "an unknown flag"),
    ("git rev-list --count @{u}..HEAD", "rev-list is not a read-only form here"),
    ("git show --all", "every ref's object"),
]


@pytest.mark.parametrize(("line", "what"), ASKS, ids=[c[0] for c in ASKS])
def test_the_dangerous_sibling_asks(repo: Path, line: str, what: str) -> None:
    assert not analyze(line, workspace(repo)).auto, what


@pytest.mark.parametrize(
    "line",
    ["echo @{1..3}", "echo @{a,b}", "echo @{a.b}", "echo @{}", "echo @{u}~1", "echo {u}", "echo @{u}x{a,b}"],
)
def test_a_brace_bash_could_expand_stays_outside(line: str) -> None:
    assert isinstance(parse(line), Outside)


def test_an_upstream_word_is_the_word_bash_passes(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", "-c", "printf '%s\\n' @{u} HEAD@{-1} a@{u}b@{v}"], capture_output=True, text=True
    )
    plan = parse("printf x @{u} HEAD@{-1} a@{u}b@{v}")
    assert not isinstance(plan, Outside)
    assert [w.text for w in plan.stages[0].args[1:]] == done.stdout.split()
    assert analyze("git rev-parse @{u}", LocalWorkspace(str(tmp_path))).plan is not None
