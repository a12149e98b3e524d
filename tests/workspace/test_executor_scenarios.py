"""The agent's scripted scenarios (tests/agent/scenarios/*.json) run through an executor whose
workspace is in another directory tree (`bastion execute` started by the session, a local process
transport) with bastion started in an empty directory: every scenario gets what its file expects
locally, the same verdicts, results, files, outcome and exit status. Its MCP stdio servers start
on the executor. One wire format is enough (chat, or the scenario's first): the format is the
provider's side, not the workspace's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.agent.test_scenarios import SCENARIOS, check_scenario

EXECUTE = [sys.executable, "-m", "bastion", "execute", "--kind", "container", "--ref", "box"]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_scenario_through_an_executor_gets_what_it_gets_locally(path: Path, tmp_path: Path) -> None:
    formats = json.loads(path.read_text()).get("formats", ["chat"])
    err = check_scenario(path, "chat" if "chat" in formats else formats[0], tmp_path, EXECUTE)
    assert "executor: bastion" in err and "container box" in err
