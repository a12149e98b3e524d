"""The public API of bastion.policy: the names promised, nothing private."""

from __future__ import annotations

import pytest

import bastion.policy

PROMISED = [
    "Policy", "Settings", "load_settings", "PolicyError", "ConfigError", "RuleError", "parse_rule",
    "child_env", "Subject", "Verdict", "Decision", "Kind", "Layer", "PolicyFlags",
]  # fmt: skip


@pytest.mark.parametrize("name", PROMISED)
def test_each_promised_name_is_exported(name: str) -> None:
    assert name in bastion.policy.__all__ and hasattr(bastion.policy, name)


@pytest.mark.parametrize("name", bastion.policy.__all__)
def test_no_exported_name_is_private(name: str) -> None:
    assert not name.startswith("_")


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        (bastion.policy.RuleError, bastion.policy.PolicyError),
        (bastion.policy.ConfigError, bastion.BastionError),
    ],
)
def test_the_errors_form_one_tree(child: type[Exception], parent: type[Exception]) -> None:
    assert issubclass(child, parent)


def test_there_is_one_config_error_and_the_policy_names_it() -> None:
    import bastion._errors
    import bastion.config

    assert bastion.policy.ConfigError is bastion.config.ConfigError is bastion._errors.ConfigError
