"""The policy: rules from ranked sources decide each subject of a tool call; config layers build it."""

from ._config import PolicyFlags, Settings, load_settings, user_config_path
from ._dryrun import KEPT_DIRECTORIES, MAX_JSON_DEPTH, DryRun, RequestError, load_json, verdict_json
from ._engine import Layer, Policy
from ._env import child_env
from ._gate import STAMP_ARG, Decided, Gate, secrets_in_force
from ._rules import ConfigError, PolicyError, Rule, RuleError, parse_rule
from ._subjects import bash_subjects, path_subjects, redirect_targets
from ._types import SENTINEL, Decision, Subject, Verdict

__all__ = [
    "KEPT_DIRECTORIES",
    "MAX_JSON_DEPTH",
    "SENTINEL",
    "STAMP_ARG",
    "ConfigError",
    "Decided",
    "Decision",
    "DryRun",
    "Gate",
    "Layer",
    "Policy",
    "PolicyError",
    "PolicyFlags",
    "RequestError",
    "Rule",
    "RuleError",
    "Settings",
    "Subject",
    "Verdict",
    "bash_subjects",
    "child_env",
    "load_json",
    "load_settings",
    "parse_rule",
    "path_subjects",
    "redirect_targets",
    "secrets_in_force",
    "user_config_path",
    "verdict_json",
]
