"""The policy: rules from ranked sources decide each subject of a tool call; config layers build it.

The environment scrubbing, the MCP names, the narrowest rule for a subject and the rules a question
offers to remember load when first used (a dry-run of a bash line needs none of them)."""

import typing

from .._errors import ConfigError
from .._lazy import lazy_names as _lazy_names
from ._config import (
    PROJECT_CONFIG,
    PolicyFlags,
    ProjectConfigError,
    Settings,
    load_settings,
    user_config_path,
)
from ._dryrun import KEPT_DIRECTORIES, MAX_JSON_DEPTH, DryRun, RequestError, load_json, verdict_json
from ._engine import Layer, Policy
from ._gate import Claims, Cleared, Decided, Gate, bash_subjects, secrets_in_force
from ._rules import PolicyError, Rule, RuleError, parse_rule
from ._shipped import ALIASES, SECRET_NOTE
from ._subjects import held_subjects, path_subjects, redirect_targets
from ._tools import (
    MCP_TOOL,
    MEMORY_ACTIONS,
    PATH_TOOLS,
    READ_TOOLS,
    STAMP_ARG,
    TASK_KINDS,
    TOOLS,
    WRITE_TOOLS,
    ToolInfo,
    runs_alongside,
)
from ._types import Decision, Kind, Origin, Source, Subject, Verdict, Written
from ._words import KIND_WORDS, cited, kind_note, named, source_words

if typing.TYPE_CHECKING:
    from ._env import child_env, without
    from ._learn import Offer, offer_for, remember
    from ._mcp import mcp_name_problem, mcp_subjects, mcp_tool_name, split_mcp_name
    from ._narrow import narrowed, rule_for, warnings_for

__all__ = [
    "ALIASES",
    "KEPT_DIRECTORIES",
    "MAX_JSON_DEPTH",
    "MCP_TOOL",
    "MEMORY_ACTIONS",
    "PATH_TOOLS",
    "PROJECT_CONFIG",
    "READ_TOOLS",
    "SECRET_NOTE",
    "KIND_WORDS",
    "STAMP_ARG",
    "TASK_KINDS",
    "TOOLS",
    "WRITE_TOOLS",
    "Claims",
    "Cleared",
    "ConfigError",
    "Decided",
    "Decision",
    "DryRun",
    "Gate",
    "Kind",
    "Layer",
    "Offer",
    "Origin",
    "Policy",
    "PolicyError",
    "PolicyFlags",
    "ProjectConfigError",
    "RequestError",
    "Rule",
    "RuleError",
    "Settings",
    "Source",
    "Subject",
    "ToolInfo",
    "Verdict",
    "Written",
    "bash_subjects",
    "cited",
    "child_env",
    "held_subjects",
    "kind_note",
    "load_json",
    "load_settings",
    "mcp_name_problem",
    "mcp_subjects",
    "mcp_tool_name",
    "named",
    "narrowed",
    "offer_for",
    "parse_rule",
    "path_subjects",
    "redirect_targets",
    "remember",
    "rule_for",
    "runs_alongside",
    "secrets_in_force",
    "source_words",
    "split_mcp_name",
    "user_config_path",
    "verdict_json",
    "warnings_for",
    "without",
]

_LAZY = {
    "child_env": "_env",
    "without": "_env",
    **dict.fromkeys(("Offer", "offer_for", "remember"), "_learn"),
    **dict.fromkeys(("narrowed", "rule_for", "warnings_for"), "_narrow"),
    **dict.fromkeys(("mcp_name_problem", "mcp_subjects", "mcp_tool_name", "split_mcp_name"), "_mcp"),
}


__getattr__ = _lazy_names(__name__, _LAZY)
