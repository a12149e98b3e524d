"""Each package shows a small public API: `__all__` names only public things, and they all exist."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("package", ["bastion.grammar", "bastion.analyzer", "bastion.policy"])
def test_the_public_api_names_exist_and_none_is_private(package: str) -> None:
    module = importlib.import_module(package)
    names = module.__all__
    assert all(not n.startswith("_") for n in names)
    assert all(hasattr(module, n) for n in names)
