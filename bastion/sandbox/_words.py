"""The sandbox's words for people and the model: which sandbox a call runs under, what the kernel
enforces, the notice at start, and the note on a failure the sandbox caused."""

from __future__ import annotations

import os
import re

from ._types import Confinement, SandboxConfig, landlock_abi

__all__ = ["denial_note", "describe", "enforced", "start_notice"]

# What each Landlock ABI added, as bastion uses it.
_FEATURES = (
    (1, "file writes, creates and removes (files, directories, links, FIFOs, sockets, devices)"),
    (2, "links and renames into another directory"),
    (3, "truncation"),
    (4, "TCP connect and bind"),
    (5, "ioctl on devices (read-only commands)"),
    (6, "signals and abstract unix sockets to processes outside the sandbox (read-only commands)"),
)
_DENIED = re.compile(r"Permission denied|Operation not permitted|Read-only file system")
_QUOTED = re.compile(r"['‘\"`]([^'‘’\"`\n]+)['’\"`]")
_ABSOLUTE = re.compile(r"(?<![\w.~-])/[^\s'‘’\"`:,;()]+")
_MAX_NAMED = 3
# Pseudo filesystems whose files a refusal may name for another reason than a write (a read of
# /proc/PID/mem is refused by the kernel's ptrace check; /proc/self is this process, not the
# command's): never said to be a write the sandbox refused.
_PSEUDO = ("/proc", "/sys")


def _network(conf: Confinement, version: int) -> str:
    if conf.network:
        return "the network is allowed"
    if version >= 4:
        return "no TCP connect or bind"
    return f"TCP is not restricted (this kernel's Landlock is ABI {version}; TCP needs 4)"


def forbids(conf: Confinement, version: int, root: str) -> str:
    """What a command under `conf` may not do, on a kernel of ABI `version`."""
    if conf.read_only:
        parts = ["nothing written, created, removed, renamed or truncated but /dev/null and the terminal"]
        parts.append(_network(conf, version))
        if version >= 6:
            parts.append("no signal or abstract socket to a process outside the sandbox")
        return "; ".join(parts)
    places = ", ".join([root, "a private temporary directory ($TMPDIR)", *conf.writable])
    parts = [f"writes only in {places}", _network(conf, version)]
    if version < 2:
        parts.append("no file linked or renamed into another directory, even inside (ABI 1)")
    if version < 3:
        parts.append(f"truncation is not restricted (ABI {version}; it needs 3)")
    return "; ".join(parts)


def describe(config: SandboxConfig, *, read_only: bool, root: str, abi: int | None = None) -> str:
    """The sandbox a call would run under, for doctor; `abi` is the Landlock ABI of the kernel the
    command runs on (an executor's; None: this one's)."""
    if config.mode == "off":
        return 'none: sandbox = "off" in your config, so the command runs unconfined'
    version = landlock_abi() if abi is None else abi
    kernel = "this kernel" if abi is None else "the executor's kernel"
    if version == 0:
        if config.mode == "require":
            return f'required (sandbox = "require") but {kernel} has no Landlock: the command is refused'
        return f'none: {kernel} has no Landlock, and sandbox = "auto" runs commands unconfined'
    conf = Confinement(True) if read_only else Confinement(False, config.writable, config.network)
    kind = "read-only (the analyzer's plan)" if read_only else "workspace (an approved line)"
    return f"{kind}, Landlock ABI {version}: {forbids(conf, version, root)}"


def enforced(version: int) -> list[str]:
    """One line per Landlock feature bastion knows: whether this kernel's ABI enforces it."""
    return [f"{'yes' if version >= needs else 'no ':3}  {what} (ABI {needs})" for needs, what in _FEATURES]


def start_notice(config: SandboxConfig, abi: int | None = None) -> str | None:
    """What a session says once at start about its sandbox, or None when there is nothing to say;
    `abi` is the Landlock ABI of the kernel its commands run on (an executor's; None: this one's)."""
    if config.mode == "off" or (landlock_abi() if abi is None else abi) > 0:
        return None
    kernel = "this kernel" if abi is None else "the executor's kernel"
    if config.mode == "require":
        return f'sandbox = "require", but {kernel} has no Landlock: every bash command will be refused'
    return f'{kernel} has no Landlock: bash commands run without the sandbox (sandbox = "auto")'


def _candidates(line: str) -> list[str]:
    """The names an error line may be about: quoted ones, absolute paths, and the field before
    the error ("bash: out.txt: Permission denied")."""
    names = _QUOTED.findall(line) + _ABSOLUTE.findall(line)
    fields = line.split(": ")
    names += [f.strip() for f, after in zip(fields, fields[1:], strict=False) if _DENIED.match(after)]
    return [name for name in names if name and "\x00" not in name]


def _inside(path: str, places: list[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in places)


def _writable_without(path: str) -> bool:
    """Whether this process, which is not sandboxed, could write `path` (or create it), on a
    filesystem whose permissions say so (not /proc or /sys)."""
    if _inside(path, list(_PSEUDO)):
        return False
    if os.path.lexists(path):
        return os.access(path, os.W_OK, follow_symlinks=False)
    parent = os.path.dirname(path)
    return os.path.isdir(parent) and os.access(parent, os.W_OK | os.X_OK)


def denial_note(output: str, conf: Confinement, root: str, cwd: str, abi: int | None = None) -> str | None:
    """A note for the output of a command run under `conf` when it reports a refusal the sandbox
    may have caused; None when it reports none. A name is said refused by the sandbox only when
    the sandbox forbids writing it and this process could write it without the sandbox. Landlock
    answers EACCES like any permission check, and the kernel tells no one which check refused
    (its audit log is for root), so the rest is said as a possibility. `abi`: an executor's kernel's
    (its names are not looked at here); None: this one's."""
    lines = [line for line in output.splitlines() if _DENIED.search(line)]
    if not lines:
        return None
    what = forbids(conf, landlock_abi() if abi is None else abi, root)
    if abi is not None:  # an executor's: its files are not this machine's to look at
        return f"[sandbox: this command ran in the executor's sandbox ({what}); a refusal above may be its]"
    allowed = ["/dev/null", "/dev/tty"] if conf.read_only else ["/dev/null", "/dev/tty", root, *conf.writable]
    allowed = [os.path.realpath(p) for p in allowed]
    refused: list[str] = []
    for line in lines:
        for name in _candidates(line):
            path = os.path.realpath(os.path.join(cwd, name))
            if path not in refused and not _inside(path, allowed) and _writable_without(path):
                refused.append(path)
    if refused:
        named = ", ".join(refused[:_MAX_NAMED]) + (" and others" if len(refused) > _MAX_NAMED else "")
        return f"[sandbox: the sandbox refused a write to {named}: this command may not write there ({what})]"
    return (
        f"[sandbox: this command ran in the sandbox ({what}); if a refusal above was of a write or a "
        "connection it forbids, the sandbox refused it]"
    )
