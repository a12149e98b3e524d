"""Nothing that decides crosses to the executor: the model's key is not in what the session sends,
nor in the environment the executor or its commands get (even when pass_env names it), and the
stamp's key never crosses (a command carries the facts it was decided on and their digest only)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bastion.agent._executor_setup import open_workspace
from bastion.analyzer import Stamper, analyze
from bastion.workspace import ExecRequest, ExecutorWorkspace

CANARY = "sk-ant-canary-5b9e0f1d2c3a"


def test_the_executor_never_receives_a_key_or_the_stamp_key(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    sent = tmp_path / "sent.log"
    # The transport: a shell that keeps a copy of every frame the session sends.
    argv = [
        "sh",
        "-c",
        'tee "$1" | exec "$2" -m bastion execute "$3"',
        "sh",
        str(sent),
        sys.executable,
        str(root),
    ]
    environ = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path),
        "ANTHROPIC_API_KEY": CANARY,
        "MY_TOKEN": "tok-" + CANARY,
    }
    ws = open_workspace(
        argv, str(root), environ, ["ANTHROPIC_API_KEY"], ["ANTHROPIC_API_KEY"], ["ANTHROPIC_API_KEY"]
    )
    assert isinstance(ws, ExecutorWorkspace)
    try:
        stamper = Stamper()
        analysis = analyze("cat a.txt", ws, ".")
        stamp = stamper.plan_stamp(analysis, ws)
        facts = stamper.verify_plan(stamp, analysis, ws)
        assert analysis.rendered is not None and facts is not None
        ran = ws.exec(ExecRequest(["bash", "-c", analysis.rendered], env=ws.env(), facts=facts))
        assert ran.output == b"alpha\n"
        seen = ws.exec(
            ExecRequest(["sh", "-c", 'env; tr "\\0" "\\n" < /proc/$PPID/environ'], env=ws.env())
        ).output.decode()
    finally:
        ws.close()
    assert "HOME=" in seen and CANARY not in seen
    assert "MY_TOKEN" not in seen and "ANTHROPIC_API_KEY" not in seen
    frames = sent.read_text()
    assert '"op":"exec"' in frames and facts.digest in frames
    key = stamper._key  # the test reads the key only to look for it in what crossed
    for form in (key.hex(), key.hex().upper(), __import__("base64").b64encode(key).decode()):
        assert form not in frames
    assert CANARY not in frames and "ANTHROPIC_API_KEY" not in frames
    assert stamp is not None and stamp not in frames
