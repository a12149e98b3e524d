"""The provider key never leaves bastion's memory (issue 24): not through its own /proc entry (read by
an approved command, an auto-allowed plan and an MCP server), a server's error, a key command's
standard error, nor anything bastion writes in a run. bastion runs here as a person runs it: its own
process (`python -m bastion`), which executes itself again without its key variables
(bastion/_handover.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

import pexpect
import pytest

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import MCP_SERVER

ROOT = Path(__file__).resolve().parents[2]
# Four keys, each in a variable bastion reads: the provider's (a name that does not look like a
# credential, given by --api-key-env), two other providers' standard ones, an MCP header's.
KEYS = {
    "LLM_CRED": "sk-proj-llmcred-0123456789abcdefABCDEF",
    "OPENAI_API_KEY": "sk-openai-standard-9876543210zyxwvu",
    "GEMINI_API_KEY": "AIzaSy-gemini-standard-13579bdfhjlnprtv",
    "DOCS_TOKEN": "docs-header-token-55aa55aa55aa55aa55",
}
# A variable that is no key: seen in a read, it proves the read worked.
MARKER = ("BASTION_TEST_MARKER", "visible-in-environ")


# The public prefixes of these keys (bastion/_safe.py's _PUBLIC): every key of the kind shares them.
PUBLIC = ("sk-proj-", "sk-", "AIza")


def _runs(text: str, key: str) -> list[str]:
    """Every run of 8 of the key's secret characters (after its public prefix) that `text` holds."""
    start = next((len(p) for p in PUBLIC if key.startswith(p)), 0)
    return sorted({key[i : i + 8] for i in range(start, len(key) - 7) if key[i : i + 8] in text})


def _leaks(texts: Iterable[tuple[str, str]]) -> list[tuple[str, str, list[str]]]:
    return [
        (where, name, runs)
        for where, text in texts
        for name, key in KEYS.items()
        if (runs := _runs(text, key))
    ]


def _written(*roots: Path) -> list[tuple[str, str]]:
    """Every file under the roots, as text (bytes that are not UTF-8 kept as escapes)."""
    return [
        (str(path), path.read_bytes().decode("utf-8", "backslashreplace"))
        for root in roots
        if root.exists()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    ]


def _env(tmp: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if k not in KEYS},
        **KEYS,
        MARKER[0]: MARKER[1],
        "BASTION_HOME": str(tmp / "home" / ".bastion"),
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "xdg"),
        "BASTION_RETRY_CAP": "0.01",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PYTHONPATH": str(ROOT),
    }


def _config(tmp: Path, *lines: str) -> None:
    config = tmp / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


MCP_CONFIG = (
    "[mcp.servers.t]",
    f"command = {json.dumps(sys.executable)}",
    f"args = [{json.dumps(str(MCP_SERVER))}, 'stdio']",
    # Never reached (nothing listens on port 9): its header's variable is a key all the same.
    "[mcp.servers.docs]",
    "url = 'http://127.0.0.1:9/mcp'",
    "startup_timeout = 5",
    "headers.Authorization = { env = 'DOCS_TOKEN', prefix = 'Bearer ' }",
)


def _read_back(text: str) -> bytes | None:
    """What a command printed in hexadecimal (od -An -tx1), as bytes; None when the read was refused."""
    if "Permission denied" in text:
        return None
    hexdigits = "".join(text.split("[exit")[0].split())
    return bytes.fromhex(hexdigits)


def _tool_results(server: ScriptedServer) -> list[str]:
    """The text of each tool result the model was sent, in order (Responses format)."""
    body = server.requests[-1]["body"]
    return [item["output"] for item in body["input"] if item.get("type") == "function_call_output"]


