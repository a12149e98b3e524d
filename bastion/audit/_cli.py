"""The commands: `bastion audit`, `bastion hook`, and `bastion check --explain`'s rendering. Each
imports what it uses when it runs, so a hook call loads no audit, report or explanation code."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from .._argv import Reading, read_plainly
from .._files import open_regular
from .._safe import safe_lines

if TYPE_CHECKING:
    import argparse
    from types import SimpleNamespace

    from ..policy import DryRun
    from ._inputs import Call, Problem

__all__ = ["audit_main", "explain_call", "hook_main"]

USAGE = 2
_MAX_HOOK_INPUT = 64 << 20
_AGENTS = ("claude-code", "codex", "gemini")
_OTHERS = ("pass", "ask")


def _audit_parser() -> argparse.ArgumentParser:
    import argparse

    from ._inputs import FORMATS

    p = argparse.ArgumentParser(
        prog="bastion audit",
        description="Decide many recorded calls as a session would, without running any, and summarise. "
        "Exit status: 0, 1 when some input lines could not be read, 2 usage error.",
    )
    p.add_argument(
        "files", nargs="+", metavar="FILE", help="histories, request files or transcripts (- for stdin)"
    )
    p.add_argument("--format", choices=FORMATS, help="the input format (default: detected per file)")
    p.add_argument("--cwd", default=".", help="the directory for calls that do not say where they ran")
    p.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--summary", action="store_true", help="print the summary only, not each call")
    p.add_argument("--suggest", action="store_true", help="print TOML allow rules for the asked calls")
    return p


def audit_main(
    argv: Sequence[str], stdin: TextIO = sys.stdin, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    try:
        args = _audit_parser().parse_args(list(argv))
    except SystemExit as exc:
        return USAGE if exc.code else 0
    from ..policy import user_config_path
    from ._audit import audit, render_report, report_json
    from ._decide import Decider
    from ._inputs import read_calls
    from ._suggest import render_toml, suggest

    say = safe_lines(err)  # names and records from outside, shown safe
    if not os.path.isdir(args.cwd):
        say.write(f"bastion audit: --cwd {args.cwd}: not a directory\n")
        return USAGE
    decider = Decider(args.config, args.cwd)
    gate = decider.gate(decider.cwd)
    if isinstance(gate, str):
        say.write(f"bastion audit: {gate}\n")
        return USAGE
    calls: list[Call] = []
    problems: list[Problem] = []
    for name in args.files:
        # A line at a time (_inputs.py): standard input as bytes where it has them, like a file.
        try:
            if name == "-":
                found, bad, _ = read_calls("<stdin>", getattr(stdin, "buffer", stdin), args.format)
            else:
                with os.fdopen(open_regular(name), "rb") as stream:
                    found, bad, _ = read_calls(name, stream, args.format)
        except OSError as exc:
            say.write(f"bastion audit: {name}: {exc.strerror or exc}\n")
            return USAGE
        calls += found
        problems += bad
    report = audit(calls, decider, progress=err)
    if args.suggest:
        out.write(render_toml(suggest(report, decider), args.config or user_config_path()))
        for p in [*problems, *report.problems]:
            say.write(f"{p.where}: error: {p.message}\n")
    elif args.json:
        out.write(json.dumps(report_json(report, problems)) + "\n")
    else:
        render_report(report, out, each=not args.summary, problems=problems)
    return 1 if problems or report.problems else 0


def explain_call(dry: DryRun, cwd: str, tool: str, call: Mapping[str, object], out: TextIO) -> str:
    """`bastion check --explain`: write the explanation; the decision, as check prints it."""
    from ._explain import explain

    gate = dry.gate(cwd)
    decided = gate.decide(tool, dict(call))
    explain(gate, decided, safe_lines(out))
    return str(decided.verdict.decision)


# How _hook_parser reads a plainly written command line (tests compare the two).
_HOOK_ARGS = Reading(
    {"--config": "config", "--others": "others"},
    {"--strict": "strict"},
    {"agent": None, "config": None, "others": "pass", "strict": False},
    "agent",
    {"agent": _AGENTS, "others": _OTHERS},
    after_dashes=False,
)


def _hook_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="bastion hook",
        description="Answer another agent's permission hook with bastion's policy "
        "(see docs/integrations.md). Exit status: 0 whatever the answer, 2 usage error.",
    )
    p.add_argument("agent", choices=_AGENTS, help="the agent whose hook protocol to speak")
    p.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    p.add_argument(
        "--others", choices=_OTHERS, default="pass",
        help="claude-code: tools bastion does not decide: pass them through (default) or ask",
    )  # fmt: skip
    p.add_argument(
        "--strict", action="store_true",
        help="codex, gemini: deny what bastion asks (default: no opinion, the agent's approvals apply)",
    )  # fmt: skip
    return p


def hook_main(
    argv: Sequence[str], stdin: TextIO = sys.stdin, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    # A hook is one process per call: argparse only for what is not plainly written.
    args: argparse.Namespace | SimpleNamespace | None = read_plainly(argv, _HOOK_ARGS)
    if args is None:
        try:
            args = _hook_parser().parse_args(list(argv))
        except SystemExit as exc:
            return USAGE if exc.code else 0
    if args.agent == "claude-code" and args.strict:
        err.write("bastion hook: --strict is for codex and gemini (claude-code asks)\n")
        return USAGE
    if args.agent != "claude-code" and args.others != "pass":
        err.write(f"bastion hook: --others is for claude-code ({args.agent} cannot ask)\n")
        return USAGE
    try:
        text = stdin.read(_MAX_HOOK_INPUT)
    except (OSError, UnicodeDecodeError) as exc:
        text = f"\x00unreadable: {exc}"
    from ._hook import claude_code_hook
    from ._hooks import codex_hook, gemini_hook

    if args.agent == "codex":
        answer = codex_hook(text, args.config, strict=args.strict)
    elif args.agent == "gemini":
        answer = gemini_hook(text, args.config, strict=args.strict)
    else:
        answer = claude_code_hook(text, args.config, others=args.others)
    if answer is not None:
        out.write(json.dumps(answer) + "\n")
    return 0
