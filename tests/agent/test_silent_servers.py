"""A server that accepts and then says nothing, closes unanswered, or resets mid-answer: every bound
holds at the value it was set to (an SDK handed a timeout equal to httpx's default once took it for
"not set" and waited 600 s), and the words never say "could not connect" to a server that was
reached. Each run is a process of its own, so a bound that does not hold fails the test at PATIENCE
instead of holding up the suite; the sweep over every value 1-10 s of each bound, timed, is
benchmarks/bounds.py."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.agent.providers import Connection, Timeouts
from tests.waits import run_bounded

from .fault_server import FaultServer
from .test_scenarios import FORMATS, _env, _workspace

# The two SDKs' wire formats (Gemini's requests are bastion's own).
SDK_FORMATS = ["chat", "anthropic"]


def run_against(tmp: Path, fmt: str, server: str, config: str) -> tuple[int, dict[str, Any], str]:
    """A -p run (JSON output) in a process of its own against the server at `server`, with `config`
    the user's."""
    path = tmp / "xdg" / "bastion" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config)
    if not (tmp / "work").exists():
        _workspace(tmp, {})
    url = server + ("/v1" if fmt == "chat" else "")
    argv = ["-p", "go", "--output-format", "json", *FORMATS[fmt], "--base-url", url]
    done = run_bounded(
        [
            sys.executable,
            "-c",
            "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))",
            *argv,
        ],
        f"a -p run against a {fmt} fault server",
        cwd=tmp / "work",
        env={**os.environ, **_env(tmp)},
        capture_output=True,
        text=True,
    )
    return done.returncode, json.loads(done.stdout), done.stderr


@settings(deadline=None)
@given(idle=st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) | st.floats(0.05, 3600.0))
def test_every_idle_bound_reaches_both_sdks_as_written(idle: float) -> None:
    connection = Connection("anthropic", "http://127.0.0.1:9", None, timeouts=Timeouts(idle=idle))
    for client in (connection.openai(), connection.anthropic()):
        timeout = client.timeout
        assert isinstance(timeout, httpx2.Timeout)
        assert (timeout.read, timeout.connect) == (idle, min(30.0, idle))


@pytest.mark.parametrize("fmt", SDK_FORMATS)
def test_a_server_that_accepts_and_never_answers_is_given_up_at_the_idle_bound(
    tmp_path: Path, fmt: str
) -> None:
    with FaultServer([{"hang": True, "repeat": True}], lookup={"hang": True}) as server:
        code, doc, err = run_against(tmp_path, fmt, server.url, "stream_idle_timeout = 1\n")
    assert (code, doc["outcome"]["failure"]["kind"], doc["outcome"]["failure"]["attempts"]) == (
        17,
        "network",
        4,
    )
    assert "no byte from the server in 1 s (stream_idle_timeout)" in doc["outcome"]["message"]
    assert "was reached" in err and "could not connect" not in err


@pytest.mark.parametrize("fmt", SDK_FORMATS)
@pytest.mark.parametrize("fault", [{"hang": True}, {"trickle": 0.05}], ids=["silent", "trickling"])
def test_a_silent_or_trickling_server_is_given_up_at_the_total_bound_not_the_idle_one(
    tmp_path: Path, fmt: str, fault: dict[str, Any]
) -> None:
    with FaultServer([{**fault, "repeat": True}]) as server:
        code, doc, err = run_against(tmp_path, fmt, server.url, "request_timeout = 1\n")
    assert (code, doc["outcome"]["failure"]["kind"]) == (17, "network")
    assert doc["outcome"]["message"].endswith(": no complete answer within 1 s (request_timeout)")
    assert "stream_idle_timeout)" not in doc["outcome"]["message"] and "could not connect" not in err


@pytest.mark.parametrize("fmt", SDK_FORMATS)
@pytest.mark.parametrize(
    "fault", [{"close": True}, {"cut": 40}], ids=["closed-unanswered", "reset-mid-answer"]
)
def test_a_server_that_closes_or_resets_was_reached_not_unreachable(
    tmp_path: Path, fmt: str, fault: dict[str, Any]
) -> None:
    with FaultServer([{**fault, "repeat": True}]) as server:
        code, doc, err = run_against(tmp_path, fmt, server.url, "")
    assert (code, doc["outcome"]["failure"]["kind"], doc["outcome"]["failure"]["attempts"]) == (
        17,
        "network",
        4,
    )
    assert "was reached, but its answer broke off or stalled" in err and "could not connect" not in err


def test_a_server_that_is_not_there_still_could_not_be_connected_to(tmp_path: Path) -> None:
    with FaultServer([]) as server:
        url = server.url
    code, doc, err = run_against(tmp_path, "chat", url, "")
    assert (code, doc["outcome"]["failure"]["kind"]) == (17, "network")
    assert f"could not connect to {url}/v1" in err and "was reached" not in err
