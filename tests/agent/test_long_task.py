"""A long task in one prompt: a `-p` run whose own tool results outgrow the model's window compacts
its own work (the prompt kept, the rounds before the latest summarised, the latest kept whole as
far as they fit) and finishes; the transcript's tool trace keeps every call; the record rebuilds
the compacted conversation on --resume; a request still over the window is said, never sent unseen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bastion.agent.runtime import COMPACT_SYSTEM, GO_ON, WORK_HEAD

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import FORMATS, _env, _session_events, base_url, format_env


def _lines(tag: str, count: int) -> str:
    return "".join(f"{tag} line {n:04d} of the long file, with some words\n" for n in range(count))


def _setup(tmp_path: Path, window: int, model: str = "gpt-5") -> tuple[Path, dict[str, str]]:
    work = tmp_path / "work"
    work.mkdir()
    # Each big file is about 7,200 tokens as the read tool numbers it; c.txt about 3,500.
    (work / "a.txt").write_text("the answer is in a: 42\n" + _lines("a", 520))
    (work / "b.txt").write_text(_lines("b", 520))
    (work / "c.txt").write_text(_lines("c", 250))
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[context_windows]\n"{model}" = {window}\n')
    return work, _env(tmp_path)


def _read(path: str, call_id: str) -> dict[str, Any]:
    return {"calls": [{"name": "read", "id": call_id, "arguments": {"path": path}}]}


ROUNDS = [
    _read("a.txt", "c1"),
    _read("b.txt", "c2"),
    _read("c.txt", "c3"),
    {"text": "SUMMARY: read a.txt (the answer is 42) and b.txt"},
    {"text": "all three read: 42"},
]


def test_a_p_task_whose_results_outgrow_the_window_compacts_its_own_work_and_finishes(tmp_path: Path) -> None:
    work, env = _setup(tmp_path, 24_000)  # compacts at 18,000; keeps the latest rounds up to 4,500
    transcript = tmp_path / "run.json"
    with ScriptedServer(ROUNDS) as server:
        argv = ["-p", "read the three files", "--provider", "openai", "--base-url", server.url + "/v1"]
        argv += ["--output-format", "json", "--transcript", str(transcript)]
        code, out, err = run_main(argv, cwd=str(work), env=env)
    assert code == 0, err
    report = json.loads(out)
    assert report["result"] == "all three read: 42" and "[compacted:" in err
    # The summariser saw the prompt and the two rounds before the latest, each result cut.
    summarising = server.requests[3]["body"]["messages"]
    assert summarising[0] == {"role": "system", "content": COMPACT_SYSTEM}
    asked = summarising[1]["content"]
    assert asked.startswith("user: read the three files") and "the answer is in a: 42" in asked
    assert "b line 0000" in asked and "c line" not in asked and "[...]" in asked
    # The request after it: the prompt as it was, the summary as the model's reply, go on, and the
    # latest round (the read of c.txt and its whole result).
    after = server.requests[4]["body"]["messages"]
    assert [m["role"] for m in after] == ["system", "user", "assistant", "user", "assistant", "tool"]
    assert after[1]["content"] == "read the three files"
    assert after[2]["content"] == WORK_HEAD + "SUMMARY: read a.txt (the answer is 42) and b.txt"
    assert after[3]["content"] == GO_ON
    assert after[4]["tool_calls"][0]["id"] == "c3" and "c line 0249" in after[5]["content"]
    assert len(json.dumps(after)) < len(json.dumps(server.requests[2]["body"]["messages"]))
    # The transcript keeps every call, and its conversation is the compacted one.
    kept = json.loads(transcript.read_text())
    assert [(c["call_id"], c["tool"], c["ran"]) for c in kept["tool_trace"]] == [
        ("c1", "read", True),
        ("c2", "read", True),
        ("c3", "read", True),
    ]
    assert kept["outcome"]["status"] == "completed" and "a line 0001" not in json.dumps(kept["messages"])
    # The record keeps every message and the compaction (where the work began, how much it replaced).
    events = _session_events(tmp_path)
    (compaction,) = [e for e in events if e["type"] == "compaction"]
    assert (compaction["start"], compaction["replaced"]) == (1, 4)
    assert sum(e["type"] == "message" and "b line 0519" in json.dumps(e) for e in events) == 1


def test_a_resumed_session_rebuilds_the_work_compacted_within_its_prompt(tmp_path: Path) -> None:
    work, env = _setup(tmp_path, 24_000)
    with ScriptedServer([*ROUNDS, {"text": "still 42"}]) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        assert run_main(["-p", "read the three files", *base], cwd=str(work), env=env)[0] == 0
        session_id = _session_events(tmp_path)[0]["id"]
        code, out, err = run_main(["-p", "and now?", "--resume", session_id, *base], cwd=str(work), env=env)
        assert code == 0, err
        verified = run_main(["sessions", "verify", session_id], cwd=str(work), env=env)
    assert out.strip() == "still 42" and verified[0] == 0, verified
    compacted = server.requests[4]["body"]["messages"]
    resumed = server.requests[5]["body"]["messages"]
    assert resumed[: len(compacted)] == compacted
    assert [m.get("content") for m in resumed[len(compacted) :]] == ["all three read: 42", "and now?"]


def test_a_request_over_the_window_with_nothing_left_to_compact_is_said_before_it_is_sent(
    tmp_path: Path,
) -> None:
    work, env = _setup(tmp_path, 4_000)
    with ScriptedServer([{"text": "a short answer"}]) as server:
        argv = ["-p", "word " * 20_000, "--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = run_main(argv, cwd=str(work), env=env)
    assert code == 0, err
    assert len(server.requests) == 1 and "compaction" not in err
    assert "over the model's context window of 4000 (your config's [context_windows])" in err
    assert "it is sent as it is, and the server may refuse it" in err


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_wire_format_carries_a_prompt_whose_work_was_compacted(tmp_path: Path, fmt: str) -> None:
    work, env = _setup(tmp_path, 24_000, model="*")  # every model: the window of the config
    with ScriptedServer(ROUNDS) as server:
        argv = ["-p", "read the three files", *FORMATS[fmt], "--base-url", base_url(server, fmt)]
        code, out, err = run_main(argv, cwd=str(work), env={**env, **format_env(tmp_path, fmt, server)})
    assert code == 0, err
    assert out.strip() == "all three read: 42" and "[compacted:" in err
    before, after = (json.dumps(server.requests[n]["body"]) for n in (2, 4))
    assert "b line 0519" in before and "b line 0519" not in after and "c line 0249" in after
    assert WORK_HEAD.strip() in after and GO_ON in after and "read the three files" in after
