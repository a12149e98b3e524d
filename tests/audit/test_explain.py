"""`bastion check --explain`: the parse, the checkers, every subject with its rule and source, the
git probe, and the plan and facts of an auto-allowed line; a caret under an outside column."""

from __future__ import annotations

import io
import re
import subprocess

from bastion.analyzer import SECRET_PATHS

# Private: the git excludes and the short plan words are compared with what explain prints.
from bastion.analyzer._secrets import git_excludes
from bastion.audit import explain_call
from bastion.policy import DryRun

from .conftest import Workspace


def _explain(ws: Workspace, line: str, tool: str = "bash", **args: str) -> tuple[str, str]:
    out = io.StringIO()
    call = {"command": line} if tool == "bash" else dict(args)
    decision = explain_call(DryRun(str(ws.config)), str(ws.root), tool, call, out)
    return decision, out.getvalue()


def test_an_auto_allowed_pipeline_shows_stages_words_checkers_subjects_plan_and_facts(ws: Workspace) -> None:
    decision, text = _explain(ws, "git log -p | head && cat README.md")
    assert decision == "allow"
    assert "parse: in the subset: 2 pipelines joined by `&&`, 3 stages" in text
    assert "  stage 1: git log -p   (in .)\n    words: git log -p\n    checker: ok, runs unasked\n" in text
    runs_as = next(line for line in text.splitlines() if line.startswith("    runs as: "))
    assert runs_as.startswith("    runs as: git -c core.fsmonitor=false ")
    flags = "--no-ext-diff --no-textconv --ignore-submodules=all"
    assert f" --no-pager --no-optional-locks log {flags} --no-notes -p -- " in runs_as
    assert "    reads: README.md\n" in text
    assert "git: config probed in .: runs nothing" in text
    assert (
        '  allow  bash "cat README.md"  (part 3 of the line)\n         by bash(cat:*) from builtin\n' in text
    )
    assert (
        '  allow  read "README.md"  (a file part 3 of the line reads)\n         by read from builtin\n'
        in text
    )
    assert "plan (what runs): 'unset' '-v' 'GIT_ALLOW_PROTOCOL' " in text
    last = git_excludes(SECRET_PATHS)[-1].replace(":(top,exclude,icase,glob)", "")  # the last secret's
    plan = text.replace(":(top,exclude,icase,glob)", "")
    assert re.search(re.escape(f"'{last}' | '") + r"/\S*/head' && '/\S*/cat' 'README\.md'", plan), plan
    assert re.search(r"\n  program /\S*/cat: device and inode \(\d+, \d+\)\n", text)
    assert "    README.md: file README.md, 10 bytes\n" in text
    assert "  git in .: the fingerprint of git's configuration files, " in text


def test_a_quoted_command_word_is_shown_as_one_word_everywhere(ws: Workspace) -> None:
    decision, text = _explain(ws, "'ls /../evil.sh' -l")
    assert decision == "ask"
    assert "  stage 1: 'ls /../evil.sh' -l   (in .)\n    words: 'ls /../evil.sh' -l\n" in text
    assert "    checker: none: 'ls /../evil.sh' is not a command bastion governs" in text
    assert "bash \"'ls /../evil.sh' -l\"  (the command)" in text


def test_a_line_outside_the_subset_points_a_caret_at_its_column(ws: Workspace) -> None:
    decision, text = _explain(ws, "make test && echo $(id) > x")
    assert decision == "ask"
    lines = text.splitlines()
    at = lines.index("parse: outside the subset")
    assert lines[at + 1] == "  make test && echo $(id) > x"
    assert lines[at + 2] == "  " + " " * 18 + "^"
    assert lines[at + 3] == "  `$(` at column 19: command substitution is outside the subset"
    assert (
        '  ask    bash "make test && echo $(id) > x"  (the whole line)'
        " [a part bastion cannot vouch for: only a rule that matches everything allows it]"
    ) in text
    assert '  ask    write "x"  (a file the line writes (x))' in text
    assert "plan (what runs)" not in text


def test_each_subject_shows_the_rule_and_source_that_decided_it_alone(ws: Workspace) -> None:
    # Each rule of a file is cited as written, with the line it is written on.
    ws.rules(allow=["bash(make test:*)"], deny=["bash(rm:*)"])
    decision, text = _explain(ws, "make test && cat .env && rm -rf src")
    assert decision == "deny"
    by = "\n         by "
    user = f"user:{ws.config}"
    assert (
        f'  allow  bash "make test"  (part 1 of the line){by}bash(make test:*) from {user}, line 2\n' in text
    )
    assert (
        '  ask    read ".env"  (a file part 2 of the line reads)\n         by Read(ci:.env*) from builtin\n'
        in text
    )
    assert (
        f'  deny   bash "rm -rf src"  (part 3 of the line)\n         by bash(rm:*) from {user}, line 3\n'
        in text
    )
    assert f"decision: deny: denied by bash(rm:*) from your config ({ws.config})" in text
    assert f"  rule: bash(rm:*) (user:{ws.config}, line 3)\n" in text
    assert "runs as typed" not in text


