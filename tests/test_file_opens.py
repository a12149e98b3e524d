"""A FIFO (or a device) where bastion expects a file never hangs it: every open of a file bastion did
not make goes through bastion/_files.py (non-blocking, regular files only), found by a scan of every
open in bastion/; and each command that reads a named file refuses a FIFO at once, naming it."""

from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

# Private: bastion's one opener of files it did not make is the thing tested.
from bastion._files import NotRegularFile, open_append, open_regular, open_replacing, read_regular
from tests.waits import PATIENCE

ROOT = pathlib.Path(__file__).resolve().parents[1]
THE_OPEN = "bastion/_files.py"

# The opens that cannot block or act, by module and what they open (the first argument as written),
# each with why. Anything else is a stray: route it through bastion/_files.py.
ALLOWED = {
    (
        "bastion/agent/skills/_memory.py",
        "name",
    ): "O_NOFOLLOW and O_NONBLOCK from the directory's descriptor, then fstat: "
    "a regular file or a refusal naming the note (a link is said as a link)",
    (
        "bastion/agent/skills/_memory.py",
        "tmp",
    ): "flags holds O_CREAT | O_EXCL: a new file, never one that was there",
    ("bastion/cli.py", "os.devnull"): "/dev/null, to silence a closed pipe",
    ("bastion/agent/front/_one_shot_answers.py", "TERMINAL"): "the controlling terminal, a device on purpose",
    ("bastion/agent/front/_one_shot.py", "os.devnull"): "/dev/null, to silence a closed pipe",
    ("bastion/agent/acp/_wire.py", "os.devnull"): "/dev/null, standard input once the protocol has its own",
    ("bastion/grammar/_tables.py", "os.path.join(self.directory, self.name)"): "bastion's own grammar files",
    ("bastion/grammar/_tables.py", "path"): "a `_NAME_lalr.py` in bastion's own package, its first line read",
    # The launcher imports the standard library only; /proc's files are the kernel's.
    ("bastion/sandbox/_launch.py", "f'/proc/{entry}/stat'"): "procfs, made by the kernel",
    # The git probe's (owned with analyzer/git): O_NONBLOCK, and what was opened is fstat'ed before
    # it is read, since the probe fingerprints it whatever it is.
    ("bastion/workspace/_gitdir.py", "'alternates'"): "non-blocking, fstat'ed before reading",
    # The resident server's own files, in the directory it made and checked (this user's, mode 0700):
    # O_NOFOLLOW, and O_RDWR (which does not wait for a FIFO's other end) or O_NONBLOCK.
    ("bastion/resident/_server.py", "path + '.lock'"): "its own lock file, O_RDWR | O_NOFOLLOW, private dir",
    ("bastion/resident/_server.py", "path + '.none'"): "its own marker, O_NONBLOCK | O_NOFOLLOW, private dir",
    ("bastion/resident/_wire.py", "f'/proc/{pid}/status'"): "procfs, made by the kernel",
    ("bastion/resident/_wire.py", "f'/proc/{pid}/attr/current'"): "procfs, made by the kernel",
}
# Flags with which an open cannot block: a descriptor of a path only, a directory, or a new file.
_CANNOT_BLOCK = ("O_PATH", "O_DIRECTORY", "O_EXCL", "_DIR_FLAGS")
_PATH_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes"}


def _opens(path: pathlib.Path) -> list[tuple[str, str, str]]:
    """(module, what it opens, the flags as written) for every open call in a module."""
    module = str(path.relative_to(ROOT))
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        is_open = isinstance(func, ast.Name) and func.id == "open"
        is_open = is_open or (
            isinstance(func, ast.Attribute)
            and (
                (func.attr == "open" and isinstance(func.value, ast.Name) and func.value.id in ("os", "io"))
                or func.attr in _PATH_METHODS
            )
        )
        if is_open:
            what = ast.unparse(node.args[0]) if node.args else ast.unparse(func)
            flags = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
            found.append((module, what, flags))
    return found


OPENS = [o for p in sorted((ROOT / "bastion").rglob("*.py")) for o in _opens(p)]


def test_every_open_of_a_file_bastion_did_not_make_goes_through_the_one_open() -> None:
    stray = [
        (module, what)
        for module, what, flags in OPENS
        if module != THE_OPEN and not any(f in flags for f in _CANNOT_BLOCK) and (module, what) not in ALLOWED
    ]
    assert stray == [], "route these through bastion/_files.py (or say in ALLOWED why they cannot block)"


def test_every_allowed_open_is_still_there() -> None:
    assert sorted(set(ALLOWED) - {(m, w) for m, w, _ in OPENS}) == []


