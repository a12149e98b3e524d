"""Landlock through its three system calls (ctypes): the kernel's ABI version, and a ruleset built
here, in the parent, for the launcher (_launch.py) to apply to itself in the child before exec.

The numbers are linux/landlock.h's. The system calls were added after the numbering was unified, so
444, 445 and 446 are theirs on every architecture Linux runs Python on (alpha aside). What a
ruleset does not handle stays allowed, so a right an older kernel does not know is left out of
the handled set, never sent: the ruleset enforces what that kernel can.
"""

from __future__ import annotations

import ctypes
import functools
import os
import stat
import sys
from typing import NamedTuple, NoReturn

__all__ = ["Grant", "Rights", "abi", "build", "rights"]

_CREATE_RULESET, _ADD_RULE = 444, 445
_VERSION = 1  # LANDLOCK_CREATE_RULESET_VERSION
_PATH_BENEATH = 1  # LANDLOCK_RULE_PATH_BENEATH

# Filesystem rights that change something (reads and execute are not handled: they stay allowed).
WRITE_FILE = 1 << 1
REMOVE_DIR, REMOVE_FILE = 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK = 1 << 6, 1 << 7, 1 << 8, 1 << 9
MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 10, 1 << 11, 1 << 12
REFER = 1 << 13  # ABI 2: link or rename into another directory
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5: ioctl on a device opened after the restriction
_ABI1_WRITES = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
    | MAKE_BLOCK | MAKE_SYM
)  # fmt: skip
# The rights a rule may grant on a file that is not a directory.
_FILE_RIGHTS = WRITE_FILE | TRUNCATE | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 12 bytes
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class Rights(NamedTuple):
    """What a ruleset forbids unless a rule grants it: filesystem rights, TCP rights, scopes."""

    fs: int
    net: int
    scoped: int


class Grant(NamedTuple):
    """A rule: the rights granted beneath a directory (or on a file), given by an open descriptor
    or by a path opened here."""

    where: int | str
    fs: int


@functools.cache
def _syscall() -> ctypes._NamedFuncPointer:
    function = ctypes.CDLL(None, use_errno=True).syscall
    function.restype = ctypes.c_long
    return function


@functools.cache
def abi() -> int:
    """The kernel's Landlock ABI version; 0 when it has none (not Linux, too old, not built in, or
    left out of the LSMs at boot)."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _syscall()(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    return max(int(version), 0)


def rights(version: int, *, read_only: bool, network: bool) -> Rights:
    """The rights a command's ruleset handles on a kernel of ABI `version`: every write, create,
    remove, rename and truncate; for a read-only command also device ioctls, and signals and
    abstract sockets towards processes outside the sandbox; TCP bind and connect unless allowed."""
    fs = _ABI1_WRITES
    if version >= 2:
        fs |= REFER
    if version >= 3:
        fs |= TRUNCATE
    if version >= 5 and read_only:
        fs |= IOCTL_DEV
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 and not network else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 and read_only else 0
    return Rights(fs, net, scoped)


def _raise(what: str) -> NoReturn:
    err = ctypes.get_errno()
    raise OSError(err, f"the sandbox could not {what}: {os.strerror(err)}")


def _add(ruleset: int, grant: Grant, handled: int) -> None:
    opened = isinstance(grant.where, str)
    fd = os.open(grant.where, os.O_PATH | os.O_CLOEXEC) if isinstance(grant.where, str) else grant.where
    try:
        allowed = grant.fs & handled
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            allowed &= _FILE_RIGHTS
        if not allowed:
            return
        attr = _PathBeneathAttr(allowed, fd)
        done = _syscall()(
            ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset), ctypes.c_uint(_PATH_BENEATH),
            ctypes.byref(attr), ctypes.c_uint32(0),
        )  # fmt: skip
        if done != 0:
            _raise(f"grant writes to {grant.where if opened else 'the workspace'}")
    finally:
        if opened:
            os.close(fd)


def build(handled: Rights, grants: list[Grant]) -> int:
    """A ruleset descriptor (close-on-exec) forbidding `handled` but what `grants` allow. A path
    that does not exist is skipped (nothing can be written there); any other failure raises
    OSError, and nothing should run."""
    attr = _RulesetAttr(handled.fs, handled.net, handled.scoped)
    ruleset = _syscall()(
        ctypes.c_long(_CREATE_RULESET),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
        ctypes.c_uint32(0),
    )
    if ruleset < 0:
        _raise("create a Landlock ruleset")
    try:
        for grant in grants:
            try:
                _add(int(ruleset), grant, handled.fs)
            except FileNotFoundError:
                continue
    except BaseException:
        os.close(int(ruleset))
        raise
    return int(ruleset)