def test_a_checker_refusal_and_a_git_key_are_shown(ws: Workspace) -> None:
    _, text = _explain(ws, "cat /etc/passwd")
    assert "    checker: refused: '/etc/passwd' is outside the working directory\n" in text
    assert "         why: '/etc/passwd' is outside the working directory\n" in text
    subprocess.run(["git", "-C", str(ws.root), "config", "diff.external", "/bin/evil"], check=True)
    decision, text = _explain(ws, "git diff")
    assert decision == "ask"
    assert (
        "git: config probed in .: the repository's config runs a program:" in text and "diff.external" in text
    )


def test_a_file_tool_call_is_explained_by_its_subjects(ws: Workspace) -> None:
    decision, text = _explain(ws, "", tool="read", path="/etc/passwd")
    assert decision == "ask"
    assert text.startswith("subjects (each decided alone):\n")
    assert (
        '  ask    read "/etc/passwd"  (the path of read)'
        " [a path outside the working directory: no rule allows it]"
    ) in text


def test_check_explain_through_the_command_keeps_checks_exit_status(ws: Workspace, capsys: object) -> None:
    from bastion.cli import main

    code = main(
        ["check", "--config", str(ws.config), "--cwd", str(ws.root), "--explain", "--", "cat .env | grep T"]
    )
    text = capsys.readouterr().out  # type: ignore[attr-defined]
    assert code == 3
    assert (
        '  ask    read ".env"  (a file part 1 of the line reads)\n         by Read(ci:.env*) from builtin\n'
        in text
    )
    code = main(["check", "--config", str(ws.config), "--cwd", str(ws.root), "--json", "--", "git status"])
    assert code == 0 and '"decision": "allow"' in capsys.readouterr().out  # type: ignore[attr-defined]


def test_a_line_that_asks_says_so_as_a_whole_before_its_allowed_subjects(ws: Workspace) -> None:
    decision, text = _explain(ws, "git status; rm x")
    assert decision == "ask"
    # The operators the line has, not `&&` whatever it has.
    assert "parse: in the subset: 2 pipelines joined by `;`, 2 stages\n" in text
    whole = text.index('the line as a whole asks: bash "rm x" (part 2 of the line) asks;')
    assert whole < text.index("subjects (each decided alone):") < text.index('  allow  bash "git status"')


def test_the_operators_named_are_each_the_lines_own_once(ws: Workspace) -> None:
    text = _explain(ws, "ls && ls || ls && ls\nls")[1]
    assert "parse: in the subset: 5 pipelines joined by `&&`, `||` and a newline, 5 stages\n" in text
    assert "parse: in the subset: 1 pipeline, 1 stage\n" in _explain(ws, "ls")[1]
    assert "the line as a whole" not in _explain(ws, "ls")[1]  # an allowed line has nothing to add


def test_checks_plan_line_summarises_the_neutralising_settings_and_keeps_every_other_word(
    ws: Workspace, capsys: object
) -> None:
    from bastion.audit._plan_words import short_plan
    from bastion.cli import check

    plan = DryRun(str(ws.config)).check(str(ws.root), "bash", {"command": "git status && ls *.md"})["plan"]
    short = short_plan(plan)
    assert short.startswith("'unset' '-v' 'GIT_ALLOW_PROTOCOL' [... ")
    assert "more variables that steer git] && '/usr/bin/git' '-c' 'core.fsmonitor=false' [... " in short
    assert (
        "more secret excludes] && '/usr/bin/ls' '--quoting-style=shell-escape' '--' *.md" in short
        and len(short) < len(plan) // 3
    )
    # What is not elided is the plan's own words, in their order (a subsequence of the plan).
    rest = iter(plan.split())
    assert all(word in rest for word in re.sub(r"\[\.\.\. [^\]]*\]", "", short).split())
    out = io.StringIO()
    assert (
        check(["--cwd", str(ws.root), "--config", str(ws.config), "--", "git status && ls *.md"], out=out)
        == 0
    )
    assert f"  runs: {short}\n" in out.getvalue()


def test_a_plan_ending_in_a_flag_c_is_shown_whole_not_a_traceback() -> None:
    # `git ls-files | sort | uniq -c`: uniq's -c is the plan's last word, no KEY=VALUE after it.
    from bastion.audit._plan_words import short_plan

    assert short_plan("'/usr/bin/sort' | '/usr/bin/uniq' '-c'") == "'/usr/bin/sort' | '/usr/bin/uniq' '-c'"
