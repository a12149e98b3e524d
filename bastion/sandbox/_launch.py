"""The launcher: `python -I -S -B _launch.py FD COMMAND ARG...` applies the Landlock ruleset open as
FD to itself, closes it, and becomes COMMAND (looked up in PATH, environment unchanged).

It runs in the child, so nothing is applied between fork and exec by Python code in a process
with threads (subprocess's preexec_fn): the agent's process only spawns. It imports the standard
library only (-I -S: no site, no PYTHON* variable, no bastion), and fails closed: if the ruleset
cannot be applied it says so and exits 126 without running anything.
"""

import ctypes
import os
import sys

_PR_SET_NO_NEW_PRIVS = 38
_RESTRICT_SELF = 446  # landlock_restrict_self, the same number on every architecture but alpha
REFUSED = 126


def main(argv: list[str]) -> int:
    if len(argv) < 3 or not argv[1].isdigit():
        sys.stderr.write("bastion: the sandbox launcher needs a ruleset descriptor and a command\n")
        return REFUSED
    ruleset, command = int(argv[1]), argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    # no_new_privs: a set-uid program run later cannot shed the restriction (the kernel requires it).
    if libc.prctl(
        _PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)
    ):
        return _refuse("no_new_privs could not be set")
    if libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)):
        return _refuse("the Landlock ruleset could not be applied")
    os.close(ruleset)
    try:
        os.execvp(command[0], command)
    except OSError as err:
        sys.stderr.write(f"bastion: {command[0]}: {err.strerror}\n")
    return 127


def _refuse(what: str) -> int:
    sys.stderr.write(f"bastion: {what} ({os.strerror(ctypes.get_errno())}); nothing ran\n")
    return REFUSED


if __name__ == "__main__":
    sys.exit(main(sys.argv))
