"""A reader that goes away early (`bastion check ... | head -1`) ends bastion quietly: no traceback."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from tests.waits import PATIENCE


def test_a_closed_pipe_ends_check_without_a_traceback(tmp_path: Path) -> None:
    request = '{{"cwd": "{cwd}", "tool": "bash", "arguments": {{"command": "ls -la x{i}"}}}}\n'
    requests = "".join(request.format(cwd=tmp_path, i=i) for i in range(3000))
    proc = subprocess.Popen(
        [sys.executable, "-m", "bastion", "check", "--config", "/dev/null", "--jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin = proc.stdin

    def feed() -> None:
        try:
            stdin.write(requests.encode())
            stdin.close()
        except BrokenPipeError:
            pass  # bastion stopped reading: what the test waits for

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    assert proc.stdout.readline().startswith(b"{")
    proc.stdout.close()  # as head does after its first line
    err = proc.stderr.read().decode()
    proc.wait(timeout=PATIENCE)
    writer.join(timeout=PATIENCE)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
