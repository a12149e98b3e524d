"""What was decided is what runs: a stamped call runs only while the facts it was decided on hold.

Each test allows a call the way the policy does (the stamp made by the process's Stamper), changes
the workspace between the decision and the run, and runs the tool: the change is refused with the
exact message and nothing runs; the unchanged call still runs.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS, ToolContext, ToolOutput
from bastion.analyzer import CHANGED_COMMAND, CHANGED_PATHS, Stamper, analyze
from bastion.policy import STAMP_ARG, redirect_targets
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "other").mkdir()
    for name, text in {
        "notes.txt": "my notes\n",
        ".env": "KEY=hunter2\n",
        "a.txt": "A\n",
        "b.txt": "B\n",
    }.items():
        (work / name).write_text(text)
    (work / "sub" / "in-sub.txt").write_text("s\n")
    (work / "other" / "in-other.txt").write_text("o\n")
    env = {**os.environ, **GIT_ENV, "HOME": str(tmp_path)}
    for argv in (["git", "init", "-q"], ["git", "add", "notes.txt"], ["git", "commit", "-qm", "first"]):
        subprocess.run(argv, cwd=work, env=env, check=True)
    return work


@pytest.fixture
def ctx(repo: Path) -> ToolContext:
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(repo.parent), "LANG": "C", **GIT_ENV}
    return tool_context(LocalWorkspace(str(repo), env), Stamper())


def allow(ctx: ToolContext, line: str) -> dict[str, object]:
    """The bash call as the policy passes it on when it allowed `line`: with its stamp."""
    assert ctx.gate.stamper is not None
    analysis = analyze(line, ctx.ws, ctx.cwd)
    if analysis.auto:
        stamp = ctx.gate.stamper.plan_stamp(analysis, ctx.ws)
    else:
        assert analysis.outside is not None, analysis.stages
        stamp = ctx.gate.stamper.line_stamp(line, redirect_targets(line, ctx.ws, ctx.cwd), ctx.ws)
    assert stamp is not None
    return {"command": line, STAMP_ARG: stamp}


def bash(ctx: ToolContext, args: dict[str, object]) -> ToolOutput:
    return AGENT_TOOLS["bash"].run(args, ctx)


def relink(path: Path, target: str) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    os.symlink(target, path)


def add_pager(root: Path) -> None:
    with (root / ".git" / "config").open("a") as f:
        f.write("[core]\n\tpager = touch PWNED; cat\n")


def make_dash_file(root: Path) -> None:
    (root / "-rf").write_text("")


def make_dash_match(root: Path) -> None:
    (root / "-l.txt").write_text("")


def replace_directory(root: Path) -> None:
    (root / "sub").rename(root / "old-sub")
    (root / "sub").mkdir()


CHANGES = [
    ("cat notes.txt", lambda r: relink(r / "notes.txt", ".env")),
    ("cat notes.txt", lambda r: (r / "notes.txt").write_text("changed, and longer\n")),
    ("cd sub && ls", lambda r: relink(r / "sub", "other")),
    ("cd sub && ls", replace_directory),
    ("ls *.txt", make_dash_match),
    ("git log --oneline", add_pager),
    ("echo x > out", lambda r: os.symlink(".env", r / "out")),
]


@pytest.mark.parametrize(("line", "change"), CHANGES)
def test_a_stamped_line_whose_facts_changed_is_refused_and_nothing_runs(
    ctx: ToolContext, repo: Path, line: str, change: object
) -> None:
    args = allow(ctx, line)
    assert callable(change)
    change(repo)
    out = bash(ctx, args)
    assert out.is_error and out.text == CHANGED_COMMAND
    assert "hunter2" not in out.text
    assert (repo / ".env").read_text() == "KEY=hunter2\n"
    assert not (repo / "PWNED").exists()


@pytest.mark.parametrize(
    ("line", "change", "printed"),
    [
        ("cat notes.txt", lambda r: None, "my notes"),
        ("cd sub && ls", lambda r: (r / "sub" / "new.txt").write_text(""), "in-sub.txt"),
        ("ls *.txt", make_dash_file, "a.txt\nb.txt\nnotes.txt"),
        ("git log --oneline", lambda r: None, "first"),
        ("echo x > out", lambda r: None, "[exit 0]"),
    ],
)
def test_a_stamped_line_whose_facts_hold_runs_as_decided(
    ctx: ToolContext, repo: Path, line: str, change: object, printed: str
) -> None:
    args = allow(ctx, line)
    assert callable(change)
    change(repo)
    out = bash(ctx, args)
    assert not out.is_error, out.text
    assert printed in out.text and out.text.endswith("[exit 0]")


def test_a_name_that_looks_like_an_option_stays_a_name_after_the_ls_glob(
    ctx: ToolContext, repo: Path
) -> None:
    (repo / "-l.txt").write_text("")
    out = bash(ctx, allow(ctx, "ls *.txt"))
    assert not out.is_error and "-l.txt" in out.text and "total" not in out.text


@pytest.mark.parametrize(
    "stamp",
    ["", "0" * 64, "f" * 64, "not hex at all", 12345, None, ["a"], "\u017ftamp"],
)
def test_a_stamp_bastion_did_not_make_is_refused(ctx: ToolContext, repo: Path, stamp: object) -> None:
    out = bash(ctx, {"command": "cat notes.txt", STAMP_ARG: stamp} if stamp is not None else {"command": "x"})
    if stamp is None:  # no stamp at all: the line runs as typed (the policy decided it)
        assert "[exit 127]" in out.text
        return
    assert out.is_error and out.text == CHANGED_COMMAND


def test_a_stamp_made_by_another_process_key_is_refused(ctx: ToolContext) -> None:
    other = tool_context(ctx.ws, Stamper())
    out = bash(ctx, allow(other, "cat notes.txt"))
    assert out.is_error and out.text == CHANGED_COMMAND


@pytest.mark.parametrize(
    ("allowed", "sent"),
    [
        ("cat a.txt", "cat b.txt"),
        ("cat a.txt", "cat a.txt b.txt"),
        ("cat a.txt", "cat .env"),
        ("echo x > out", "echo x > .env"),
        ("echo x > out", "echo x > out; cat .env"),
        ("cat a.txt", "echo x > a.txt"),
    ],
)
def test_a_stamp_for_one_line_is_refused_for_another(
    ctx: ToolContext, repo: Path, allowed: str, sent: str
) -> None:
    args = allow(ctx, allowed)
    out = bash(ctx, {**args, "command": sent})
    assert out.is_error and out.text == CHANGED_COMMAND
    assert (repo / ".env").read_text() == "KEY=hunter2\n"


def test_a_plan_stamped_line_runs_its_rendered_plan_with_userinfo_masked(
    ctx: ToolContext, repo: Path
) -> None:
    (repo / "url.txt").write_text("https://user:tok3n@example.com/x\n")
    out = bash(ctx, allow(ctx, "cat url.txt"))
    assert out.text == "https://***@example.com/x\n[exit 0]"
    plain = bash(ctx, {"command": "cat url.txt"})
    assert "tok3n" in plain.text  # unstamped: as typed, not redacted


def test_a_file_tool_stamp_is_refused_when_its_path_leads_elsewhere(ctx: ToolContext, repo: Path) -> None:
    assert ctx.gate.stamper is not None
    stamp = ctx.gate.stamper.path_stamp("read", ("notes.txt",), ctx.ws)
    ok = AGENT_TOOLS["read"].run({"path": "notes.txt", STAMP_ARG: stamp}, ctx)
    assert not ok.is_error and "my notes" in ok.text
    relink(repo / "notes.txt", ".env")
    out = AGENT_TOOLS["read"].run({"path": "notes.txt", STAMP_ARG: stamp}, ctx)
    assert out.is_error and out.text == CHANGED_PATHS and "hunter2" not in out.text


@pytest.mark.parametrize(
    ("stamped", "tool", "path"),
    [
        (("a.txt",), "read", "a.txt"),
        (("alias", "a.txt"), "read", "alias"),
        (("./a.txt",), "read", "a.txt"),
        ((".",), "ls", "."),
        (("new/file.txt",), "write", "new/file.txt"),
    ],
)
def test_a_path_stamp_of_the_name_and_where_it_leads_verifies_for_the_name(
    ctx: ToolContext, repo: Path, stamped: tuple[str, ...], tool: str, path: str
) -> None:
    os.symlink("a.txt", repo / "alias")
    assert ctx.gate.stamper is not None
    stamp = ctx.gate.stamper.path_stamp(tool, stamped, ctx.ws)
    extra: dict[str, object] = {"content": "x"} if tool == "write" else {}
    out = AGENT_TOOLS[tool].run({"path": path, STAMP_ARG: stamp, **extra}, ctx)
    assert not out.is_error, out.text
    wrong = AGENT_TOOLS["grep" if tool == "ls" else "ls"].run(
        {"path": ".", STAMP_ARG: stamp, "pattern": "x"}, ctx
    )
    assert wrong.is_error


def test_the_stamper_never_shows_or_pickles_its_key(ctx: ToolContext) -> None:
    stamper = Stamper()
    assert repr(stamper) == "Stamper()" and str(stamper) == "Stamper()"
    with pytest.raises(TypeError):
        pickle.dumps(stamper)
    assert stamper.plan_stamp(analyze("cat a.txt; rm -rf x", ctx.ws), ctx.ws) is None
