"""`bastion` on a terminal: the client takes the screen (first the sessions to choose from, for
`--resume` without an ID and `--continue`), and when it leaves, the warnings it held while it had
the screen are printed, then the command that resumes the session."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from ..front import Build, Learning
from ..runtime import STOP_WAIT
from ..sessions import bastion_home, list_sessions
from ._app import Client

__all__ = ["client_main"]


def client_main(
    args: argparse.Namespace,
    environ: Mapping[str, str],
    cwd: str,
    build: Build,
    learning: Learning | None = None,
) -> int:
    pick = None
    if args.resume == "" or args.continue_:
        # A record that does not say where it ran cannot be resumed: `bastion --list` names it.
        found = list_sessions(bastion_home(environ), cwd if args.continue_ else None)
        pick = [info for info in found if info.cwd]
        if not pick:
            where = f"in {cwd}" if args.continue_ else "yet"
            print(f"bastion: no session with a prompt has run {where} (bastion --list)", file=sys.stderr)
            return 1
    client = Client(args, environ, cwd, build, learning, pick)
    code = client.run()
    if client.runs.thread is not None:  # a run that was stopped: its calls end before the process does
        client.runs.thread.join(STOP_WAIT)
    built = client.built
    if built is not None:
        built.close()
    for line in client.held.lines:
        print(line, file=sys.stderr)
    if built is not None and built.session.recorded:
        print(f"To resume this session: bastion --resume {built.session.id}")
    return code or 0