def _bastion(
    tmp: Path, argv: list[str], stdin: str, *, in_proc: bool = False
) -> subprocess.CompletedProcess[str]:
    """bastion as its own process; `in_proc`: started in its own /proc/PID directory, so the
    workspace is bastion's own /proc entry and `environ` a file of it."""
    command = " ".join(["exec", sys.executable, "-m", "bastion", *(f"'{a}'" for a in argv)])
    script = f"cd /proc/$$ && {command}" if in_proc else command
    return subprocess.run(
        ["sh", "-c", script], env=_env(tmp), input=stdin, capture_output=True, text=True, timeout=120,
        cwd=str(tmp / "work"),
    )  # fmt: skip


def test_no_child_finds_a_key_in_bastions_own_proc_entry_and_nothing_written_holds_one(
    tmp_path: Path,
) -> None:
    (tmp_path / "work").mkdir()
    _config(tmp_path, *MCP_CONFIG)
    reads = [
        "od -An -tx1 /proc/$PPID/environ",  # approved (asked, answered y)
        "od -An -tx1 /proc/$PPID/cmdline",
        "env | od -An -tx1",
        "od -An -tx1 environ",  # auto-allowed: the workspace is bastion's /proc entry
        "od -An -tx1 cmdline",
    ]
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "bash", "arguments": {"command": line}} for line in reads]},
        {"calls": [{"name": "mcp__t__parent", "arguments": {}}]},
        {"text": "done"},
    ]
    transcript = tmp_path / "out" / "transcript.json"
    transcript.parent.mkdir()
    with ScriptedServer(rounds) as server:
        argv = ["-p", "read it all", "--yes-to", "stdin", "--provider", "openresponses", "--model", "m",
                "--api-key-env", "LLM_CRED", "--base-url", server.url + "/v1", "--output-format", "json",
                "--transcript", str(transcript)]  # fmt: skip
        done = _bastion(tmp_path, argv, "y\n" * 4, in_proc=True)  # three commands and the MCP call
    assert done.returncode == 0, done.stderr
    results = _tool_results(server)
    assert len(results) == 6
    auto = [e for e in json.loads(transcript.read_text())["tool_trace"] if e["verdict"] == "allow"]
    assert {e["arguments"]["command"] for e in auto} >= {"od -An -tx1 environ", "od -An -tx1 cmdline"}
    environs = [results[0], results[2], results[3]]
    for text in [*environs, results[1], results[4]]:
        raw = _read_back(text)
        assert raw is None or not _leaks([("read", raw.decode("utf-8", "replace"))]), raw
    # The reads did read (as root, the kernel lets them: see docs/rules.md rule 11), or were refused.
    for text in environs:
        raw = _read_back(text)
        assert raw is None or f"{MARKER[0]}={MARKER[1]}".encode() in raw
    assert results[5].startswith("environ: "), results[5][:300]
    mcp_lines = dict(line.split(": ", 1) for line in results[5].splitlines())
    for value in mcp_lines.values():
        if value != "Permission denied":
            found = bytes.fromhex(value).decode("utf-8", "replace")
            assert not _leaks([("mcp", found)])
    assert MARKER[0] in bytes.fromhex(mcp_lines["environ"]).decode()
    # Nothing bastion wrote, printed or sent to the model holds a key (the key is in the header only).
    bodies = json.dumps([r["body"] for r in server.requests])
    written = _written(tmp_path / "home", tmp_path / "out", tmp_path / "work")
    assert _leaks([("stdout", done.stdout), ("stderr", done.stderr), ("requests", bodies), *written]) == []
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEYS['LLM_CRED']}"


