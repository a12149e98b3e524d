"""The agent: providers, the turn loop under the policy, one-shot runs, the REPL and sessions.

Importing it is light: the SDKs (and their httpx2) and prompt_toolkit are imported where they are
used; the provider's setup (for `bastion doctor`) is loaded when first named.
"""

import collections.abc
import typing

from .._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from ._setup import ProviderSetup, config_key_names, provider_setup

__all__ = ["ProviderSetup", "config_key_names", "main", "provider_setup"]

_LAZY = dict.fromkeys(("ProviderSetup", "config_key_names", "provider_setup"), "_setup")


__getattr__ = _lazy_names(__name__, _LAZY)


def main(argv: collections.abc.Sequence[str]) -> int:
    """Run `bastion` with argv (the arguments after the program's name); the exit status."""
    from ._main import main as _main

    return _main(argv)
