"""`bastion runtime graph`: every slot's resolved id and where it came from, by the resolver a turn
calls (the config read as a session reads it, the components loaded as a session loads them)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from ._resolve import Snapshot, origin_words

__all__ = ["graph_lines", "runtime_main"]


def graph_lines(snapshot: Snapshot) -> list[str]:
    """The graph as `bastion runtime graph` prints it."""
    width = max(len(slot) for slot in snapshot.slots)
    ids = max(len(r.id) for r in snapshot.slots.values())
    lines = ["slots:"]
    for slot, resolved in snapshot.slots.items():
        origin = origin_words(resolved.origin, snapshot.where)
        lines.append(f"  {slot:<{width}}  {resolved.id:<{ids}}  {origin}")
        for wrap in resolved.wraps:
            lines.append(f"  {'':<{width}}    wrapped by {wrap.component.id!r} ({wrap.origin})")
        if resolved.fallback is not None:
            lines.append(
                f"  {'':<{width}}    fallback {resolved.fallback.component.id!r} ({resolved.fallback.origin})"
            )
    lines.append(f"profile: {snapshot.profile or 'none'}")
    return lines


def runtime_main(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """`bastion runtime graph [--cwd DIR] [--config FILE]`; the exit status."""
    import argparse

    from ....policy import ConfigError, PolicyError, load_settings, user_config_path
    from ....workspace import LocalWorkspace
    from ._load import harness_config
    from ._resolve import load_harness

    out, err = out or sys.stdout, err or sys.stderr
    p = argparse.ArgumentParser(
        prog="bastion runtime", description="Show what the harness's slots resolve to in a session here."
    )
    p.add_argument("what", choices=("graph",), help="graph: every slot's id and where it came from")
    p.add_argument("--cwd", default=".", help="the working directory of the session (default: .)")
    p.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    try:
        args = p.parse_args(list(argv))
    except SystemExit as exc:
        return 2 if exc.code else 0
    root = os.path.abspath(args.cwd)
    if not os.path.isdir(root):
        err.write(f"bastion runtime: {args.cwd}: not a directory\n")
        return 2
    ws = LocalWorkspace(root)
    try:
        settings = load_settings(ws, args.config)
    except (PolicyError, ConfigError) as exc:
        err.write(f"bastion runtime: {exc}\n")
        return 1
    finally:
        ws.close()
    where = os.path.expanduser(args.config) if args.config else user_config_path()

    def warn(text: str) -> None:
        err.write(f"bastion: {text}\n")

    harness = load_harness(harness_config(settings.agent, where), warn)
    out.write("\n".join(graph_lines(harness.snapshot())) + "\n")
    return 0
