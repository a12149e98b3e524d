"""`bastion acp [flags]`: the agent's flags (provider, model, config, rules, skills...), read as
`bastion` reads them, and `--question-timeout`; the flags of one run or of the REPL are refused."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from ..._safe import holding, redacting
from ..front import Build
from ._files import FILE_TIMEOUT
from ._wire import WRITE_TIMEOUT

if TYPE_CHECKING:
    from ._wire import Pipes

__all__ = ["serve"]

# How long a question waits for the editor's answer before it is a no (a person may be away).
QUESTION_TIMEOUT = 600.0
# The flags that belong to one run (-p) or to the REPL, and the default each must keep here.
_NOT_HERE = {
    "prompt": ("-p", None),
    "list": ("--list", False),
    "resume": ("--resume", None),
    "continue_": ("--continue", False),
    "here": ("--here", False),
    "repair": ("--repair", False),
    "at": ("--at", None),
    "rewind": ("--rewind", False),
    "output_format": ("--output-format", "text"),
    "transcript": ("--transcript", None),
    "max_turns": ("--max-turns", None),
    "yes_to": ("--yes-to", "ask"),
}


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def parse(argv: Sequence[str], parser: Callable[[], argparse.ArgumentParser]) -> argparse.Namespace | int:
    """The flags, or the exit status of a command line that is not one (said on standard error)."""
    p = parser()
    p.prog = "bastion acp"
    p.description = (
        "The agent served over the Agent Client Protocol on standard input and output, for editors "
        "(Zed, JetBrains, Neovim, Emacs): each session/new is a bastion session in the editor's "
        "directory. Takes the agent's flags; not those of one run (-p) or of the REPL."
    )
    p.epilog = "docs/integrations.md says how to add bastion to an editor."
    p.add_argument(
        "--question-timeout",
        type=_seconds,
        default=QUESTION_TIMEOUT,
        metavar="SECONDS",
        help="how long a question waits for the editor's answer before it is a no "
        f"(default {QUESTION_TIMEOUT:g})",
    )
    p.add_argument(
        "--file-timeout",
        type=_seconds,
        default=FILE_TIMEOUT,
        metavar="SECONDS",
        help="how long a read or write through the editor's file system waits for its answer "
        f"(default {FILE_TIMEOUT:g})",
    )
    p.add_argument(
        "--write-timeout",
        type=_seconds,
        default=WRITE_TIMEOUT,
        metavar="SECONDS",
        help="how long bastion waits for the editor to read its output before the connection ends "
        f"(default {WRITE_TIMEOUT:g})",
    )
    try:
        args = p.parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    for name, (flag, default) in _NOT_HERE.items():
        if getattr(args, name) != default:
            print(
                f"bastion acp: {flag} is not for the editor's agent (each session/new is a session)",
                file=sys.stderr,
            )
            return 2
    return args


def serve(
    argv: Sequence[str],
    parser: Callable[[], argparse.ArgumentParser],
    build: Build,
    environ: Mapping[str, str],
) -> int:
    """Serve until the editor closes the stream; 0, or 1 when the stream cannot be served."""
    args = parse(argv, parser)
    if isinstance(args, int):
        return args
    if args.version:
        from ... import __version__

        print(f"bastion {__version__}")
        return 0
    from ._wire import OneLine, take_pipes

    pipes = take_pipes()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    with holding(), redacting():
        try:
            lost = asyncio.run(_serve(args, environ, build, pipes))
        except OSError as err:
            print(f"bastion acp: the editor's stream cannot be served: {err}", file=sys.stderr)
            return 1
    return 1 if lost else 0


async def _serve(
    args: argparse.Namespace, environ: Mapping[str, str], build: Build, pipes: Pipes
) -> str | None:
    """Serve until the editor closes its end (None) or stops reading (why, recorded in every
    session open then)."""
    from acp import Agent, run_agent

    from ._server import Server
    from ._wire import LineTransport

    transport = LineTransport.open(pipes, args.write_timeout)
    server = Server(args, environ, build)
    transport.on_end = server.stop_runs
    try:
        # The router finds the methods Server has; the others are "method not found".
        await run_agent(cast("Agent", server), transport)
    finally:
        await server.shutdown(transport.lost)
    return transport.lost
