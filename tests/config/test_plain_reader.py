"""A plainly valid config file is read without pydantic, to exactly what pydantic makes of it (both
readers derived from bastion.config's one table)."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.config import AgentConfig

# Private: the fast config reader and the pydantic schema are the twins tested against each other.
from bastion.config._plain import plain_file
from bastion.config._schema import validate_file
from bastion.config._table import PROJECT_FILE, USER_FILE

# The provider's keys: texts the agent checks (bastion/agent/_settings.py).
PROVIDER_KEYS = ("provider", "model", "base_url", "api_key_env", "api_key_command", "think", "effort")

_SCALARS = st.one_of(
    st.sampled_from(["allow", "ask", "deny", "ALLOW", "", "bash(ls)", "GITHUB_TOKEN", "X-1", "A\n", "é"]),
    st.integers(-2, 3) | st.sampled_from([4096, 1 << 63, (1 << 63) - 1, 1 << 64]),
    st.booleans(),
    st.floats(allow_nan=False) | st.just(datetime.date(2026, 1, 1)),
)
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3), st.lists(st.sampled_from(["A", "read", "b_1"])))
_RULES = st.lists(st.sampled_from(["read", "bash(make test)", "Read(.env)", "x", ""]), max_size=3)
_GOOD_SECTION = st.fixed_dictionaries(
    {},
    optional={
        "allow": _RULES,
        "ask": _RULES,
        "deny": _RULES,
        "fallback": st.sampled_from(["allow", "ask", "deny"]),
        "builtin": st.booleans(),
    },
)
_SECTION = _GOOD_SECTION | st.dictionaries(
    st.sampled_from(["allow", "ask", "deny", "fallback", "builtin", "other"]), _VALUES
)
_PATHS = st.lists(st.sampled_from(["/x", "~/c", "/", "rel", "~x", "~", "/a\x00b", "", "/\n"]), max_size=3)
_GOOD_SANDBOX = st.fixed_dictionaries(
    {},
    optional={
        "mode": st.sampled_from(["auto", "require", "off", "on"]),
        "writable": _PATHS,
        "network": st.booleans(),
    },
)
_SANDBOX = (
    st.sampled_from(["auto", "require", "off", "Auto", ""])
    | _GOOD_SANDBOX
    | st.dictionaries(st.sampled_from(["mode", "writable", "network", "other"]), _VALUES)
)
_TYPED = (
    "think",
    "api_key_command",
    "compact_at",
    "context_windows",
    "mcp",
    "stream_idle_timeout",
    "request_timeout",
    "max_turns",
    "skills",
    "memory",
    "skills_dirs",
)
_TABLES = ("pricing", "harness", "executor", "executor_pass_env")
_SECONDS = st.integers(-1, 5) | st.floats(allow_nan=True) | st.sampled_from([0.5, 86_400, 86_400.5, 1 << 63])
_GOOD: dict[str, st.SearchStrategy[Any]] = {
    "policy": _SECTION,
    "sandbox": _SANDBOX,
    "pass_env": st.lists(st.sampled_from(["A", "_b1", "GITHUB_TOKEN", "1X", "A-B", "A\n", "Ä"]), max_size=3),
    "max_read_bytes": st.integers(-1, 5) | st.sampled_from([4096, (1 << 63) - 1, 1 << 63]),
    "think": st.booleans(),
    "compact_at": st.integers(-1, 5) | st.sampled_from([100_000, (1 << 63) - 1, 1 << 63]),
    "context_windows": st.dictionaries(
        st.sampled_from(["gpt-5", "qwen*", ""]),
        st.integers(-1, 5) | st.sampled_from([32_768, (1 << 63) - 1, 1 << 63]) | _VALUES,
        max_size=2,
    ),
    "api_key_command": st.text(max_size=3) | st.lists(st.text(max_size=3), max_size=2),
    "mcp": st.dictionaries(st.sampled_from(["servers", "x"]), _VALUES, max_size=2),
    "stream_idle_timeout": _SECONDS,
    "request_timeout": _SECONDS,
    "max_turns": st.integers(-1, 5) | st.sampled_from([(1 << 63) - 1, 1 << 63]),
    "skills": st.booleans(),
    "memory": st.booleans(),
    "skills_dirs": st.lists(st.sampled_from(["~/skills", "rel", "", "/x", "a\x00"]), max_size=3),
    "pricing": st.dictionaries(
        st.sampled_from(["m", ""]),
        st.fixed_dictionaries(
            {"input": st.integers(-1, 3) | st.floats(), "output": st.integers(0, 3) | st.floats()},
            optional={"cache_read": st.floats(-1, 3), "cache_write": st.integers(-1, 3), "x": _VALUES},
        )
        | _VALUES,
        max_size=2,
    ),
    "harness": st.fixed_dictionaries(
        {},
        optional={
            "profile": _SCALARS,
            "slots": st.dictionaries(st.sampled_from(["approval", "x"]), _SCALARS, max_size=2),
            "profiles": st.dictionaries(
                st.sampled_from(["p"]), st.dictionaries(st.sampled_from(["s"]), _SCALARS), max_size=1
            ),
            "modules": st.lists(st.sampled_from(["a.b", "a..b", "1x", ""]), max_size=2),
            "entry_points": st.lists(st.sampled_from(["g", ""]), max_size=2),
            "timeout": _SECONDS,
        },
    )
    | _VALUES,
    "executor": st.text(max_size=3) | st.lists(st.text(max_size=3), max_size=2),
    "executor_pass_env": st.lists(st.sampled_from(["SSH_AUTH_SOCK", "1X", ""]), max_size=2),
    **{key: st.text(max_size=3) for key in AgentConfig._fields if key not in _TYPED and key not in _TABLES},
}


@st.composite
def user_files(draw: st.DrawFn) -> dict[str, Any]:
    """Files that are mostly of the right shape, with now and then a value or key of another."""
    keys = draw(st.lists(st.sampled_from(sorted(_GOOD)), unique=True, max_size=5))
    raw = {key: draw(_GOOD[key] if draw(st.integers(0, 9)) else _GOOD[key] | _VALUES) for key in keys}
    if draw(st.integers(0, 9)) == 0:
        raw["colour"] = draw(_VALUES)
    return raw


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user_files())
def test_what_the_plain_check_accepts_pydantic_accepts_with_the_same_values(raw: dict[str, Any]) -> None:
    plain = plain_file(USER_FILE, raw)
    if plain is not None:  # None claims nothing: pydantic decides
        assert validate_file(USER_FILE, raw, "config.toml") == plain


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["policy", "pass_env"]), _SECTION | _VALUES))
def test_the_same_holds_for_a_project_file(raw: dict[str, Any]) -> None:
    section = plain_file(PROJECT_FILE, raw)
    if section is not None:
        assert validate_file(PROJECT_FILE, raw, ".bastion/config.toml") == section


@pytest.mark.parametrize(
    "raw",
    [
        {"policy": {"allow": ["bash(make test)"], "deny": [], "fallback": "deny", "builtin": False}},
        {
            "pass_env": ["GITHUB_TOKEN", "_X1"],
            "max_read_bytes": 4096,
            "provider": "anthropic",
            "model": "m",
            "think": True,
            "api_key_command": ["pass", "show", "k"],
            "effort": "low",
        },
        {"api_key_command": "pass show k", "base_url": "http://x", "api_key_env": "K"},
        {"skills": True, "skills_dirs": ["~/skills", "team"], "memory": False, "memory_dir": "~/m"},
        {"pricing": {"m": {"input": 3, "output": 1.5}}, "harness": {"slots": {"approval": "x"}}},
        {"mcp": {"servers": {"docs": {"command": ["x"]}}}, "executor": ["ssh", "h"], "compact_at": 9},
    ],
)
def test_a_hand_written_file_is_read_plainly(raw: dict[str, Any]) -> None:
    plain = plain_file(USER_FILE, raw)
    assert plain is not None and validate_file(USER_FILE, raw, "config.toml") == plain


def test_a_dry_run_with_a_plain_user_file_does_not_import_pydantic(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('pass_env = ["X"]\n[policy]\nallow = ["bash(make test)"]\nask = ["read"]\n')
    code = (
        "import os, sys\n"
        "from bastion.policy import DryRun\n"
        f"r = DryRun({str(config)!r}).check({str(tmp_path)!r}, 'bash', {{'command': 'make test'}})\n"
        "print(r['decision'], 'pydantic' in sys.modules)"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["allow", "False"]
