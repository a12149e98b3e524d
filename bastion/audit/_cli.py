"""The commands: `bastion audit`, `bastion hook`, and `bastion check --explain`'s rendering."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from .._files import read_regular
from ..policy import DryRun, user_config_path
from ._audit import audit, render_report, report_json
from ._decide import Decider
from ._explain import explain
from ._hook import claude_code_hook
from ._hooks import codex_hook, gemini_hook
from ._inputs import FORMATS, Call, Problem, read_calls
from ._suggest import render_toml, suggest

__all__ = ["audit_main", "explain_call", "hook_main"]

USAGE = 2
_MAX_HOOK_INPUT = 64 << 20


def _audit_parser() -> argparse.ArgumentParser:
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


def _read(name: str, stdin: TextIO) -> str:
    if name == "-":
        return stdin.read()
    return read_regular(name).decode("utf-8", "surrogateescape")


def audit_main(
    argv: Sequence[str], stdin: TextIO = sys.stdin, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    try:
        args = _audit_parser().parse_args(list(argv))
    except SystemExit as exc:
        return USAGE if exc.code else 0
    if not os.path.isdir(args.cwd):
        err.write(f"bastion audit: --cwd {args.cwd}: not a directory\n")
        return USAGE
    decider = Decider(args.config, args.cwd)
    gate = decider.gate(decider.cwd)
    if isinstance(gate, str):
        err.write(f"bastion audit: {gate}\n")
        return USAGE
    calls: list[Call] = []
    problems: list[Problem] = []
    for name in args.files:
        try:
            text = _read(name, stdin)
        except OSError as exc:
            err.write(f"bastion audit: {name}: {exc.strerror or exc}\n")
            return USAGE
        found, bad, _ = read_calls("<stdin>" if name == "-" else name, text, args.format)
        calls += found
        problems += bad
    report = audit(calls, decider, progress=err)
    if args.suggest:
        out.write(render_toml(suggest(report, decider), args.config or user_config_path()))
        for p in [*problems, *report.problems]:
            err.write(f"{p.where}: error: {p.message}\n")
    elif args.json:
        out.write(json.dumps(report_json(report, problems)) + "\n")
    else:
        render_report(report, out, each=not args.summary, problems=problems)
    return 1 if problems or report.problems else 0


def explain_call(dry: DryRun, cwd: str, tool: str, call: Mapping[str, object], out: TextIO) -> str:
    """`bastion check --explain`: write the explanation; the decision, as check prints it."""
    gate = dry.gate(cwd)
    decided = gate.decide(tool, dict(call))
    explain(gate, decided, out)
    return str(decided.verdict.decision)


def _hook_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bastion hook",
        description="Answer another agent's permission hook with bastion's policy "
        "(see docs/integrations.md). Exit status: 0 whatever the answer, 2 usage error.",
    )
    p.add_argument("agent", choices=["claude-code", "codex", "gemini"],
                   help="the agent whose hook protocol to speak")  # fmt: skip
    p.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    p.add_argument(
        "--others", choices=["pass", "ask"], default="pass",
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
    if args.agent == "codex":
        answer = codex_hook(text, args.config, strict=args.strict)
    elif args.agent == "gemini":
        answer = gemini_hook(text, args.config, strict=args.strict)
    else:
        answer = claude_code_hook(text, args.config, others=args.others)
    if answer is not None:
        out.write(json.dumps(answer) + "\n")
    return 0
