"""The agent: providers, the turn loop under the policy, one-shot runs, the REPL and sessions.

Importing it is light: the SDKs (and their httpx2) and prompt_toolkit are imported where they are used.
"""

import collections.abc

__all__ = ["main"]


def main(argv: collections.abc.Sequence[str]) -> int:
    """Run `bastion` with argv (the arguments after the program's name); the exit status."""
    from ._main import main as _main

    return _main(argv)
