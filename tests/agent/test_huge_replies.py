"""A server that sends far more than any model can: a reply whose text passes MAX_REPLY characters,
or one event longer than MAX_EVENT, is given up as a protocol error (not retried) before bastion
holds it, and said so; the body is split into lines as server-sent events say, whatever the chunks.
What such a reply costs in memory is measured in benchmarks/memory.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bastion.agent.providers import MAX_EVENT, MAX_REPLY

from .agent_fixtures import run_main
from .fault_server import FaultServer
from .test_scenarios import FORMATS, _env, _workspace


def _run(tmp: Path, fmt: str, scenario: dict[str, int]) -> tuple[int, dict[str, object], str, int]:
    _workspace(tmp, {})
    with FaultServer([scenario, {"text": "never asked"}]) as server:
        url = server.url + ("/v1" if fmt == "chat" else "")
        argv = ["-p", "go", "--output-format", "json", *FORMATS[fmt], "--base-url", url]
        code, out, err = run_main(argv, cwd=str(tmp / "work"), env=_env(tmp))
        asked = len([r for r in server.requests if r["method"] == "POST"])
    return code, json.loads(out)["outcome"], err, asked


@pytest.mark.parametrize("fmt", ["chat", "anthropic", "gemini"])
def test_a_reply_past_the_bound_is_given_up_as_a_protocol_error_and_not_asked_again(
    tmp_path: Path, fmt: str
) -> None:
    code, outcome, err, asked = _run(tmp_path, fmt, {"huge": MAX_REPLY + 1_000_000})
    assert (code, outcome["failure"]["kind"], asked) == (15, "protocol_error", 1), err  # type: ignore[index]
    assert "the reply passed 8 MB, far more than any model's output: not read further" in str(
        outcome["message"]
    )


def test_one_event_past_the_bound_is_given_up_before_it_is_held_whole(tmp_path: Path) -> None:
    code, outcome, err, _ = _run(tmp_path, "chat", {"huge": MAX_EVENT, "piece": MAX_EVENT})
    assert (code, outcome["failure"]["kind"]) == (15, "protocol_error"), err  # type: ignore[index]
    assert "an event of the stream passed 17 MB" in str(outcome["message"])


_TEXT = st.lists(st.sampled_from([b"data: a", b"\r", b"\n", b"\r\n", b"xy", b"\xc3\xa9", b"\xff", b""]))


@given(pieces=_TEXT, cuts=st.lists(st.integers(0, 64)))
def test_the_body_is_split_at_crlf_lf_and_cr_whatever_its_chunks(
    pieces: list[bytes], cuts: list[int]
) -> None:
    # private: the line splitter, fed the same body in random chunks, is the very thing checked
    from bastion.agent.providers._sse import _lines

    body = b"".join(pieces)
    chunks, at = [], 0
    for cut in sorted(cuts):
        chunks.append(body[at:cut])
        at = max(at, cut)
    chunks.append(body[at:])
    lines = re.split(rb"\r\n|\r|\n", body)
    expected = [line.decode("utf-8", "replace") for line in (lines if lines[-1] else lines[:-1])]
    assert list(_lines("p", chunks)) == expected
