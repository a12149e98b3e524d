"""The policy: rules from ranked sources decide each subject of a tool call; config layers build it."""

from ._config import PolicyFlags, Settings, load_settings
from ._engine import Layer, Policy
from ._env import child_env
from ._rules import ConfigError, PolicyError, Rule, RuleError, parse_rule
from ._types import SENTINEL, Decision, Subject, Verdict

__all__ = [
    "SENTINEL",
    "ConfigError",
    "Decision",
    "Layer",
    "Policy",
    "PolicyError",
    "PolicyFlags",
    "Rule",
    "RuleError",
    "Settings",
    "Subject",
    "Verdict",
    "child_env",
    "load_settings",
    "parse_rule",
]
