"""What a subject is travels in its fields, never in the words people read: no reason, explanation,
audit line or hook reason shows the sentinel marker `$(...)` (unless the line itself holds it) nor a
pseudo-tool name (`bastion:outside`...), whichever way the call is decided."""

from __future__ import annotations

import io
import json
import os
import pathlib
import re
import subprocess

import pytest

from bastion.audit import audit_main, hook_main
from bastion.cli import check

from .conftest import Workspace, run

MARKER = "$(...)"
# A pseudo-tool's name: "bastion:" then a letter (the hook's own prefix is "bastion: ").
PSEUDO_TOOL = re.compile(r"bastion:[a-z]")

# (tool, args): lines outside the subset, failing checks, redirects outside, links that cannot be read,
# lines bashlex cannot read, wrappers, file tools on paths outside or through links, a write to a
# file other hard links share.
CALLS: list[tuple[str, dict[str, object]]] = [
    ("bash", {"command": "cat /etc/passwd"}),
    ("bash", {"command": "grep -r TODO ."}),
    ("bash", {"command": "git stash pop"}),
    ("bash", {"command": "git diff"}),
    ("bash", {"command": "echo $(id)"}),
    ("bash", {"command": "make test && echo `id` > x"}),
    ("bash", {"command": "ls; rm -rf src"}),
    ("bash", {"command": "echo hi > /etc/passwd"}),
    ("bash", {"command": "echo hi > ../x"}),
    ("bash", {"command": "echo hi > out/x"}),
    ("bash", {"command": "echo hi > loop1"}),
    ("bash", {"command": "echo 'open"}),
    ("bash", {"command": "echo $((1+2)); rm q"}),
    ("bash", {"command": "timeout 5 bash -c 'echo hi > /etc/x'"}),
    ("bash", {"command": "cat README.md | head -3"}),
    ("bash", {"command": "echo '$(...) is a marker' $(id)"}),
    ("read", {"path": "/etc/passwd"}),
    ("read", {"path": "../x"}),
    ("read", {"path": "~/.ssh/id_rsa"}),
    ("read", {"path": ""}),
    ("read", {"path": "loop1"}),
    ("read", {"path": "out/x"}),
    ("read", {"path": ".env"}),
    ("write", {"path": "/etc/x"}),
    ("write", {"path": "shared"}),
    ("edit", {"path": "../x"}),
    ("glob", {"path": "/", "pattern": "*"}),
    ("grep", {"path": "..", "pattern": "x"}),
    ("ls", {"path": "/tmp"}),
]


@pytest.fixture
def marked(ws: Workspace) -> Workspace:
    """The audit workspace, with links that cannot be read, a link leading out, a hard link of a
    file outside and a git config that runs a program."""
    outside = ws.root.parent / "outside"
    outside.mkdir()
    os.symlink(outside, ws.root / "out")
    (outside / "shared").write_text("x\n")
    os.link(outside / "shared", ws.root / "shared")
    os.symlink("loop2", ws.root / "loop1")
    os.symlink("loop1", ws.root / "loop2")
    subprocess.run(["git", "-C", str(ws.root), "config", "diff.external", "/bin/evil"], check=True)
    return ws


def _clean(text: str, holds_marker: bool) -> None:
    assert PSEUDO_TOOL.search(text) is None, text
    if not holds_marker:
        assert MARKER not in text, text


def _holds(args: dict[str, object]) -> bool:
    """Whether the call itself holds the marker (then it may be shown, as part of the call)."""
    return MARKER in json.dumps(args)


@pytest.mark.parametrize(("tool", "args"), CALLS)
def test_check_explain_and_json_show_no_marker_nor_pseudo_tool(
    marked: Workspace, tool: str, args: dict[str, object]
) -> None:
    holds = _holds(args)
    base = ["--config", str(marked.config), "--cwd", str(marked.root)]
    if tool == "bash":
        call = [*base, "--", str(args["command"])]
    else:
        call = [*base, "--tool", tool, *[f"--{k}={v}" for k, v in args.items()]]
    for extra in ([], ["--explain"], ["--json"]):
        code, out, err = run(check, [*extra, *call])
        assert code in (0, 3, 4), err
        _clean(out + err, holds)


@pytest.mark.parametrize(("tool", "args"), CALLS)
def test_the_hook_reason_shows_no_marker_nor_pseudo_tool(
    marked: Workspace, tool: str, args: dict[str, object]
) -> None:
    name = "LS" if tool == "ls" else tool.capitalize()
    key = "file_path" if tool in ("read", "write", "edit") else "path"
    given = {(key if k == "path" else k): v for k, v in args.items()}
    payload = {"session_id": "s", "cwd": str(marked.root), "hook_event_name": "PreToolUse",
               "tool_name": name, "tool_input": given}  # fmt: skip
    argv = ["claude-code", "--config", str(marked.config)]
    code, out, err = run(hook_main, argv, stdin=json.dumps(payload))
    assert code == 0 and err == ""
    _clean(out, _holds(args))


def _requests(ws: Workspace) -> str:
    return "".join(
        json.dumps({"cwd": str(ws.root), "tool": tool, "args": args}) + "\n"
        for tool, args in CALLS
        if not _holds(args)
    )


def test_audit_lines_groups_json_suggestions_and_jsonl_show_no_marker_nor_pseudo_tool(
    marked: Workspace,
) -> None:
    requests = marked.root.parent / "requests.jsonl"
    requests.write_text(_requests(marked), encoding="utf-8")
    base = ["--config", str(marked.config), "--cwd", str(marked.root), "--format", "jsonl"]
    calls = len(_requests(marked).splitlines())
    for extra in ([], ["--json"], ["--suggest"]):
        code, out, err = run(audit_main, [*base, *extra, str(requests)])
        assert code == 0, err
        if extra == ["--json"]:
            assert len(json.loads(out)["calls"]) == calls
        else:
            assert out.count("\n") >= 5
        _clean(out + err, False)
    code, out, err = run(check, ["--config", str(marked.config), "--jsonl"], stdin=_requests(marked))
    assert code == 0, err
    assert out.count("\n") == calls
    _clean(out + err, False)


def test_the_calls_reach_every_kind_of_subject(marked: Workspace) -> None:
    """The table above is only worth its name if it meets each kind: a guard against it shrinking."""
    from bastion.policy import DryRun, Kind

    gate = DryRun(str(marked.config)).gate(str(marked.root))
    kinds = {s.kind for tool, args in CALLS for s in gate.decide(tool, dict(args)).subjects}
    assert kinds == set(Kind)


def test_a_revision_is_not_shown_as_a_file_read(tmp_path: pathlib.Path) -> None:
    subprocess.run(
        ["git", "init", "-q", str(tmp_path)], check=True, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    )
    (tmp_path / "README.md").write_text("hi\n")
    for line, shown in (("git diff HEAD~1", None), ("git diff HEAD~1 README.md", "  reads: README.md\n")):
        out = io.StringIO()
        check(["--config", os.devnull, "--cwd", str(tmp_path), "--", line], out=out)
        reads = [text + "\n" for text in out.getvalue().splitlines() if text.startswith("  reads:")]
        assert reads == ([shown] if shown else []), line
