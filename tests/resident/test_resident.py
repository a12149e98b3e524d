"""The resident decider (bastion/resident) answers exactly as the process would, or not at all: the
same bytes and exit status through the server as in-process over the conformance corpora and the
recorded hook payloads; a socket directory of the wrong mode or owner, a link where the socket or
its directory should be, a server that answers garbage, greets with another fingerprint or hangs
all leave the call to the process, whose answer is still the right one; the server holds no key,
and it ends when idle."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

import bastion
from bastion.resident import _client, _wire
from bastion.resident._server import code_manifest
from bastion.resident._wire import context, same_context
from tests.loaded import modules_loaded
from tests.resident.servers import PACKAGE, cli_run, end, in_process, start
from tests.resident.servers import hook_payload as _hook_payload
from tests.resident.servers import path as _path
from tests.waits import until

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance"
PAYLOADS = ROOT / "tests" / "audit" / "payloads"
KEY = "sk-ant-resident-0123456789abcdef"
REAL_SAMPLE = 120  # of the real corpus's 3,777 lines, spread over it


class Server:
    def __init__(self, run: pathlib.Path, pid: int, path: str) -> None:
        self.run, self.pid, self.path = run, pid, path

    def ask(self, argv: list[str], stdin: str = "") -> _client.Answer | None:
        return _client.ask_server(argv, stdin.encode(), bastion.__version__, PACKAGE)


@pytest.fixture
def server(home: pathlib.Path) -> Iterator[Server]:
    pid, path = start()
    try:
        yield Server(home, pid, path)
    finally:
        end(pid)


def _cases(name: str, every: int = 1) -> list[dict[str, object]]:
    path = CORPUS / name
    if not path.exists():
        return []
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cases = [c for c in cases if "cmd" in c and not c.get("policy") and not c.get("project_policy")]
    return cases[:: max(1, every)]


def _same(server: Server, monkeypatch: pytest.MonkeyPatch, cwd: str, argv: list[str], stdin: str) -> None:
    monkeypatch.chdir(cwd)
    through = server.ask(argv, stdin)
    try:
        expected = in_process(argv, stdin)
    except Exception:  # the process fails itself (a traceback): the server leaves it to it
        assert through is None, argv
        return
    assert through is not None, ("the server did not answer", argv)
    assert through == expected, argv


@pytest.mark.skipif(not (CORPUS / "fixture.py").exists(), reason="no shared conformance corpus beside it")
def test_the_corpora_get_the_same_answers_through_the_server_as_in_process(
    server: Server, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(CORPUS))
    try:
        from fixture import build  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(CORPUS))
    cases = _cases("cases.jsonl") + _cases("real_cases.jsonl", len(_cases("real_cases.jsonl")) // REAL_SAMPLE)
    assert len(cases) > 300
    base = tmp_path / "fixtures"
    base.mkdir()
    # A decision writes nothing, so cases with the same fixture share one build (138 builds for ~1,200
    # cases): each build is a few git processes, most of this test's time when every case had its own.
    built: dict[str, str] = {}
    for case in cases:
        spec = json.dumps(case["fixture"], sort_keys=True)
        if spec not in built:
            built[spec] = str(build(case["fixture"], base_dir=str(base)).cwd)
        cwd = built[spec]
        line = str(case["cmd"]).replace("@ROOT@", cwd)
        _same(server, monkeypatch, cwd, ["hook", "claude-code"], _hook_payload(cwd, line))
        _same(server, monkeypatch, cwd, ["check", "--", line], "")


@pytest.mark.parametrize("payload", sorted(p.name for p in PAYLOADS.glob("*.json")))
def test_the_recorded_hook_payloads_get_the_same_answers_through_the_server(
    server: Server, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, payload: str
) -> None:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("# project\n")
    (root / ".env").write_text("TOKEN=hunter2\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    text = (PAYLOADS / payload).read_text(encoding="utf-8").replace("{WS}", str(root))
    agent = "codex" if payload.startswith("codex_") else "gemini" if payload.startswith("gemini_") else None
    for argv in (
        [["hook", agent]] if agent else [["hook", "claude-code"], ["hook", "claude-code", "--others", "ask"]]
    ):
        _same(server, monkeypatch, str(root), argv, text)


def test_check_s_errors_and_usage_are_the_same_through_the_server(
    server: Server, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for argv in (["check"], ["check", "--tool", "read", "--path", ".env"], ["check", "--bogus"],
                 ["check", "--explain", "--", "ls -la"], ["check", "--json", "--", "rm -rf /"]):  # fmt: skip
        if "--json" in argv:  # its elapsed_us is the decision's own time
            monkeypatch.chdir(tmp_path)
            got = server.ask(argv)
            assert got is not None and got[0] == in_process(argv)[0]
            assert json.loads(got[1])["decision"] == json.loads(in_process(argv)[1])["decision"]
            continue
        _same(server, monkeypatch, str(tmp_path), argv, "")


def test_the_environment_the_call_runs_in_is_the_one_decided_in(
    server: Server, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A PATH whose first entry holds the project's own `cat`: asked, through the server too.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "cat").write_text("#!/bin/sh\necho owned\n")
    (tmp_path / "bin" / "cat").chmod(0o755)
    (tmp_path / "a.txt").write_text("a\n")
    monkeypatch.chdir(tmp_path)
    plain = server.ask(["check", "--", "cat a.txt"])
    monkeypatch.setenv("PATH", f"{tmp_path}/bin:{os.environ['PATH']}")
    shadowed = server.ask(["check", "--", "cat a.txt"])
    assert plain is not None and plain[0] == 0
    assert shadowed is not None and shadowed[0] == 3 and shadowed == in_process(["check", "--", "cat a.txt"])


@pytest.mark.parametrize("hostile", ["mode", "owner", "linked-dir", "linked-socket", "not-a-socket"])
def test_a_socket_that_is_not_this_user_s_own_is_never_used(
    home: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, hostile: str
) -> None:
    pid, path = start()
    try:
        directory = os.path.dirname(path)
        if hostile == "mode":
            os.chmod(directory, 0o755)
        elif hostile == "owner":
            if os.getuid() != 0:
                pytest.skip("changing a directory's owner takes root")
            os.chown(directory, 65534, -1)
        elif hostile == "linked-dir":
            os.rename(directory, directory + ".real")
            os.symlink(directory + ".real", directory)
        elif hostile == "linked-socket":
            os.rename(path, path + ".real")
            os.symlink(path + ".real", path)
        else:
            os.rename(path, path + ".real")
            pathlib.Path(path).write_text("")
        monkeypatch.chdir(tmp_path)
        assert _client.ask_server(["check", "--", "ls"], b"", bastion.__version__, PACKAGE) is None
        assert cli_run(tmp_path, ["check", "--", "ls"]) == (0, in_process(["check", "--", "ls"])[1])
    finally:
        end(pid)


def _fake(path: str, answer: bytes | None, hello: bytes | None) -> threading.Thread:
    """A server at `path` that greets with `hello` and answers `answer` (None: says nothing more)."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            if hello is not None:
                conn.sendall(hello)
                if answer is not None:
                    conn.recv(1 << 20)
                    conn.sendall(answer)
                    conn.shutdown(socket.SHUT_WR)
            conn.recv(1 << 24)  # until the client gives up and closes

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def _hello() -> bytes:
    return _wire.join_fields(_wire.fingerprint(bastion.__version__, PACKAGE, sys.path))