def test_the_scan_sees_each_form_of_open(tmp_path: pathlib.Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import os, io, pathlib\nopen(a)\nos.open(b, os.O_RDONLY)\nio.open(c)\npathlib.Path(d).read_text()\n"
        "os.open(e, os.O_PATH)\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert [w for _, w, _ in _opens(module)] == ["a", "b", "c", "pathlib.Path(d).read_text", "e"]
    finally:
        ROOT = saved


@pytest.mark.parametrize("opener", [open_regular, read_regular, open_append, open_replacing])
def test_the_one_open_refuses_a_fifo_at_once_whether_or_not_a_writer_holds_it(
    tmp_path: pathlib.Path, opener: object
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert callable(opener)
    with pytest.raises(NotRegularFile, match=r"not a regular file \(a FIFO\)"):
        opener(str(fifo))
    # With the other end open too (a writer for a reader, a reader for a writer), it is refused still.
    keep = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        with pytest.raises(NotRegularFile):
            opener(str(fifo))
    finally:
        os.close(keep)


def test_the_one_open_refuses_a_device_and_a_link_when_told_not_to_follow(tmp_path: pathlib.Path) -> None:
    with pytest.raises(NotRegularFile, match="a device"):
        read_regular("/dev/zero", 10)
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to("file")
    assert read_regular(str(tmp_path / "link")) == b"x"
    with pytest.raises(NotRegularFile, match="a symbolic link"):
        read_regular(str(tmp_path / "link"), follow=False)
    with pytest.raises(NotRegularFile, match="a symbolic link"):
        open_append(str(tmp_path / "link"))


def _bastion(
    args: list[str], cwd: pathlib.Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # A FIFO would block the open for ever: the timeout only bounds a failure, and names it.
    try:
        return subprocess.run(
            [sys.executable, "-m", "bastion", *args],
            cwd=cwd,
            env={**os.environ, "HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd / "xdg"), **(env or {})},
            capture_output=True,
            text=True,
            timeout=PATIENCE,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"bastion {' '.join(args)} never ended: it blocked on the FIFO") from None


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["check", "--config", "fifo", "--", "ls"], "fifo: not a regular file (a FIFO)"),
        (["audit", "fifo"], "fifo: not a regular file (a FIFO)"),
        (["sessions", "import", "fifo"], "import: fifo: not a regular file (a FIFO)"),
        (["-p", "hi", "--config", "fifo"], "fifo: not a regular file (a FIFO)"),
    ],
)
def test_a_fifo_named_on_the_command_line_is_refused_at_once(
    tmp_path: pathlib.Path, args: list[str], said: str
) -> None:
    os.mkfifo(tmp_path / "fifo")
    done = _bastion(args, tmp_path, {"BASTION_HOME": str(tmp_path / "home")})
    assert done.returncode != 0 and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_the_users_config_as_a_fifo_is_refused_at_once(tmp_path: pathlib.Path) -> None:
    (tmp_path / "xdg" / "bastion").mkdir(parents=True)
    os.mkfifo(tmp_path / "xdg" / "bastion" / "config.toml")
    done = _bastion(["check", "--", "ls"], tmp_path)
    assert done.returncode == 2 and "config.toml: not a regular file (a FIFO)" in done.stderr, done.stderr


def test_config_dev_null_is_still_an_empty_config(tmp_path: pathlib.Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()  # HOME outside the project: one inside makes a dry-run ask (design rule 118)
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "xdg")}
    done = _bastion(["check", "--config", os.devnull, "--json", "--", "ls"], project, env)
    assert done.returncode == 0 and json.loads(done.stdout)["decision"] == "allow", done.stderr


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_the_question_about_a_write_or_edit_of_a_fifo_is_shown_at_once(
    tmp_path: pathlib.Path, tool: str
) -> None:
    os.mkfifo(tmp_path / "fifo")
    args = (
        {"path": "fifo", "content": "x"}
        if tool == "write"
        else {"path": "fifo", "old_string": "a", "new_string": "b"}
    )
    code = (
        "import json, sys\n"
        "from bastion.agent.front._ask import describe\n"
        "from bastion.agent.front._colour import Colour\n"
        "from bastion.agent.runtime._types import ToolCall\n"
        f"args = {args!r}\n"
        f"call = ToolCall('c1', {tool!r}, json.dumps(args))\n"
        f"print('\\n'.join(describe(call, args, None, {str(tmp_path)!r}, Colour(False))))\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"the {tool} question never appeared: its diff preview blocked on the FIFO"
        ) from None
    assert done.returncode == 0, done.stderr
    if tool == "write":
        assert "replaces fifo (not a regular file (a FIFO))" in done.stdout
    else:
        assert "-a" in done.stdout and "+b" in done.stdout
