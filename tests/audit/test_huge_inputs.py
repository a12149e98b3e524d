"""An audit of a transcript larger than memory would hold: it is read a line at a time, so its peak
memory grows with the calls found, not with the file (a 128 MiB transcript of few calls adds a few
MiB, where reading it whole took twice its size); a line longer than 32 MiB is read through in
pieces, never held, and said, and the lines after it are audited."""

from __future__ import annotations

import io
import json
import pathlib
import sys

from bastion.audit import MAX_LINE, audit_main, read_calls

from ..waits import run_bounded
from .conftest import Workspace


def _turn(n: int, cwd: str, output: str) -> str:
    """A Claude Code turn: one Bash call, then its result."""
    use = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": f"cat notes{n}.txt"}}
    result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": output}
    return (
        json.dumps({"type": "assistant", "cwd": cwd, "message": {"role": "assistant", "content": [use]}})
        + "\n"
        + json.dumps({"type": "user", "cwd": cwd, "message": {"role": "user", "content": [result]}})
        + "\n"
    )


def _transcript(path: pathlib.Path, cwd: str, turns: int, output_bytes: int) -> None:
    output = "x" * output_bytes
    with path.open("w") as out:
        for n in range(turns):
            out.write(_turn(n, cwd, output))


# `bastion audit` in a process of its own that writes its peak resident set (VmHWM, KiB) last.
_MEASURED = (
    "import sys\n"
    "from bastion.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "hwm = [line for line in open('/proc/self/status') if line.startswith('VmHWM:')][0]\n"
    "sys.stderr.write(hwm.split()[1] + '\\n')\n"
    "sys.exit(code)\n"
)


def _peak_kib(ws: Workspace, transcript: pathlib.Path) -> int:
    argv = ["audit", "--summary", "--format", "claude", "--config", str(ws.config), str(transcript)]
    done = run_bounded(
        [sys.executable, "-c", _MEASURED, *argv],
        f"an audit of {transcript.name}",
        cwd=ws.root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stderr.strip().splitlines()[-1])


def test_an_audits_memory_grows_with_the_calls_it_finds_not_with_the_file(ws: Workspace) -> None:
    small, big = ws.root.parent / "small.jsonl", ws.root.parent / "big.jsonl"
    _transcript(small, str(ws.root), 100, 1 << 20)  # 100 calls, 100 MiB of results
    _transcript(big, str(ws.root), 100, 1 << 10)  # the same calls, 100 KiB of results
    grown = _peak_kib(ws, small) - _peak_kib(ws, big)
    # Read whole, the 100 MiB file took over 200 MiB more; read a line at a time, a few MiB.
    assert grown < 32 << 10, f"the 100 MiB transcript took {grown} KiB more than the 100 KiB one"


def test_a_line_longer_than_the_cap_is_read_through_and_said_and_the_rest_audited(ws: Workspace) -> None:
    path = ws.root.parent / "huge.jsonl"
    with path.open("w") as out:
        out.write(_turn(0, str(ws.root), "small"))
        out.write(_turn(1, str(ws.root), "y" * (MAX_LINE + 10)))
        out.write(_turn(2, str(ws.root), "small"))
    with path.open("rb") as stream:
        calls, problems, fmt = read_calls(str(path), stream)
    assert fmt == "claude" and [c.args["command"] for c in calls] == [
        "cat notes0.txt",
        "cat notes1.txt",
        "cat notes2.txt",
    ]
    ((problem),) = problems
    assert problem.where == f"{path}:4"
    assert (
        problem.message.startswith("longer than 32 MiB (")
        and "not read, so a call in it is not audited" in problem.message
    )
    said = io.StringIO()
    argv = ["--summary", "--config", str(ws.config), "--cwd", str(ws.root), str(path)]
    code = audit_main(argv, out=said, err=io.StringIO())
    assert code == 1 and "3 calls:" in said.getvalue()
    assert f"{path}:4: error: longer than 32 MiB" in said.getvalue()


def test_standard_input_is_read_a_line_at_a_time_too(ws: Workspace) -> None:
    text = _turn(0, str(ws.root), "small") + "not json\n"
    done = run_bounded(
        [sys.executable, "-m", "bastion", "audit", "--summary", "--config", str(ws.config), "-"],
        "an audit of standard input",
        input=text.encode(),
        capture_output=True,
        cwd=ws.root,
    )
    said = done.stdout.decode()
    assert done.returncode == 1 and "1 calls:" in said and "<stdin>:3: error: not JSON" in said, said