@pytest.mark.parametrize(
    ("hello", "answer"),
    [
        (b"garbage", None),
        (_wire.join_fields(b"another installation"), None),
        (None, None),  # a server that hangs before it greets
        (_hello(), None),  # one that greets and hangs
        (_hello(), b"HTTP/1.1 200 OK\r\n\r\nallow"),
        (_hello(), _wire.join_fields(b"ok", b"0", b"allow")),  # a field short
        (_hello(), _wire.join_fields(b"ok", b"zero", b"", b"")),
        (_hello(), _wire.join_fields(b"no", b"", b"", b"")),
    ],
    ids=["garbage", "other-fingerprint", "hangs", "greets-then-hangs", "http", "short", "bad-status", "no"],
)
def test_a_server_that_does_not_answer_properly_leaves_the_call_to_the_process(
    home: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
    hello: bytes | None, answer: bytes | None,
) -> None:  # fmt: skip
    monkeypatch.setattr(_client, "HELLO_SECONDS", 0.2)
    monkeypatch.setattr(_client, "ANSWER_SECONDS", 0.2)
    thread = _fake(_path(), answer, hello)
    monkeypatch.chdir(tmp_path)
    assert _client.ask_server(["check", "--", "rm -rf x"], b"", bastion.__version__, PACKAGE) is None
    thread.join()


