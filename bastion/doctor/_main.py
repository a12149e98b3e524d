"""`bastion doctor`: the report, section by section, from the table SECTIONS (a section is added by
adding a row: its name and its probe)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from .._handover import environ as process_environ
from . import _sections
from ._codex import codex
from ._context import Context, Probe, run_probe
from ._executor import executor
from ._facts import Section, as_json, as_text, failed
from ._mcp import mcp
from ._store import sessions

__all__ = ["SECTIONS", "doctor_main", "report"]

# The report's sections, in order: name -> probe.
SECTIONS: dict[str, Probe] = {
    "config": _sections.config,
    "provider": _sections.provider,
    "server": _sections.server,
    "git": _sections.git,
    "sandbox": _sections.sandbox,
    "executor": executor,
    "sample": _sections.sample,
    "sessions": sessions,
    "mcp": mcp,
    "codex": codex,
}


def report(context: Context, names: Sequence[str] | None = None) -> list[Section]:
    """The sections `names` (all, in order, by default) for `context`."""
    return [run_probe(name, SECTIONS[name], context) for name in names or SECTIONS]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bastion doctor",
        description="Report what a session here would run with: the config files and their rules, the "
        "provider and its key (never the key), the server, git, the sandbox, and what everyday lines "
        "would get. Exit status 1 when something is wrong.",
    )
    p.add_argument("--cwd", default=".", help="the working directory of the session (default: .)")
    p.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    p.add_argument("--offline", action="store_true", help="do not ask the provider's server")
    p.add_argument(
        "--executor",
        metavar="CMD",
        help="the executor a session would start (as bastion --executor CMD); overrides the config's; "
        '"" for none',
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--section", action="append", choices=list(SECTIONS), help="only this section (repeatable)"
    )
    return p


def doctor_main(
    argv: Sequence[str],
    environ: Mapping[str, str] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:
        return 2 if exc.code else 0
    root = os.path.abspath(args.cwd)
    if not os.path.isdir(root):
        err.write(f"bastion doctor: {args.cwd}: not a directory\n")
        return 2
    context = Context.load(root, args.config, process_environ() if environ is None else environ, args.offline)
    context.executor = args.executor
    sections = report(context, args.section)
    out.write(as_json(sections) + "\n" if args.json else as_text(sections))
    return 1 if failed(sections) else 0
