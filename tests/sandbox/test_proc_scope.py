"""What a command can read of its parent's /proc entry, run as root and as another user, confined by
Landlock or not, its parent dumpable or not: the facts docs/rules.md (rule 11) states, executed
here, not assumed. The "parent" (the process that starts the command, as bastion does; under the
sandbox the launcher stands between them) is a process with a marker in its initial environment (as bastion's
would hold a key without its re-execution)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import needs_landlock

ROOT = Path(__file__).resolve().parents[2]
MARKER = "PROC_SCOPE_MARKER=in-the-environ"
# The parent: starts the reader confined or not (after making itself non-dumpable, if asked), and
# prints what the reader could open of the parent's entry.
PARENT = r"""
import ctypes, json, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
from bastion.sandbox._confine import launch
from bastion.sandbox._types import SandboxConfig, confinement_for
if sys.argv[3] == "nodump":
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
reader = '''
import json, os, sys
found = {}
for name in ("environ", "mem", "cmdline"):
    try:
        with open(f"/proc/{sys.argv[1]}/{name}", "rb") as handle:
            found[name] = b"PROC_SCOPE_MARKER" in handle.read(1 << 20) if name == "environ" else "read"
    except OSError as err:
        found[name] = err.strerror
print(json.dumps(found))
'''
# The reader is given this process's pid: under the sandbox its parent is the launcher, which is
# inside the ruleset's domain with it; what matters is what it can read of the process that started it.
argv = [sys.executable, "-c", reader, str(os.getpid())]
if sys.argv[2] == "confined":
    with launch(confinement_for(SandboxConfig(), read_only=True), argv, dict(os.environ), None) as ready:
        fds = (ready.ruleset,)
        done = subprocess.run(ready.argv, env=ready.env, pass_fds=fds, capture_output=True, text=True)
else:
    done = subprocess.run(argv, capture_output=True, text=True)
print(done.stdout.strip() or done.stderr)
"""


def _read(python: str, as_user: list[str], confined: bool, dumpable: bool) -> dict[str, object]:
    argv = [*as_user, python, "-c", PARENT, str(ROOT), "confined" if confined else "free"]
    env = {"PATH": os.defpath, MARKER.split("=")[0]: MARKER.split("=")[1]}
    done = subprocess.run([*argv, "dump" if dumpable else "nodump"], env=env, capture_output=True, text=True,
                          timeout=60, cwd="/")  # fmt: skip
    found: dict[str, object] = json.loads(done.stdout)
    return found


@needs_landlock
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_landlock_and_non_dumpable_hide_the_environ_from_another_user_and_not_from_root() -> None:
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("needs a python3 another user may run")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    # Another user (not root): the sandbox alone hides it; so does non-dumpable alone.
    assert _read(python, nobody, confined=False, dumpable=True)["environ"] is True
    assert _read(python, nobody, confined=True, dumpable=True)["environ"] == "Permission denied"
    assert _read(python, nobody, confined=False, dumpable=False)["environ"] == "Permission denied"
    # Root: non-dumpable hides nothing (hence the re-execution); Landlock still refuses the memory. (A
    # confined command of root's read the environ on this project's kernel, 6.18: docs/design.md.)
    assert _read(python, [], confined=False, dumpable=False)["environ"] is True
    assert _read(python, [], confined=True, dumpable=False)["mem"] == "Permission denied"
