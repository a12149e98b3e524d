"""Each package shows a small public API, and `__all__` says exactly what it is, in both directions:
every name it lists exists (a lazily loaded one too) and none is private; every public name the
package binds is listed, so nothing imported only for its own use (a typing helper, a class its
functions need) leaks out as if it were API."""

from __future__ import annotations
import __future__

import importlib
import pkgutil
import types

import pytest

import bastion


def _packages() -> list[str]:
    found = ["bastion"]
    found += [m.name for m in pkgutil.walk_packages(bastion.__path__, "bastion.") if m.ispkg]
    return sorted(found)


PACKAGES = _packages()


def _bound_publicly(module: types.ModuleType) -> set[str]:
    """The public names the package binds, less modules (its submodules among them) and `from
    __future__` directives, which are no API."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and not isinstance(value, __future__._Feature)
    }


def test_every_package_is_covered() -> None:
    assert {"bastion.analyzer", "bastion.agent.providers", "bastion.agent.tools", "bastion.sandbox"} <= set(
        PACKAGES
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_the_public_api_names_exist_and_none_is_private(package: str) -> None:
    module = importlib.import_module(package)
    names = module.__all__
    assert len(names) == len(set(names)), "a name listed twice"
    assert [n for n in names if n.startswith("_") and n != "__version__"] == []
    assert [n for n in names if not hasattr(module, n)] == []


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_a_package_binds_or_loads_lazily_is_in_its_all(package: str) -> None:
    module = importlib.import_module(package)
    lazy = set(getattr(module, "_LAZY", {}))
    assert (_bound_publicly(module) | lazy) - set(module.__all__) == set()
