"""`bastion acp`: the agent served over the Agent Client Protocol (JSON-RPC on standard input and
output), so that an editor runs bastion as its agent: sessions, the model's text streamed, every
call as a tool call with its status, the policy's questions in the editor's permission dialog.

The same Agent, gate, policy, sessions and harness as the REPL; the front only speaks the
protocol. The SDK (`agent-client-protocol`, imported as `acp`) is loaded on this path alone.
"""

import argparse
import collections.abc
import typing

if typing.TYPE_CHECKING:
    from ..front import Build

__all__ = ["acp_main"]


def acp_main(
    argv: collections.abc.Sequence[str],
    parser: collections.abc.Callable[[], argparse.ArgumentParser],
    build: "Build",
    environ: collections.abc.Mapping[str, str],
) -> int:
    """Serve the editor on standard input and output until it closes them; the exit status.
    `parser` reads the agent's flags, `build` makes a session's agent (bastion/agent/_wiring.build)."""
    from ._main import serve

    return serve(argv, parser, build, environ)
