"""Whether the file a command word reaches on PATH is the program its name says (design rule 42).

A multiplexer is one program that dispatches on the name it is called by and reads configuration,
its own, the user's or the project's: a mise or asdf shim `node` runs the version (or the
`path:./evil` directory) that the project's `.tool-versions` or `mise.toml` names; ccache's
masquerade directory holds `gcc -> ../../bin/ccache`, which writes its cache and then runs a
compiler; rustup's proxies (`cargo -> rustup`) read the project's `rust-toolchain.toml`; volta,
proto, distcc, icecc, pyenv and the rest work the same way. Each is an ELF binary outside the
workspace, so the lookup's other tests would trust it. Allow-list minded, `impostor` says why a
file asks; it is reached:

- by a link whose final name, once every link is followed, is not the command's, unless it is a
  name the same program goes by (`same_program`): a version (`python3 -> python3.11`), the GNU
  target triplet of a toolchain (`gcc -> x86_64-linux-gnu-gcc-12`, `strings` of binutils), or a
  pair of `ALSO_CALLED`, each seen on Debian 12 (`awk -> /etc/alternatives/awk -> gawk` or `mawk`);
- as a known multiplexer (`MULTIPLEXERS`, by its final name), whatever name reached it;
- in a shim directory (`SHIM_DIRECTORIES`: a PATH entry, as written or followed, or the file's
  own directory): an ELF binary there is a shim too (proto's are copies named like the tool);
- or as a file of several names (hard links): rustup has made its proxies so, npm links
  mise's binary twice, and a multiplexer linked under a tool's name cannot be told from the tool
  without a search of the whole file system. None of the programs bastion runs has two names on
  Debian 12 (a git of git's own `make install` does, and asks).

An ELF binary's content (a multiplexer's name inside it) is not looked at: a whole binary is read
for no name that the rules above miss (a copy of a multiplexer under a tool's name in a directory
of no known manager), and a name in it proves nothing either way.
"""

from __future__ import annotations

import posixpath
import re

__all__ = ["ALSO_CALLED", "MULTIPLEXERS", "SHIM_DIRECTORIES", "hard_linked", "impostor", "same_program"]

# Programs that pick what to run by the name they are called by and by configuration: version
# managers (their shims), compiler wrappers (their masquerade links), and multi-call binaries whose
# applets are not the tools the checkers are held to (busybox) or run confined (snap).
MULTIPLEXERS = frozenset(
    {"mise", "rtx", "asdf", "pyenv", "rbenv", "nodenv", "goenv", "jenv", "volta", "proto", "rustup",
     "ccache", "distcc", "icecc", "icerun", "sccache", "direnv", "busybox", "snap"}
)  # fmt: skip
# Directories (a path's last components) whose every program is a shim: `shims` of mise, asdf,
# pyenv (and pyenv-virtualenv), rbenv, nodenv, goenv, jenv and proto; rustup's proxies in
# $CARGO_HOME/bin; volta's and proto's bin; ccache's masquerade directory (Debian /usr/lib/ccache,
# Fedora /usr/lib64/ccache, Arch /usr/lib/ccache/bin, Homebrew's libexec), distcc's (Debian
# /usr/lib/distcc, Arch /usr/lib/distcc/bin) and icecc's (/usr/lib/icecc/bin, /usr/libexec/icecc/bin).
SHIM_DIRECTORIES = (
    "shims", ".cargo/bin", ".volta/bin", ".proto/bin", "ccache", "ccache/bin", "ccache/libexec",
    "distcc", "distcc/bin", "icecc", "icecc/bin",
)  # fmt: skip
# Names a command's program goes by once its links are followed, beyond versions and triplets,
# each seen on Debian 12 (`update-alternatives --display`): awk's alternatives gawk (priority 10)
# and mawk (5), the two awks the awk checker is held to (original-awk, the third, is not); which's
# (debianutils 5.7 moved its script to which.debianutils); /bin/sh as dash (the interpreter of a
# pinned script; a bash diverted there is not seen, and asks).
ALSO_CALLED: dict[str, frozenset[str]] = {
    "awk": frozenset({"gawk", "mawk"}),
    "which": frozenset({"which.debianutils"}),
    "sh": frozenset({"dash"}),
}
# A GNU target triplet before a toolchain's name (x86_64-linux-gnu-, arm-linux-gnueabihf-,
# x86_64-pc-linux-gnu-), and a version after a name (python3.11, gcc-12, tclsh8.6).
_TRIPLET = r"(?:[a-z0-9_]+-)+linux-gnu[a-z0-9_]*-"
_VERSION = r"(?:[-.]?[0-9]+(?:\.[0-9]+)*)?"
_LEAD = re.compile(r"[a-z]+")


def same_program(command: str, name: str) -> bool:
    """Whether a file called `name` (its links followed) is the program `command` names: the same
    name, the name with a version or a target triplet, or one of `ALSO_CALLED`."""
    if name == command or name in ALSO_CALLED.get(command, ()):
        return True
    return re.fullmatch(f"(?:{_TRIPLET})?{re.escape(command)}{_VERSION}", name) is not None


def multiplexer(name: str) -> bool:
    """Whether `name` is a known multiplexer's, with whatever follows its letters (`volta-shim`,
    `rustup-init`, `mise-v2026.9.15-linux-x64`)."""
    lead = _LEAD.match(name)
    return lead is not None and lead.group() in MULTIPLEXERS


def shim_directory(path: str) -> bool:
    """Whether `path` (absolute, normal) is a shim directory: it ends with one of SHIM_DIRECTORIES."""
    return any(path.endswith("/" + tail) for tail in SHIM_DIRECTORIES)


def impostor(command: str, real: str, entries: tuple[str, ...]) -> str:
    """Why the file reached for `command` (`real` once its links are followed, on the PATH entries
    `entries`, as written and followed) may not be the program its name says, as the end of a
    sentence about it; "" if nothing says so."""
    for directory in (*entries, posixpath.dirname(real)):
        if shim_directory(directory):
            return (
                f"is in {directory}, where a version manager or a compiler wrapper keeps its shims: a shim "
                "runs the program its manager picks by the name it is called by and by settings the project "
                "can hold"
            )
    name = posixpath.basename(real)
    if multiplexer(name):
        return (
            f"is {real}, the multiplexer {name}: it picks what to run by the name it is called by and by "
            "configuration the project can hold"
        )
    if not same_program(command, name):
        return (
            f"leads to {real}, a program called {name}: a link that gives a program another name (a shim "
            "of mise, ccache, rustup...) runs what that program picks"
        )
    return ""


def hard_linked(names: int) -> str:
    """Why a file of `names` hard links asks, as the end of a sentence about it; "" for one name."""
    if names > 1:
        return (
            f"is one of {names} names of one file (hard links): a multiplexer linked under a tool's name "
            "cannot be told from the tool"
        )
    return ""
