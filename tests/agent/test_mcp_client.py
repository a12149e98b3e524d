"""The MCP client against real servers (tests/agent/mcp_server.py, on the SDK's MCPServer): stdio and
streamable HTTP, a server that crashes mid-call, one that hangs at start or in a call, one that exits
at start, a huge result, a tool list that changes, names that cannot be offered or collide, and the
environment a stdio server starts with."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bastion.agent.mcp import MAX_MESSAGE, MAX_RESULT_CHARS, McpToolbox, report_lines, with_servers
from bastion.agent.runtime import ConfigError, ToolSpec
from bastion.agent.tools import WriteLock
from bastion.config import AgentConfig

from ..waits import until

SERVER = str(Path(__file__).with_name("mcp_server.py"))
NEVER = threading.Event()
# The write lock the `docs` fixture's calls hold (a session's is its workspace's).
DOCS_LOCK = WriteLock()


class _Builtin:
    """Built-in tools by name only: what the MCP tools must not collide with."""

    def __init__(self, names: Sequence[str] = ("bash", "read")) -> None:
        self.names = names

    def specs(self) -> Sequence[ToolSpec]:
        return [ToolSpec(n, n, {"type": "object"}) for n in self.names]

    def has(self, name: str) -> bool:
        return name in self.names

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        return f"built-in {name}", False


def _stdio(mode: str = "stdio", **more: Any) -> dict[str, Any]:
    """A test server over stdio. It starts when it is ready, however busy the machine: its startup
    and call timeouts are the largest the config takes (failure bounds), unless a test sets them."""
    return {
        "command": sys.executable,
        "args": [SERVER, mode],
        "startup_timeout": 600,
        "call_timeout": 600,
        **more,
    }


def _start(servers: dict[str, Any], environ: Mapping[str, str] | None = None, **kw: Any) -> McpToolbox:
    env = dict(environ if environ is not None else {"PATH": os.environ["PATH"]})
    toolbox = with_servers(
        _Builtin(),
        AgentConfig(mcp={"servers": servers}),
        "c.toml",
        env,
        os.getcwd(),
        lock=kw.pop("lock", WriteLock()),
        **kw,
    )
    assert toolbox is not None
    return toolbox


def _state(toolbox: McpToolbox, name: str) -> tuple[str, str]:
    (report,) = [r for r in toolbox.reports() if r.name == name]
    return report.state, report.detail


def _ready(toolbox: McpToolbox, *names: str) -> McpToolbox:
    """The toolbox, once each named server is ready: an AssertionError saying why one is not."""
    for name in names:
        state, detail = _state(toolbox, name)
        assert state == "ready", f"the test MCP server {name} did not start: {state}: {detail}"
    return toolbox


@pytest.fixture(scope="module")
def docs() -> Iterator[McpToolbox]:
    environ = {
        "PATH": os.environ["PATH"],
        "GITHUB_TOKEN": "ghp-secret",
        "KEEP_ME": "1",
        "OPENAI_API_KEY": "sk",
    }
    toolbox = _start(
        {"docs": _stdio(pass_env=["KEEP_ME", "OPENAI_API_KEY"], env={"DOCS_MODE": "test"})},
        environ,
        scrub=["OPENAI_API_KEY"],
        lock=DOCS_LOCK,
    )
    yield _ready(toolbox, "docs")
    toolbox.close()


@pytest.fixture(scope="module")
def quick() -> Iterator[McpToolbox]:
    """A server whose calls time out after 2 s: the timeout is what its test is about."""
    toolbox = _start({"docs": _stdio(call_timeout=2)})
    yield _ready(toolbox, "docs")
    toolbox.close()


def test_a_stdio_servers_tools_are_offered_beside_the_built_in_ones_and_run(docs: McpToolbox) -> None:
    names = [s.name for s in docs.specs()]
    assert names[:2] == ["bash", "read"] and "mcp__docs__echo" in names and "mcp__docs__search" in names
    spec = next(s for s in docs.specs() if s.name == "mcp__docs__echo")
    assert spec.description.startswith("(MCP server docs)") and "text" in spec.parameters["properties"]
    assert docs.run("mcp__docs__echo", {"text": "hi"}, NEVER) == ("echo: hi", False)
    assert docs.run("bash", {}, NEVER) == ("built-in bash", False)
    assert (
        docs.has("mcp__docs__echo")
        and not docs.has("mcp__docs__nothing")
        and not docs.has("mcp__other__echo")
    )


def test_a_servers_tools_are_a_catalog_source_of_their_own_apart_from_the_built_in_ones(
    docs: McpToolbox,
) -> None:
    sources = docs.sources()
    assert list(sources) == ["builtin", "mcp:docs"]
    assert [s.name for s in sources["builtin"]] == ["bash", "read"]
    assert "mcp__docs__echo" in [s.name for s in sources["mcp:docs"]]
    assert [s.name for specs in sources.values() for s in specs] == [s.name for s in docs.specs()]


def test_a_stdio_server_starts_with_the_scrubbed_environment_plus_its_own(docs: McpToolbox) -> None:
    names = set(docs.run("mcp__docs__env", {}, NEVER)[0].split())
    assert {"PATH", "KEEP_ME", "DOCS_MODE"} <= names
    assert not names & {"GITHUB_TOKEN", "OPENAI_API_KEY"}


def test_an_mcp_call_waits_while_another_writer_holds_the_write_lock(docs: McpToolbox) -> None:
    done: list[tuple[str, bool]] = []
    with DOCS_LOCK.holding():
        threading.Thread(
            target=lambda: done.append(docs.run("mcp__docs__echo", {"text": "hi"}, NEVER))
        ).start()
        until(lambda: DOCS_LOCK.waiting == 1, "the MCP call never waited for the lock")
        assert done == []
    until(lambda: done, "the MCP call never ran once the lock was free")
    assert done == [("echo: hi", False)]


def test_an_mcp_call_holds_the_write_lock_while_it_runs(docs: McpToolbox) -> None:
    cancel = threading.Event()
    done: list[tuple[str, bool]] = []
    threading.Thread(target=lambda: done.append(docs.run("mcp__docs__sleep", {}, cancel))).start()
    until(lambda: DOCS_LOCK.held, "the MCP call never took the lock")
    cancel.set()
    until(lambda: done, "the MCP call was not stopped")
    assert not DOCS_LOCK.held
    # A built-in tool (which decides for itself) is not held up by the lock.
    with DOCS_LOCK.holding():
        assert docs.run("read", {}, NEVER) == ("built-in read", False)


def test_an_mcp_call_cancelled_while_waiting_for_the_lock_calls_nothing(docs: McpToolbox) -> None:
    cancel = threading.Event()
    done: list[tuple[str, bool]] = []
    with DOCS_LOCK.holding():
        threading.Thread(
            target=lambda: done.append(docs.run("mcp__docs__echo", {"text": "no"}, cancel))
        ).start()
        until(lambda: DOCS_LOCK.waiting == 1, "the MCP call never waited for the lock")
        cancel.set()
        until(lambda: done, "the waiting MCP call did not stop")
    ((text, error),) = done
    assert error and "nothing was run" in text


def test_a_huge_result_is_cut_to_the_bound_and_says_so(docs: McpToolbox) -> None:
    text, error = docs.run("mcp__docs__huge", {"size": 300_000}, NEVER)
    assert not error and len(text) < MAX_RESULT_CHARS + 200
    assert text.endswith("[truncated: the result was 300000 characters, 248800 omitted]")


def test_a_result_past_the_message_bound_is_not_held_and_its_call_fails_saying_so(docs: McpToolbox) -> None:
    size = MAX_MESSAGE // 2 + 1  # the SDK's server sends the text twice (content and structured)
    text, error = docs.run("mcp__docs__huge", {"size": size}, NEVER)
    assert error and f"its answer was more than {MAX_MESSAGE / 1e6:g} MB" in text and "ask for less" in text
    assert docs.run("mcp__docs__echo", {"text": "still"}, NEVER) == ("echo: still", False)


@pytest.mark.parametrize("cuts", [[], [1], [5, 17, 18], list(range(0, 120, 7))])
@pytest.mark.parametrize("bound", [20, 1000])
def test_a_servers_output_is_split_into_messages_and_a_long_one_is_answered_as_dropped(
    monkeypatch: pytest.MonkeyPatch, cuts: list[int], bound: int
) -> None:
    # private: the reader's splitting, fed one output in several chunkings, is the very thing tested
    from bastion.agent.mcp import _stdio

    monkeypatch.setattr(_stdio, "MAX_MESSAGE", bound)
    long = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"' + b"x" * 30 + b'"}]}}'
    ping = b'{"jsonrpc":"2.0","id":8,"method":"ping"}'
    output = ping + b"\n\n" + long + b"\n" + ping + b"\n"
    chunks = [output[a:b] for a, b in zip([0, *cuts], [*cuts, len(output)], strict=True)]
    lines = _stdio.Lines()
    got = [m for chunk in chunks for m in lines.feed(chunk)]
    kinds = [type(m.message).__name__ if not isinstance(m, Exception) else "error" for m in got]
    if bound == 1000:
        assert kinds == ["JSONRPCRequest", "JSONRPCResponse", "JSONRPCRequest"]
    else:  # each message is over 20 bytes: the ping is not an answer, so nothing answers it
        assert kinds == ["JSONRPCError"]
        assert got[0].message.id == 7 and "more than 2e-05 MB" in got[0].message.error.message  # type: ignore[union-attr]


def test_a_call_that_hangs_fails_after_its_timeout_and_the_server_stays_up(quick: McpToolbox) -> None:
    text, error = quick.run("mcp__docs__sleep", {}, NEVER)
    assert error and text == "error: the MCP server docs did not answer the call of sleep within 2 s"
    # Still up: it answers (a busy machine may make one answer miss the 2 s, so it is asked again).
    until(
        lambda: quick.run("mcp__docs__echo", {"text": "still"}, NEVER) == ("echo: still", False),
        "the server to answer after a call that timed out",
    )


def test_an_aborted_run_stops_a_call_at_once(docs: McpToolbox) -> None:
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    text, error = docs.run("mcp__docs__sleep", {}, cancel)
    assert error and "was stopped: the run was aborted" in text


def test_a_server_error_is_the_calls_error_result(docs: McpToolbox) -> None:
    text, error = docs.run("mcp__docs__huge", {"size": "many"}, NEVER)
    assert error and "size" in text


def test_the_tool_list_is_made_again_when_the_server_says_it_changed(docs: McpToolbox) -> None:
    assert not docs.has("mcp__docs__later")
    assert docs.run("mcp__docs__grow", {}, NEVER) == ("grown", False)
    until(lambda: docs.has("mcp__docs__later"), "the tool list to be made again")
    assert docs.run("mcp__docs__later", {}, NEVER) == ("later it is", False)


def test_a_server_that_crashes_mid_call_fails_that_call_and_every_later_one_clearly() -> None:
    toolbox = _start({"docs": _stdio(), "other": _stdio()})
    try:
        text, error = toolbox.run("mcp__docs__crash", {}, NEVER)
        assert error and text == (
            "error: the call of crash on the MCP server docs failed: "
            "the server stopped during the call (its connection closed)"
        )
        text, error = toolbox.run("mcp__docs__echo", {"text": "x"}, NEVER)
        assert error and text == "error: the MCP server docs is not running (stopped: its connection closed)"
        # What the server wrote is for the person (/mcp, doctor), never for the model.
        assert _state(toolbox, "docs") == (
            "stopped",
            "its connection closed; it said: test server: crashing on purpose",
        )
        assert toolbox.run("mcp__other__echo", {"text": "x"}, NEVER) == ("echo: x", False)
    finally:
        toolbox.close()


def test_a_server_that_hangs_at_start_fails_after_its_timeout_and_the_others_start() -> None:
    toolbox = _start({"hung": _stdio("hang", startup_timeout=1), "gone": _stdio("exit"), "docs": _stdio()})
    try:
        assert _state(toolbox, "hung") == ("failed", "did not start within 1 s")
        state, detail = _state(toolbox, "gone")
        assert state == "failed" and "cannot start, no database" in detail
        assert [s.name for s in toolbox.specs() if "hung" in s.name or "gone" in s.name] == []
        assert toolbox.run("mcp__docs__echo", {"text": "x"}, NEVER) == ("echo: x", False)
        lines = report_lines(toolbox.reports())
        assert "hung (stdio): failed: did not start within 1 s" in lines
    finally:
        toolbox.close()


def test_a_program_that_does_not_exist_fails_naming_it() -> None:
    toolbox = _start({"nope": {"command": "/nonexistent/server"}})
    try:
        state, detail = _state(toolbox, "nope")
        assert state == "failed" and "/nonexistent/server" in detail
    finally:
        toolbox.close()


def test_a_cwd_that_is_not_a_directory_fails_naming_it(tmp_path: Path) -> None:
    toolbox = _start({"docs": _stdio(cwd=str(tmp_path / "missing"))})
    try:
        assert _state(toolbox, "docs") == ("failed", f"its cwd {tmp_path / 'missing'} is not a directory")
    finally:
        toolbox.close()


def test_names_that_cannot_be_offered_or_collide_are_refused_with_a_message() -> None:
    toolbox = _start({"odd": _stdio("odd-names")})
    try:
        (report,) = toolbox.reports()
        assert report.tools == ("mcp__odd__fine",)
        refused = "\n".join(report.refused)
        assert "'has.dot' holds a character other than" in refused
        assert "'has__two' holds __" in refused
        assert "is longer than 64 characters" in refused
        assert "mcp__odd__Fine collides with the tool mcp__odd__fine" in refused
    finally:
        toolbox.close()


def test_a_tool_colliding_with_a_built_in_tool_is_refused() -> None:
    builtin = _Builtin(("bash", "mcp__docs__echo"))
    toolbox = with_servers(
        builtin,
        AgentConfig(mcp={"servers": {"docs": _stdio()}}),
        "c",
        dict(os.environ),
        os.getcwd(),
        lock=WriteLock(),
    )
    assert toolbox is not None
    try:
        (report,) = toolbox.reports()
        assert "mcp__docs__echo" not in report.tools
        assert any("collides with the built-in tool mcp__docs__echo" in r for r in report.refused)
        assert toolbox.run("mcp__docs__echo", {}, NEVER) == ("built-in mcp__docs__echo", False)
    finally:
        toolbox.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, SERVER, "http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:

        def listening() -> bool:
            assert proc.poll() is None, f"the HTTP test server exited ({proc.returncode}) before it listened"
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0

        until(listening, f"the HTTP test server to listen on port {port}", poll=0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait()


def test_an_http_server_is_reached_with_a_header_from_the_environment(http_url: str) -> None:
    header = {"Authorization": {"env": "DOCS_TOKEN", "prefix": "Bearer "}}
    toolbox = _start(
        {"web": {"url": http_url, "headers": header, "startup_timeout": 600}}, {"DOCS_TOKEN": "letmein"}
    )
    try:
        assert _state(toolbox, "web") == ("ready", "")
        assert toolbox.run("mcp__web__search", {"query": "q"}, NEVER) == ("found 1 page for q", False)
    finally:
        toolbox.close()


def test_an_http_header_may_come_from_a_command(http_url: str) -> None:
    header = {"Authorization": {"command": ["printf", "letmein"], "prefix": "Bearer "}}
    toolbox = _start(
        {"web": {"url": http_url, "headers": header, "startup_timeout": 600}}, {"PATH": os.environ["PATH"]}
    )
    try:
        assert toolbox.run("mcp__web__echo", {"text": "x"}, NEVER) == ("echo: x", False)
    finally:
        toolbox.close()


def test_an_http_server_refusing_the_key_or_a_missing_variable_fails_that_server_only(http_url: str) -> None:
    header = {"Authorization": {"env": "DOCS_TOKEN", "prefix": "Bearer "}}
    servers = {"web": {"url": http_url, "headers": header, "startup_timeout": 600}}
    toolbox = _start(servers, {"DOCS_TOKEN": "wrong"})
    try:
        assert _state(toolbox, "web")[0] == "failed"
    finally:
        toolbox.close()
    toolbox = _start(servers, {})
    try:
        assert _state(toolbox, "web") == ("failed", "header Authorization: set DOCS_TOKEN in the environment")
    finally:
        toolbox.close()


def test_a_config_that_names_no_server_starts_nothing_and_a_bad_one_is_an_error() -> None:
    assert with_servers(_Builtin(), AgentConfig(), "c.toml", {}, "/", lock=WriteLock()) is None
    with pytest.raises(ConfigError, match=r"^c.toml: mcp.servers.docs: give command"):
        bad = AgentConfig(mcp={"servers": {"docs": {}}})
        with_servers(_Builtin(), bad, "c.toml", {}, "/", lock=WriteLock())


def test_a_server_that_died_between_calls_shows_as_stopped_in_the_report(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    wrapper = tmp_path / "server.sh"
    wrapper.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec {sys.executable} {SERVER} stdio\n")
    wrapper.chmod(0o755)
    toolbox = _start({"docs": {"command": str(wrapper), "startup_timeout": 600}})
    try:
        assert _state(toolbox, "docs")[0] == "ready"
        os.kill(int(pidfile.read_text()), 9)
        until(
            lambda: _state(toolbox, "docs")[0] != "ready", "the report to show the server stopped", poll=0.1
        )
        assert _state(toolbox, "docs") == ("stopped", "its connection closed")
    finally:
        toolbox.close()


def test_a_call_timeout_shorter_than_the_servers_start_does_not_keep_it_from_starting() -> None:
    # The start (initialize, the tool list) is bounded by startup_timeout, a call by call_timeout.
    toolbox = _start({"docs": _stdio(call_timeout=0.001)})
    try:
        assert _state(toolbox, "docs") == ("ready", "")
        text, error = toolbox.run("mcp__docs__sleep", {}, NEVER)
        assert error and "did not answer the call of sleep within 0.001 s" in text
    finally:
        toolbox.close()