def test_the_command_line_decides_in_process_when_the_server_answers_garbage(
    home: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    _fake(_path(), b"garbage", _hello())
    line = "cat a.txt > b.txt"
    payload = _hook_payload(str(tmp_path), line)
    expected = in_process(["hook", "claude-code"], payload)
    assert cli_run(tmp_path, ["hook", "claude-code"], payload) == (0, expected[1])
    assert json.loads(expected[1])["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_a_hook_s_input_is_read_again_when_the_server_cannot_answer(
    home: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    # No server yet: the first call starts one and decides in-process from the input it read.
    payload = _hook_payload(str(tmp_path), "ls")
    code, out = cli_run(tmp_path, ["hook", "claude-code"], payload, BASTION_SERVER_IDLE="0.5")
    assert code == 0 and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_the_server_holds_no_key_and_ends_when_idle(
    home: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    pid, path = start(idle="0.5")
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            assert KEY.encode() not in f.read()
    finally:
        until(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid, "the idle server to end")
    assert not os.path.lexists(path)


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
        return [int(p) for p in f.read().split()]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie: ended, not yet reaped
    except FileNotFoundError:
        return True


def test_a_server_killed_with_sigkill_leaves_no_spare_waiting_for_ever(home: pathlib.Path) -> None:
    pid, path = start()
    until(lambda: _children(pid) != [], "the server's spare child")
    spares = _children(pid)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    until(
        lambda: all(_gone(spare) for spare in spares), f"the spare children {spares} to end with their server"
    )


def test_no_server_is_used_or_started_with_bastion_no_server(
    home: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    assert cli_run(tmp_path, ["check", "--", "ls"], BASTION_NO_SERVER="1")[0] == 0
    assert os.listdir(home) == []


def test_a_peer_under_no_new_privs_is_not_one_the_server_decides_for() -> None:
    own = _own_status()
    assert same_context(os.getpid(), own) is (own["NoNewPrivs"] == own["Seccomp"] == "0")
    if not os.path.exists("/usr/bin/setpriv"):
        pytest.skip("no setpriv")
    child = subprocess.Popen(["setpriv", "--no-new-privs", "sleep", "60"])
    try:
        until(lambda: "NoNewPrivs:\t1" in pathlib.Path(f"/proc/{child.pid}/status").read_text(), "setpriv")
        assert not same_context(child.pid, own)
    finally:
        child.kill()
        child.wait()


def _own_status() -> dict[str, str]:
    found = context("self")
    assert found is not None
    return found


def test_a_changed_file_of_the_code_shows_in_its_manifest(tmp_path: pathlib.Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text("x = 1\n")
    before = code_manifest(str(package))
    (package / "a.py").write_text("x = 22\n")
    assert code_manifest(str(package)) != before
    (package / "b.py").write_text("")
    assert {p for p, _ in code_manifest(str(package))} >= {str(package / "b.py")}


def test_the_client_loads_none_of_the_modules_the_server_saves_it() -> None:
    code = "import bastion.cli, bastion.resident._client"
    heavy = ("re", "json", "typing", "enum", "socket", "selectors", "subprocess", "bastion.policy")
    assert modules_loaded(code, heavy) == []
