"""The reference cases issue 14 supersedes because echo and true now have checkers (relabelled `any` in
benchmarks/conformance.py): each line runs unasked as its neutralised plan, so the repository's
config (core.fsmonitor, core.hooksPath, core.pager, gpg.program, core.sshCommand) no longer
counts. Each is traced here in the case's own fixture: the plan runs no program but git, go,
head, cat and tr, and writes nothing. echo, true and false are bash builtins, so an exec of
/bin/true or /bin/false in a trace is the repository's fsmonitor or gpg program."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from bastion.analyzer import analyze, neutral_env, redact_userinfo
from fuzz.execution import snapshot, strace_violations
from tests.analyzer.gitrepo import make_repo, set_config, workspace, write
from tests.waits import PATIENCE

_STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(_STRACE is None, reason="strace is not installed: nothing can be traced")


class _Case(NamedTuple):
    case: str
    line: str
    config: dict[str, str]


# The reference's fixture for dax-1285 holds credentials in its remotes' URLs, which git remote -v
# prints: since issue 30 the analysis says so and a hook asks (test below); traced here with URLs
# that hold none.
_CREDENTIALS = {
    "remote.origin.url": "https://user:ghp_SECRETTOKEN@github.com/o/r.git",
    "remote.tok.url": "https://ghp_ONLYTOKEN@github.com/o/s.git",
}
_REMOTES = {"remote.origin.url": "https://github.com/o/r.git", "remote.ssh.url": "git@github.com:o/t.git"}
CASES = [
    _Case("dax-0658", "git status && echo hi", {"core.fsmonitor": "/bin/true"}),
    _Case("dax-0659", "git diff | head && echo done", {"core.fsmonitor": "/bin/true"}),
    _Case("dax-0662", "echo hi && git status -s", {"core.hooksPath": "/tmp/evil"}),
    _Case("dax-0663", "echo a && git show HEAD && echo b", {"core.hooksPath": "/tmp/evil"}),
    _Case("dax-0669", "git diff | head && echo done", {"core.pager": "cat"}),
    _Case("dax-0673", "git status && echo hi", {"gpg.program": "/bin/false"}),
    _Case("dax-0674", "echo a && git show HEAD && echo b", {"gpg.program": "/bin/false"}),
    _Case("dax-0677", "echo hi && git status -s", {"gpg.openpgp.program": "/bin/false"}),
    _Case("dax-0845", "git log | cat", {}),
    _Case("dax-1267", "echo hi && git status", {"core.sshCommand": "my-ssh -i key"}),
    _Case("dax-1275", "go env GOTOOLCHAIN && true", {}),
    _Case("dax-1276", "echo a && echo b | tr b c", {}),
    _Case("dax-1285", "git remote -v; true", _REMOTES),
]  # fmt: skip


def _fixture(tmp_path: Path, case: _Case) -> Path:
    root = tmp_path / "ws"
    if case.case == "dax-1275":  # a module asking for a go newer than any installed
        root.mkdir()
        write(root, {"go.mod": "module x\n\ngo 1.99.0\n"})
        return root
    make_repo(root, {"f": "a\n"})
    for key, value in case.config.items():
        set_config(root, key, value)
    return root


def _traced(
    line: str, root: Path, tmp_path: Path, *, neutral: bool = True
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    """`bash -c line` in `root` under `strace -f -ff`, in the neutral environment (or the one a line
    run as typed gets), TMPDIR empty."""
    assert _STRACE is not None
    (tmp_path / "tmp").mkdir()
    (tmp_path / "trace").mkdir()
    env = {**(neutral_env(os.environ) if neutral else os.environ), "TMPDIR": str(tmp_path / "tmp")}
    log = tmp_path / "trace" / "t"
    cmd = [_STRACE, "-f", "-ff", "-qq", "-e", "trace=%file,%process", "-o", str(log), "bash", "-c", line]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=PATIENCE), log


@pytest.mark.usefixtures("go_on_path")
@pytest.mark.parametrize("neutral", [True, False], ids=["neutral-env", "plain-env"])
@pytest.mark.parametrize("case", CASES, ids=[c.case for c in CASES])
def test_a_superseded_reference_case_runs_no_program_as_its_plan(
    tmp_path: Path, case: _Case, neutral: bool
) -> None:
    """In bastion's neutral environment, and in a plain one (another agent running the plan
    through a hook: rule 21, the plan carries its own protection)."""
    root = _fixture(tmp_path, case)
    a = analyze(case.line, workspace(root, PATH=os.environ["PATH"]))
    assert a.auto and a.rendered is not None, [s.why for s in a.stages]
    before = snapshot(root)
    proc, log = _traced(a.rendered, root, tmp_path, neutral=neutral)
    assert strace_violations(str(log), {"git", "go", "head", "cat", "tr"}) == [], proc.stderr
    assert snapshot(root) == before and list((tmp_path / "tmp").iterdir()) == []
    assert "ghp_" not in redact_userinfo(proc.stdout.decode())  # what bastion shows of an auto run


def test_the_reference_case_with_credentials_in_its_remotes_asks(tmp_path: Path) -> None:
    root = _fixture(tmp_path, _Case("dax-1285", "git remote -v; true", _CREDENTIALS))
    a = analyze("git remote -v; true", workspace(root))  # bastion hides the userinfo; a hook asks
    assert a.auto and "credentials" in a.credentials and "ghp_" not in a.credentials


def test_the_trace_sees_the_fsmonitor_that_the_line_as_typed_runs(tmp_path: Path) -> None:
    root = _fixture(tmp_path, CASES[0])
    _, log = _traced(CASES[0].line, root, tmp_path, neutral=False)
    assert any("/bin/true" in v for v in strace_violations(str(log), {"git"}))
