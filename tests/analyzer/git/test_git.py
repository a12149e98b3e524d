"""The git checker: read-only forms run unasked, every dangerous sibling asks, other subcommands are
left to the rules. Run through analyze() against a clean repository."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.agent.tools import AGENT_TOOLS, ToolContext
from bastion.analyzer import CHANGED_COMMAND, SECRET_PATHS, Analysis, Stamper, analyze

# Private: git's secret excludes and the plan's prefix are the private values the rendered plan must hold.
from bastion.analyzer._secrets import git_excludes, hidden_by
from bastion.analyzer.git._plan import GIT_PREFIX, UNSET_GIT_STEERING
from bastion.grammar import Word, render_word
from bastion.policy import STAMP_ARG, Decision, Gate, Policy, Subject, load_settings
from bastion.workspace import LocalWorkspace
from tests.analyzer.gitrepo import make_repo, workspace, write
from tests.contexts import tool_context
from tests.plans import by_name

FILES = {
    "README.md": "# hi\n",
    "main.go": "package main\n",
    "sub/a.go": "package sub\n",
    ".env": "KEY=1\n",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> LocalWorkspace:
    root = make_repo(tmp_path_factory.mktemp("git") / "repo", FILES)
    os.symlink(".env", root / "notes.txt")
    os.symlink("/etc/passwd", root / "outside")
    os.symlink("/etc", root / "etclink")
    return workspace(root)


def run(ws: LocalWorkspace, line: str) -> Analysis:
    a = analyze(line, ws)
    assert a.plan is not None, f"{line!r} is outside the subset: {a.outside}"
    return a


ALLOWED = [
    "git status",
    "git status -s",
    "git status -sb",
    "git status --porcelain=v2",
    "git status -uno",
    "git status --untracked-files=all",
    "git status sub",
    "git diff",
    "git diff HEAD~1",
    "git diff --cached",
    "git diff --stat=80",
    "git diff -U5",
    "git diff -U 5",
    "git diff -pw",
    "git diff -M50",
    "git show -U1 HEAD",
    "git stash list -3",
    "git diff HEAD -- README.md",
    "git diff main..HEAD",
    "git diff -S needle",
    "git diff -Sneedle",
    "git log",
    "git log --oneline -5",
    "git log -n 3",
    "git log -n3",
    "git log --format=%H%x20%s",
    "git log --pretty=format:%h",
    "git log --author alice",
    "git log --since=yesterday",
    "git log -S --output=x",
    "git log --graph --decorate --all",
    "git log -p -- main.go",
    "git log HEAD^",
    "git show",
    "git show HEAD --stat",
    "git branch",
    "git branch -a",
    "git branch -vv",
    "git branch --list 'feat*'",
    "git branch --merged main",
    "git branch --contains HEAD",
    "git rev-parse HEAD",
    "git rev-parse --show-toplevel",
    "git rev-parse --abbrev-ref HEAD",
    "git ls-files",
    "git ls-files -co --exclude-standard",
    "git ls-files --format='%(path)'",
    "git remote",
    "git remote -v",
    "git remote --verbose",
    "git blame main.go",
    "git blame -L 1,2 main.go",
    "git blame -L1,2 main.go",
    "git stash list",
    "git stash list --oneline",
    "git tag",
    "git tag -l",
    "git tag --list 'v1*'",
    "git tag -l --sort=-creatordate",
    "git describe --tags --always",
    "git shortlog -sn",
    "git shortlog -s -n HEAD",
    "git config --get user.name",
    "git config --get-all remote.origin.url",
    "git config --local --get branch.main.merge",
    "git config --get REMOTE.o.k.URL",
    "git status 2>&1",
    "git log --oneline >/dev/null",
]


@pytest.mark.parametrize("line", ALLOWED)
def test_a_read_only_git_form_runs_unasked(ws: LocalWorkspace, line: str) -> None:
    a = run(ws, line)
    assert a.auto, [s.why for s in a.stages] + [a.git_reason]
    assert all(s.check.git for s in a.stages)


ASKS = [
    # options before the subcommand move git or add config
    ("git -c core.pager=sh status", "before the subcommand"),
    ("git -C /etc status", "outside"),
    ("git -C sub -C .. status", "before the subcommand"),
    ("git --git-dir=/tmp/x log", "before the subcommand"),
    ("git --work-tree=/ status", "before the subcommand"),
    ("git --exec-path=/tmp log", "before the subcommand"),
    ("git --config-env=core.pager=X log", "before the subcommand"),
    ("git -p log", "before the subcommand"),
    ("git --paginate log", "before the subcommand"),
    ("git --no-pager log", "before the subcommand"),
    # writes, programs and files outside the checks
    ("git diff --output=x", "writes a file"),
    ("git diff --output x", "writes a file"),
    ("git log -o x", "writes a file"),
    ("git diff --ext-diff", "external diff"),
    ("git log -p --textconv", "conversion program"),
    ("git diff --no-index /etc/passwd README.md", "arbitrary files"),
    ("git blame --contents /etc/passwd main.go", "reads a file"),
    ("git diff -O/etc/passwd", "order file"),
    ("git diff -Oorder.txt", "order file"),
    ("git log --upload-pa=x", "not known to be read-only"),
    ("git log --output-directory=x", "not known to be read-only"),
    ("git log --format=%GG", "gpg"),
    ("git log '--pretty=format:%G?'", "gpg"),
    ("git show --format=%GK HEAD", "gpg"),
    ("git log --grep %GS", "gpg"),
    ("git log --pretty %h", "not known to be read-only"),
    ("git log -c", "not known to be read-only"),
    ("git diff -C", "not known to be read-only"),
    ("git log -n", "needs a value"),
    ("git diff -U HEAD:.env HEAD:README.md", "':'"),
    ("git log -p -U HEAD:.env", "':'"),
    ("git describe --abbrev HEAD:.env", "not known to be read-only"),
    ("git describe --match x HEAD:.env", "':'"),
    ("git status -5", "not known to be read-only"),
    ("git blame -5 main.go", "not known to be read-only"),
    ("git log -px", "not known to be read-only"),
    # a ':' names blobs and magic pathspecs
    ("git log -- :/x", "':'"),
    ("git diff :0:main.go", "':'"),
    ("git log -- ':(top)main.go'", "':'"),
    ("git diff main:cmd/x", "':'"),
    # paths outside the workspace
    ("git log -- /etc/passwd", "outside"),
    ("git diff ../x", ".."),
    ("git blame '~/x'", "~"),
    ("git log -- outside", "out of the working directory"),
    ("git diff etclink/passwd", "out of the working directory"),
    ("git log -- *.go", "glob"),
    ("git status ../x", ".."),
    # listing-only subcommands with writing forms
    ("git branch newbranch", "only listing"),
    ("git branch -D main", "not known to be read-only"),
    ("git branch -d main", "not known to be read-only"),
    ("git branch -m x", "not known to be read-only"),
    ("git branch --set-upstream-to=x", "not known to be read-only"),
    ("git branch --edit-description", "not known to be read-only"),
    ("git tag v1", "only listing"),
    ("git tag -a v1", "not known to be read-only"),
    ("git tag -d v1", "not known to be read-only"),
    ("git tag -s v1", "not known to be read-only"),
    ("git remote add x y", "only lists"),
    ("git remote -v update", "only lists"),
    ("git remote show origin", "only lists"),
    ("git stash", "only lists"),
    ("git stash pop", "only lists"),
    ("git stash list extra", "takes no names"),
    ("git rev-parse --git-path hooks", "not known to be read-only"),
    ("git rev-parse --parseopt", "not known to be read-only"),
    ("git rev-parse --local-env-vars", "not known to be read-only"),
    ("git ls-files --exclude-from=x", "not known to be read-only"),
    ("git ls-files --recurse-submodules", "a git of its own"),
    ("git ls-files -X x", "not known to be read-only"),
    ("git blame -S revs main.go", "not known to be read-only"),
    ("git blame -C main.go", "not known to be read-only"),
    ("git describe --tags --match", "needs a value"),
    ("git describe --dirty", "a git of their own"),
    ("git describe --broken", "a git of its own"),
    # config lookups that could list secrets or change config
    ("git config --list", "not a single lookup"),
    ("git config -l", "not a single lookup"),
    ("git config --get-regexp .", "not a single lookup"),
    ("git config --global --get user.name", "not a single lookup"),
    ("git config --system --get user.name", "not a single lookup"),
    ("git config --file x --get user.name", "not a single lookup"),
    ("git config --get http.extraheader", "hold no secret"),
    ("git config --get credential.helper", "hold no secret"),
    ("git config --get url.x.insteadof", "hold no secret"),
    ("git config --get user.signingkey", "hold no secret"),
    ("git config --get remote.origin.proxy", "hold no secret"),
    ("git config --get core.sshCommand", "hold no secret"),
    ("git config user.name x", "without --get"),
    ("git config --get user.name user.email", "exactly one key"),
    ("git config --get", "exactly one key"),
]


@pytest.mark.parametrize(("line", "reason"), ASKS)
def test_a_dangerous_git_form_fails_its_check_with_a_reason(
    ws: LocalWorkspace, line: str, reason: str
) -> None:
    a = run(ws, line)
    assert not a.auto
    failed = [s for s in a.stages if not s.ok]
    assert failed, f"{line!r} passed its check"
    assert reason in failed[0].why


LEFT_TO_RULES = ["git", "git commit -m x", "git push", "git add .", "git fetch origin", "git checkout main"]


@pytest.mark.parametrize("line", LEFT_TO_RULES)
def test_other_subcommands_pass_the_check_but_never_run_unasked(ws: LocalWorkspace, line: str) -> None:
    a = run(ws, line)
    assert not a.auto
    assert all(s.ok and s.governed and s.check.git and not s.check.auto for s in a.stages)


READS = [
    ("git diff README.md", ("README.md",)),
    ("git log -p -- .env", (".env",)),
    ("git show HEAD -- sub/a.go", ("HEAD", "sub/a.go")),
    ("git blame ./main.go", ("main.go",)),
    ("git diff notes.txt", ("notes.txt", ".env")),
    ("git log my-secret-branch", ("my-secret-branch",)),
    ("git status README.md", ("README.md",)),  # status opens what it names (issue 30)
    ("git ls-files .env", ()),
    ("git shortlog HEAD", ()),
]


@pytest.mark.parametrize(("line", "reads"), READS)
def test_diff_log_show_and_blame_read_their_names_and_where_links_lead(
    ws: LocalWorkspace, line: str, reads: tuple[str, ...]
) -> None:
    a = run(ws, line)
    assert a.stages[0].ok or "excludes would hide" in a.stages[0].why, a.stages[0].why
    assert a.stages[0].reads == reads


# What every git plan starts with, and the secret excludes a form that prints contents ends with.
PREFIX = " && ".join(
    " ".join(render_word(Word(w)) for w in words) for words in (UNSET_GIT_STEERING, GIT_PREFIX)
)
EXCLUDES = " ".join(render_word(Word(e)) for e in git_excludes(SECRET_PATHS))
FLAGS = "'--no-ext-diff' '--no-textconv' '--ignore-submodules=all'"
LOG_FLAGS = f"{FLAGS} '--no-notes'"

# Every revision is peeled to a commit with `~0` (issue 30); a form that opens or prints files
# carries the excludes, git status included.
RENDERED = [
    ("git log -p -n1", f"'log' {LOG_FLAGS} '-p' '-n1' '--' {EXCLUDES}"),
    ("git log -n1", f"'log' {LOG_FLAGS} '-n1' '--'"),
    ("git diff", f"'diff' {FLAGS} '--' {EXCLUDES}"),
    ("git show HEAD", f"'show' {LOG_FLAGS} 'HEAD~0' '--' {EXCLUDES}"),
    ("git show", f"'show' {LOG_FLAGS} 'HEAD~0' '--' {EXCLUDES}"),
    ("git diff README.md --stat", f"'diff' {FLAGS} '--stat' '--' 'README.md' {EXCLUDES}"),
    ("git diff HEAD~1 README.md", f"'diff' {FLAGS} 'HEAD~1~0' '--' 'README.md' {EXCLUDES}"),
    ("git diff HEAD -- sub", f"'diff' {FLAGS} 'HEAD~0' '--' 'sub' {EXCLUDES}"),
    ("git log -n 2 -p main", f"'log' {LOG_FLAGS} '-n' '2' '-p' 'main~0' '--' {EXCLUDES}"),
    ("git show 1234abcd", f"'show' {LOG_FLAGS} '1234abcd~0' '--' {EXCLUDES}"),
    ("git diff cafe..HEAD~1", f"'diff' {FLAGS} 'cafe~0..HEAD~1~0' '--' {EXCLUDES}"),
    ("git blame main.go", "'blame' '--no-ext-diff' '--no-textconv' 'main.go'"),
    ("git stash list", f"'stash' 'list' {LOG_FLAGS}"),
    ("git status", f"'status' '--ignore-submodules=all' '--' {EXCLUDES}"),
    ("git branch -a", "'branch' '-a'"),
    ("git remote -v", "'remote' '-v'"),
]


@pytest.mark.parametrize(("line", "rendered"), RENDERED)
def test_the_plan_that_runs_turns_off_external_diffs_and_text_conversion(
    ws: LocalWorkspace, line: str, rendered: str
) -> None:
    assert by_name(run(ws, line)) == f"{PREFIX} {rendered}"


def test_a_workspace_that_is_not_a_repository_still_runs_read_only_git(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    a = analyze("git status", workspace(tmp_path / "plain"))
    assert a.auto, a.git_reason


# The secret excludes' seam: the gate passes the patterns in force, the bash tool re-checks with
# the same ones, and the excludes cover every path the shipped asks name.


def _gate(tmp_path: Path, allow: list[str], builtin: bool = True) -> Gate:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n", ".env": "TOKEN=hunter2\n"})
    write(repo, {".env": "TOKEN=hunter3\n", "a.txt": "b\n"})
    config = tmp_path / "user.toml"
    config.write_text(f"[policy]\nbuiltin = {str(builtin).lower()}\nallow = {json.dumps(allow)}\n")
    ws = workspace(repo)
    return Gate(load_settings(ws, str(config)), ws, Stamper())


@pytest.mark.parametrize(
    ("allow", "builtin", "lifted"),
    [
        ([], True, False),
        (["Read(.env*)"], True, False),
        (["read(.env)"], True, False),
        (["Read(**/.env*)"], True, False),
        (["Read(*)"], True, True),
        (["read(**)"], True, True),
        (["grep(*)"], True, False),
        (["bash(cat:*)"], True, False),
        ([], False, False),
    ],
)
def test_the_secret_excludes_drop_only_when_a_rule_of_yours_lifts_every_secret_path(
    tmp_path: Path, allow: list[str], builtin: bool, lifted: bool
) -> None:
    gate = _gate(tmp_path, allow, builtin)
    assert gate.secrets == (() if lifted else SECRET_PATHS)


@pytest.mark.parametrize(
    "line", ["git diff -- .env", "git diff .env", "git diff .env a.txt", "git log -p .env"]
)
def test_a_lifted_secret_named_as_a_file_is_shown_and_nothing_else_is(tmp_path: Path, line: str) -> None:
    """dax-0449: the diff covers only the named files, each a read the policy decides; the patterns
    that hide a named file drop out, what lies below the name stays out, every other pattern stays."""
    gate = _gate(tmp_path, ["read(.env)"])
    decided = gate.decide("bash", {"command": line})
    assert decided.decision is Decision.ALLOW, decided.verdict.reason
    assert decided.analysis is not None and decided.analysis.rendered is not None
    rendered = decided.analysis.rendered
    assert "':(exclude,icase,glob).env/**'" in rendered and "**/.env*" not in rendered
    assert "':(top,exclude,icase,glob)**/id_*'" in rendered
    assert gate.stamper is not None
    out = AGENT_TOOLS["bash"].run(decided.args, ToolContext(gate))
    assert not out.is_error and ("hunter3" in out.text or line.startswith("git log"))


@pytest.mark.parametrize(
    ("allow", "line"),
    [
        ([], "git diff .env"),  # not lifted: the named read asks
        (["read(.env)"], "git diff .env ."),  # a directory beside it: a dropped pattern would show more
        (["read(.env)"], "git diff .env 'a*'"),  # a pathspec pattern, not a name
        (["read(.env)"], "git diff envlink"),  # a link: git diffs the link, the name is not the file
        (["read(.env)"], "git diff .env.local"),  # a lift of .env is not one of .env.local
    ],
)
def test_a_secret_named_in_a_diff_that_is_not_a_lifted_regular_file_asks(
    tmp_path: Path, allow: list[str], line: str
) -> None:
    gate = _gate(tmp_path, allow)
    (Path(gate.ws.root) / ".env.local").write_text("x\n")
    os.symlink(".env", Path(gate.ws.root) / "envlink")
    decided = gate.decide("bash", {"command": line})
    assert decided.decision is Decision.ASK, line


def test_the_bash_tool_runs_the_gates_plan_only_with_the_gates_secret_patterns(tmp_path: Path) -> None:
    gate = _gate(tmp_path, ["Read(*)"])
    decided = gate.decide("bash", {"command": "git diff"})
    assert decided.decision is Decision.ALLOW and STAMP_ARG in decided.args
    assert gate.stamper is not None
    same = ToolContext(gate)
    out = AGENT_TOOLS["bash"].run(decided.args, same)
    assert "hunter3" in out.text and not out.is_error  # lifted: the user's own choice
    other = tool_context(gate.ws, gate.stamper)  # a gate on the shipped rules: their patterns, another plan
    refused = AGENT_TOOLS["bash"].run(decided.args, other)
    assert refused.is_error and CHANGED_COMMAND in refused.text


_NAME_PARTS = st.sampled_from(
    [".env", "ENV", ".Env.local", "id_", "ID_RSA", "credentials", "x.pem", ".KEY", "p12", ".pfx", "Secret",
     ".kube", "config", ".docker", "config.json", ".aws", ".ssh", ".npmrc", ".netrc", ".pgpass",
     ".git-credentials", "a", "b.txt", "-", "_", "."]
)  # fmt: skip
_NAMES = st.lists(st.lists(_NAME_PARTS, min_size=1, max_size=3).map("".join), min_size=1, max_size=4).map(
    "/".join
)


@settings(max_examples=400, deadline=None)
@given(_NAMES)
def test_every_path_a_shipped_ask_names_is_hidden_from_a_diff(name: str) -> None:
    asked = Policy().decide((Subject("read", name),)).decision is Decision.ASK
    assert not asked or hidden_by(name, SECRET_PATHS) is not None, name
