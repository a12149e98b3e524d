"""The launcher: `python -I -S -B _launch.py RULESET PARENT COMMAND ARG...` runs COMMAND (looked up
in PATH, environment unchanged) for one call, and ends every process the call started once COMMAND
ends, once bastion asks (SIGTERM), and once bastion dies.

It stays COMMAND's parent: a subreaper (PR_SET_CHILD_SUBREAPER), so a process the command left
behind, even one that left its process group (`setsid nohup ... &`), is re-parented to it, not to
init, and is found as one of its descendants; when COMMAND has exited, every descendant is killed
and reaped before the launcher exits with COMMAND's status. PR_SET_PDEATHSIG sends it SIGTERM when
the bastion thread that started it ends (bastion killed, even by kill -9), and it ends them too: no
process of a call outlives it to write after the write lock and the turn's checkpoint let go.
PARENT is bastion's pid: a launcher whose parent is already gone runs nothing.

RULESET is a Landlock ruleset's descriptor, or `-` for none. The launcher applies it to itself
(with no_new_privs) and so to every process of the call; ending and reaping them is not something
the ruleset forbids, since they are in its own domain. COMMAND is started with posix_spawn, so no
Python code runs between fork and exec (in bastion, a process with threads, that could deadlock;
here it would only cost time), with the signals the launcher blocked or caught back at their
defaults. The launcher imports the standard library only (-I -S: no site, no PYTHON* variable, no
bastion), and fails closed: if the ruleset cannot be applied it says so and exits 126 without
running anything.
"""

# The C module: `signal` would import enum, some 2-10 ms of every command's start.
import _signal as signal  # type: ignore[import-not-found]
import ctypes
import os
import sys

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_RESTRICT_SELF = 446  # landlock_restrict_self, the same number on every architecture but alpha
REFUSED = 126
# What ends a call from outside: bastion's SIGTERM (asked, or sent by the kernel at its death).
_TERM: int = signal.SIGTERM
_KILL: int = signal.SIGKILL
_ENDING: tuple[int, ...] = (_TERM, signal.SIGHUP, signal.SIGINT)
# Rounds of killing what is left; each kills every descendant found, so only a process forked
# in the instant between a scan and its parent's kill needs another.
_ROUNDS = 100


class _Ended(Exception):
    """bastion ended the call (or died)."""


def _end(signum: int, frame: object) -> None:
    raise _Ended


def _prctl(libc: ctypes.CDLL, option: int, value: int) -> bool:
    zero = ctypes.c_ulong(0)
    return bool(libc.prctl(option, ctypes.c_ulong(value), zero, zero, zero) == 0)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or not (argv[1] == "-" or argv[1].isdigit()) or not argv[2].isdigit():
        sys.stderr.write("bastion: the launcher needs a ruleset descriptor (or -), a pid and a command\n")
        return REFUSED
    ruleset = None if argv[1] == "-" else int(argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)  # taken when waiting, never in between
    for signum in _ENDING:
        signal.signal(signum, _end)
    _prctl(libc, _PR_SET_PDEATHSIG, _TERM)
    if os.getppid() != int(argv[2]):
        sys.stderr.write("bastion: bastion ended before the command started; nothing ran\n")
        return REFUSED
    # Where the kernel has no subreaper (before 3.4), what left the process group is not found.
    _prctl(libc, _PR_SET_CHILD_SUBREAPER, 1)
    if ruleset is not None:
        refused = _confine(libc, ruleset)
        if refused is not None:
            return _refuse(refused)
    command = argv[3:]
    try:
        # posix_spawn (vfork): no Python runs between fork and exec; the command gets the signals
        # this process blocked or caught back at their defaults.
        child = os.posix_spawnp(command[0], command, os.environ, setsigmask=(), setsigdef=_ENDING)
    except OSError as err:
        sys.stderr.write(f"bastion: {command[0]}: {err.strerror}\n")
        return 127
    status = None
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)
        while status is None:
            pid, code = os.waitpid(-1, 0)
            if pid == child:
                status = code
    except _Ended:
        pass
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
        _end_all()
    if status is None:
        return 128 + _TERM
    if os.WIFSIGNALED(status):
        ended = os.WTERMSIG(status)
        if ended not in (_KILL, signal.SIGSTOP):
            signal.signal(ended, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (ended,))
        os.kill(os.getpid(), ended)  # ended as the command was (SIGKILL, SIGSEGV...)
        return 128 + ended
    return os.waitstatus_to_exitcode(status)


def _confine(libc: ctypes.CDLL, ruleset: int) -> str | None:
    """Apply the ruleset to this process, and so to every process of the call (what this one does
    after it, ending and reaping them, the ruleset never forbids: they are in its own domain); what
    failed, or None."""
    # no_new_privs: a set-uid program run later cannot shed the restriction (the kernel requires it).
    if not _prctl(libc, _PR_SET_NO_NEW_PRIVS, 1):
        return "no_new_privs could not be set"
    if libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)):
        return "the Landlock ruleset could not be applied"
    os.close(ruleset)
    return None


def _descendants() -> list[int]:
    """Every process below this one, from each process's parent in /proc/PID/stat (a scan of a
    few hundred small files; /proc/PID/task/TID/children is not in every kernel)."""
    below: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                # pid (comm) state ppid ...: the name may hold spaces and parentheses, so after the last ")".
                parent = int(handle.read().rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        below.setdefault(parent, []).append(int(entry))
    found: list[int] = []
    todo = [os.getpid()]
    while todo:
        kids = below.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _end_all() -> None:
    """Kill every descendant and reap those re-parented here, until none is left."""
    try:
        os.waitpid(-1, os.WNOHANG)  # reaps one that has ended; raises when there is no child at all
    except ChildProcessError:
        return  # nothing below: a process below has a living parent, or was re-parented here
    for _ in range(_ROUNDS):
        found = _descendants()
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, _KILL)
            except (ProcessLookupError, PermissionError):
                continue
        try:
            os.waitpid(-1, 0)  # a child killed above: its end, then every other one already ended
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return


def _refuse(what: str) -> int:
    sys.stderr.write(f"bastion: {what} ({os.strerror(ctypes.get_errno())}); nothing ran\n")
    return REFUSED


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stderr.flush()
    os._exit(code)  # no interpreter shutdown: it would only add to every command's time