def test_a_server_that_echoes_the_key_in_a_401_shows_it_nowhere(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    key = KEYS["OPENAI_API_KEY"]
    rounds = [{"status": 401, "error": f"Incorrect API key provided: {key}. Also part: {key[4:20]}"}]
    transcript = tmp_path / "out" / "t.json"
    transcript.parent.mkdir()
    with ScriptedServer(rounds) as server:
        argv = ["-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1",
                "--output-format", "json", "--transcript", str(transcript)]  # fmt: skip
        done = _bastion(tmp_path, argv, "")
    assert done.returncode == 12, done.stderr  # authentication: the exit status survives the re-execution
    doc = json.loads(done.stdout)
    assert "Incorrect API key provided: sk-***" in doc["outcome"]["message"]
    written = _written(tmp_path / "home", tmp_path / "out")
    assert _leaks([("stdout", done.stdout), ("stderr", done.stderr), *written]) == []
    assert "Incorrect API key provided: sk-***" in done.stderr


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("from_command", [False, True], ids=["key-from-variable", "key-from-command"])
def test_a_401_echoing_the_key_is_redacted_in_every_output(
    tmp_path: Path, provider: str, from_command: bool
) -> None:
    key = "sk-from-command-ABCDEFGH12345678" if from_command else KEYS["OPENAI_API_KEY"]
    (tmp_path / "work").mkdir()
    rounds = [{"status": 401, "error": f"bad key {key}"}] * 2  # a command's key is fetched again once
    transcript = tmp_path / "t.json"
    env = {**_env(tmp_path), "ANTHROPIC_API_KEY": KEYS["OPENAI_API_KEY"]}
    command = ["--api-key-command", f"echo {key}"] if from_command else []
    with ScriptedServer(rounds) as server:
        base = server.url + ("/v1" if provider == "openai" else "")
        argv = ["-p", "hi", "--provider", provider, "--base-url", base, "--output-format", "json",
                "--transcript", str(transcript), *command]  # fmt: skip
        code, out, err = run_main(argv, cwd=str(tmp_path / "work"), env=env)
    assert code == 12
    texts = [
        ("stdout", out),
        ("stderr", err),
        *_written(tmp_path / "home"),
        ("transcript", transcript.read_text()),
    ]
    assert [t for t in texts if _runs(t[1], key)] == []
    assert "bad key sk-***" in err and "bad key sk-***" in json.loads(out)["outcome"]["message"]


def test_a_failing_key_command_that_prints_the_key_on_stderr_shows_none_of_it(tmp_path: Path) -> None:
    key = "sk-on-stderr-0123456789ABCDEFGH"
    helper = tmp_path / "helper.py"
    helper.write_text(f"import sys\nsys.stderr.write('got {key} but failed\\n')\nsys.exit(3)\n")
    (tmp_path / "work").mkdir()
    with ScriptedServer([{"text": "never"}]) as server:
        argv = ["-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1",
                "--api-key-command", f"{sys.executable} {helper}"]  # fmt: skip
        code, out, err = run_main(argv, cwd=str(tmp_path / "work"), env=_env(tmp_path))
    assert code == 12 and server.requests == []
    assert _runs(out + err, key) == [] and "got" not in err
    assert "exited 3 (its standard error is not shown: it may hold the key" in err


def test_the_re_executed_bastion_keeps_piped_input_and_a_signal_ends_it_as_before(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    release = threading.Event()
    with ScriptedServer([{"text": "summed up"}]) as server:

        def stall(index: int) -> None:  # the model answers nothing until the signal was sent
            release.wait(30)

        server.on_request = stall
        argv = [sys.executable, "-m", "bastion", "-p", "sum up", "--provider", "openai",
                "--base-url", server.url + "/v1"]  # fmt: skip
        proc = subprocess.Popen(
            argv, env=_env(tmp_path), cwd=str(tmp_path / "work"), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write("piped text\n")
        proc.stdin.close()
        proc.stdin = None  # communicate() would flush it
        while not server.requests and proc.poll() is None:
            threading.Event().wait(0.02)
        with open(f"/proc/{proc.pid}/environ", "rb") as handle:  # the same pid, without the keys
            environ = handle.read()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        release.set()
    assert proc.returncode == 10, err  # cancelled, as without the re-execution
    assert "piped text" in json.dumps(server.requests[0]["body"])
    # Only the provider's variable is a key here (no config names LLM_CRED or DOCS_TOKEN).
    assert MARKER[0].encode() in environ
    assert (
        KEYS["OPENAI_API_KEY"][:8].encode() not in environ
        and KEYS["GEMINI_API_KEY"][:8].encode() not in environ
    )


def test_a_key_typed_at_the_repl_is_kept_out_of_the_history_and_the_session(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    key = KEYS["OPENAI_API_KEY"]
    with ScriptedServer([{"text": "noted"}]) as server:
        child = pexpect.spawn(
            sys.executable,
            ["-m", "bastion", "--front", "repl", "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=str(tmp_path / "work"),
            env={**_env(tmp_path), "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"},
            encoding="utf-8",
            timeout=30,
            dimensions=(40, 200),
        )
        child.expect("/help for commands")  # the terminal works through the re-execution
        child.sendline(f"my key is {key} keep it")
        child.expect("noted")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
    history = tmp_path / "home" / ".bastion" / "history"
    assert "my key is sk-*** keep it" in history.read_text()
    assert _leaks(_written(tmp_path / "home")) == []


# --- issue 27: vertex's access token and credential file, gemini's key ---


def test_vertexs_token_and_credential_file_reach_no_child_and_nothing_written_holds_them(
    tmp_path: Path,
) -> None:
    from .google_adc import private_key, vertex_env

    (tmp_path / "work").mkdir()
    token = "ya29.vertex-access-token-ABCDEFGHIJKLMNOP"
    line = 'env; cat "$GOOGLE_APPLICATION_CREDENTIALS"; echo "creds=[$GOOGLE_APPLICATION_CREDENTIALS]"'
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "bash", "arguments": {"command": line}}]},
        {"text": "done"},
    ]
    transcript = tmp_path / "out" / "t.json"
    transcript.parent.mkdir()
    with ScriptedServer(rounds, tokens=(token,)) as server:
        env = vertex_env(tmp_path, server.url)
        argv = ["-p", "show the environment", "--yes-to", "stdin", "--provider", "vertex", "--base-url",
                server.url, "--output-format", "json", "--transcript", str(transcript)]  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "bastion", *argv], env={**_env(tmp_path), **env}, input="y\n",
            capture_output=True, text=True, timeout=120, cwd=str(tmp_path / "work"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (result,) = [
        b["content"]
        for m in server.requests[-1]["body"]["messages"]
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert "PATH=" in result and "creds=[]" in result  # the command ran, without the credential file's name
    assert "GOOGLE_APPLICATION_CREDENTIALS=" not in result and "BEGIN PRIVATE KEY" not in result
    assert [r["headers"]["authorization"] for r in server.requests] == [f"Bearer {token}"] * 2
    key_lines = private_key().splitlines()[1:-1]
    bodies = json.dumps([r["body"] for r in server.requests])
    written = _written(tmp_path / "home", tmp_path / "out", tmp_path / "work")
    texts = [("stdout", done.stdout), ("stderr", done.stderr), ("requests", bodies), *written]
    assert [w for w, t in texts if _runs(t, token) or any(k in t for k in key_lines)] == []


def test_a_vertex_server_that_echoes_the_token_in_a_401_shows_it_nowhere(tmp_path: Path) -> None:
    from .google_adc import vertex_env

    (tmp_path / "work").mkdir()
    tokens = ("ya29.first-token-0123456789abcdef", "ya29.second-token-fedcba9876543210")
    rounds = [{"status": 401, "error": f"token {t} is not valid here"} for t in tokens]
    with ScriptedServer(rounds, tokens=tokens) as server:
        argv = ["-p", "hi", "--provider", "vertex", "--model", "gemini-2.5-pro", "--base-url", server.url,
                "--output-format", "json"]  # fmt: skip
        code, out, err = run_main(
            argv, cwd=str(tmp_path / "work"), env={**_env(tmp_path), **vertex_env(tmp_path, server.url)}
        )
    assert code == 12 and len(server.tokens) == 2  # fetched again once, refused again
    assert "token *** is not valid here" in json.loads(out)["outcome"]["message"]
    texts = [("stdout", out), ("stderr", err), *_written(tmp_path / "home")]
    assert [w for w, t in texts for token in tokens if _runs(t, token)] == []
