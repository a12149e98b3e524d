"""The run environment's git config (fuzz/hostile.py adds these variants to VARIANTS as class 433):
filter drivers (and diff drivers' textconv and command) that the user's or the system's config, or
the environment's command scope, defines and the repository's attributes choose.

Each variant is a fixture whose scratch copy keeps its index as copied (every tracked file's stat
data changed, so git status, diff and blame hash each one again through its driver), and an
environment the line is decided and run in (`env`, from the scratch workspace): the user's config
file beside the workspace (GIT_CONFIG_GLOBAL), the system's (GIT_CONFIG_SYSTEM), or GIT_CONFIG_COUNT
and GIT_CONFIG_PARAMETERS. Every driver runs the fixture's evil.sh, which writes to HOME, or
`python3 -m nbstripout`, which imports the repository's own nbstripout.py (nbstripout's `--global`
install); git-lfs's is the system's, with `process` and `required` (Debian's package).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

__all__ = ["VARIANTS43"]

Git = Callable[..., object]  # (directory, *arguments): runs git there
Make = Callable[[Path, Git], None]
Env = Callable[[Path], dict[str, str]]  # the scratch workspace -> the variables it runs with

_USER = (
    '[filter "userf"]\n\tclean = {evil}\n\tsmudge = {evil}\n'
    '[diff "usert"]\n\ttextconv = {evil}\n\tcommand = {evil}\n'
)
_ALL = "* filter=userf diff=usert\n"
_NBSTRIPOUT = (
    '[filter "nbstripout"]\n\tclean = "python3" -m nbstripout\n\tsmudge = cat\n'
    '[diff "ipynb"]\n\ttextconv = "python3" -m nbstripout -t\n'
)
_LFS = (
    '[filter "lfs"]\n\tclean = {evil} clean -- %f\n\tsmudge = {evil} smudge -- %f\n'
    "\tprocess = {evil} filter-process\n\trequired = true\n"
)
_NAMES = (
    '[filter "Evil"]\n\tclean = {evil}\n[filter "a.b"]\n\tclean = {evil}\n[filter ""]\n\tclean = {evil}\n'
)
_NAMED = "*.go filter=Evil\n*.md filter=a.b\n*.txt filter=\n"  # the empty name too
# Imported by `python3 -m nbstripout` from the directory git runs the driver in: the repository's top.
_MODULE = "import os, sys\nopen(os.environ['HOME'] + '/pwned-nb', 'w')\nsys.stdout.write(sys.stdin.read())\n"


def _config(name: str, text: str, attributes: str, info: bool = False) -> Make:
    """Config `text` (`{evil}` the fixture's evil.sh) written beside the workspace as `name` (none
    for ""), and `attributes` in the workspace's .gitattributes (or the git directory's
    info/attributes)."""

    def make(ws: Path, git: Git) -> None:
        if name:
            (ws.parent / name).write_text(text.format(evil=ws.parent / "evil.sh"))
        (ws / ".git" / "info" / "attributes" if info else ws / ".gitattributes").write_text(attributes)

    return make


def _nbstripout(ws: Path, git: Git) -> None:
    (ws / "nb.ipynb").write_text('{"cells": []}\n')
    (ws / "nbstripout.py").write_text(_MODULE)
    git(ws, "add", "nb.ipynb", "nbstripout.py")
    git(ws, "commit", "-q", "-m", "notebook")
    _config("user.gitconfig", _NBSTRIPOUT, "*.ipynb filter=nbstripout diff=ipynb\n")(ws, git)


def _include(ws: Path, git: Git) -> None:
    _config("filters.inc", '[filter "incf"]\n\tclean = {evil}\n', "* filter=incf\n")(ws, git)
    (ws.parent / "user.gitconfig").write_text("[include]\n\tpath = filters.inc\n")


def _user(ws: Path) -> dict[str, str]:
    return {"GIT_CONFIG_GLOBAL": str(ws.parent / "user.gitconfig")}


def _system(ws: Path) -> dict[str, str]:
    return {"GIT_CONFIG_SYSTEM": str(ws.parent / "system.gitconfig"), "GIT_CONFIG_NOSYSTEM": "0"}


def _command(ws: Path) -> dict[str, str]:
    evil = ws.parent / "evil.sh"
    return {
        "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "filter.envf.clean", "GIT_CONFIG_VALUE_0": str(evil),
        "GIT_CONFIG_PARAMETERS": f"'filter.envp.clean'='{evil}'",
    }  # fmt: skip


VARIANTS43: dict[str, tuple[Make, Env]] = {
    "filter:user": (_config("user.gitconfig", _USER, _ALL), _user),
    "filter:nbstripout": (_nbstripout, _user),
    "filter:system-lfs": (_config("system.gitconfig", _LFS, "*.go filter=lfs diff=lfs -text\n"), _system),
    "filter:include": (_include, _user),
    "filter:info-attributes": (_config("user.gitconfig", _USER, _ALL, info=True), _user),
    "filter:names": (_config("user.gitconfig", _NAMES, _NAMED), _user),
    "filter:command-scope": (_config("", "", "*.go filter=envf\n*.md filter=envp\n"), _command),
}  # fmt: skip
