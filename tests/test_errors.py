"""One exception tree: every exception class bastion defines descends from bastion.BastionError,
and keeps the older base its callers catch (OSError, ValueError)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import bastion
from bastion import BastionError


def _modules() -> list[str]:
    found = [
        m.name
        for m in pkgutil.walk_packages(bastion.__path__, "bastion.")
        if not m.name.endswith("__main__")  # running them is what importing them does
    ]
    return sorted(found)


def _defined_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


def test_the_walk_finds_the_packages_exceptions() -> None:
    names = {e.__name__ for e in _defined_exceptions()}
    promised = {"RequestError", "PolicyError", "ConfigError", "AgentError", "StampError", "WorkspaceError"}
    assert promised <= names


def test_every_exception_bastion_defines_descends_from_bastion_error() -> None:
    # Exempt (bastion/_errors.py says so): private control-flow exceptions that never leave their module.
    stray = [
        f"{e.__module__}.{e.__qualname__}"
        for e in _defined_exceptions()
        if not issubclass(e, BastionError) and not e.__name__.startswith("_")
    ]
    assert stray == []


@pytest.mark.parametrize(
    ("error", "older"),
    [
        ("bastion.policy.RequestError", ValueError),
        ("bastion.analyzer.StampError", ValueError),
        ("bastion.workspace.WorkspaceError", OSError),
        ("bastion.analyzer.FactError", OSError),
        ("bastion.policy.ConfigError", BastionError),
        ("bastion.policy.RuleError", BastionError),
        ("bastion.agent.runtime._types.ConfigError", BastionError),
        ("bastion.agent.runtime._types.ModelError", BastionError),
    ],
)
def test_each_error_keeps_the_base_its_callers_catch(error: str, older: type[BaseException]) -> None:
    module, name = error.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, older) and issubclass(cls, BastionError)


def test_an_os_error_of_the_workspace_still_carries_its_errno() -> None:
    from bastion.workspace import WorkspaceError

    err = WorkspaceError(2, "no such file", "x")
    assert (err.errno, err.strerror, err.filename) == (2, "no such file", "x")
    assert isinstance(err, OSError) and isinstance(err, BastionError)


def test_there_is_one_config_error_which_ends_a_run_as_an_agent_error() -> None:
    # The config reader (below the policy), the policy's settings and the agent raise the same class,
    # so an agent's `except AgentError` and a dry-run's `except ConfigError` both catch a bad file.
    from bastion._errors import AgentError, ConfigError, Failure
    from bastion.agent.runtime import ConfigError as AgentConfigError
    from bastion.config import ConfigError as ReadersConfigError
    from bastion.policy import ConfigError as PolicyConfigError

    assert ConfigError is AgentConfigError is ReadersConfigError is PolicyConfigError
    assert issubclass(ConfigError, AgentError) and ConfigError("x").kind is Failure.OTHER
    assert ConfigError("f.toml: x: unknown field", "fix it").hint == "fix it"


def test_the_error_root_loads_when_first_named() -> None:
    import subprocess
    import sys

    code = (
        "import sys, bastion; first = 'bastion._errors' in sys.modules; bastion.BastionError\n"
        "print(first, 'bastion._errors' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
