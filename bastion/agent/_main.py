"""`bastion [flags]`: the agent's command line. Its flags read; then the terminal client (on a
terminal: bastion/agent/client), the REPL, or one prompt with -p (bastion/agent/front), --list and
--resume for sessions, and the agent's subcommands (`sessions`, `config`, `acp`), each session made
by the wiring (bastion/agent/_wiring.py)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Mapping, Sequence

from .._handover import environ as process_environ
from .._safe import holding, redacting, safe_line
from .front import read_prompt
from .providers import PROVIDERS, preload
from .runtime import EFFORTS, ConfigError, UsageError
from .sessions import bastion_home, list_sessions

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bastion",
        description="A coding agent whose policy decides every tool call.",
        epilog="Other commands: bastion check, audit, hook, doctor, sessions, config, runtime, mcp serve, "
        "acp, execute (each with --help).",
    )
    p.add_argument("--version", action="store_true", help="print bastion's version, then exit")
    p.add_argument(
        "-p",
        "--prompt",
        help='run one prompt, then exit; "-" reads the prompt from standard input, and piped standard '
        "input is added after a prompt given here (unless --yes-to stdin)",
    )
    p.add_argument("--provider", choices=PROVIDERS, help="the model provider (default: the config's)")
    p.add_argument("--model", help="the model's name at the provider")
    p.add_argument("--base-url", help="the provider's API URL (http:// or https://)")
    p.add_argument("--api-key-env", help="the variable holding the openresponses provider's key (its name)")
    p.add_argument(
        "--api-key-command",
        help='a program that prints the key, split as a shell splits words; "" turns off the config\'s',
    )
    p.add_argument(
        "--think", action=argparse.BooleanOptionalAction, default=None, help="reasoning on (or off)"
    )
    p.add_argument("--effort", choices=EFFORTS, help="how hard the model reasons")
    p.add_argument(
        "--subagent-model", help="the model sub-agents (the task tool) use (default: the session's)"
    )
    p.add_argument("--config", help="the user config file (default $XDG_CONFIG_HOME/bastion/config.toml)")
    p.add_argument(
        "--no-project-config",
        action="store_true",
        help="do not read this repository's .bastion/config.toml (none of its rules apply): to go on "
        "when it is refused",
    )
    p.add_argument(
        "--output-format", choices=("text", "json"), default="text", help="with -p: text, or one JSON report"
    )
    p.add_argument(
        "--transcript",
        metavar="FILE",
        help="with -p: write the run's transcript (JSON, 0600) to FILE, checkpointed as it goes",
    )
    p.add_argument(
        "--max-turns",
        type=_positive,
        metavar="N",
        help="with -p: make at most N model requests (default: the config's max_turns, else no limit)",
    )
    p.add_argument(
        "--yes-to",
        choices=("ask", "stdin", "none"),
        default="ask",
        help="how -p answers a question: ask (read y/n from the terminal: standard input, or the "
        "controlling terminal when input is piped), stdin (each answer a line of piped standard "
        "input, never part of the prompt) or none (refuse)",
    )
    p.add_argument("--allow", action="append", default=[], metavar="RULE", help="allow what RULE names")
    p.add_argument("--ask", action="append", default=[], metavar="RULE", help="ask before what RULE names")
    p.add_argument("--deny", action="append", default=[], metavar="RULE", help="refuse what RULE names")
    p.add_argument(
        "--trust-skills",
        action="store_true",
        help="a loaded skill of yours (~/.bastion/skills, skills_dirs; never the project's) lets its "
        "allowed-tools run unasked until your next message",
    )
    p.add_argument(
        "--skills", action=argparse.BooleanOptionalAction, default=None, help="offer skills (default on)"
    )
    p.add_argument(
        "--memory",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer the model's memory, ~/.bastion/memory (default on)",
    )
    p.add_argument(
        "--executor",
        metavar="CMD",
        help="run the tools where CMD's `bastion execute` is (ssh HOST bastion execute ~/proj, "
        'docker exec -i NAME bastion execute /work); overrides the config\'s executor; "" clears it',
    )
    p.add_argument(
        "--list", action="store_true", help="list the sessions of this directory (bastion sessions list)"
    )
    p.add_argument(
        "--resume",
        metavar="ID",
        nargs="?",
        const="",
        help="continue a session (in the directory it ran in); without an ID, the terminal client "
        "lists every session to choose one",
    )
    p.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the latest session of this directory (the terminal client lists this "
        "directory's sessions, the latest selected)",
    )
    p.add_argument(
        "--front",
        choices=FRONTS,
        help="client: the full-screen terminal client (the default when standard input, output and "
        "error are a terminal); repl: the line REPL (the default otherwise)",
    )
    p.add_argument(
        "--here", action="store_true", help="with --resume: continue the session in this directory"
    )
    p.add_argument(
        "--at",
        type=int,
        metavar="LINE",
        help="with --resume ID: go on from that entry of the session (a line `bastion sessions tree ID` "
        "shows), on a branch of its own",
    )
    p.add_argument(
        "--rewind",
        action="store_true",
        help="with --at: put the files the session changed since that entry back as they were, where "
        "nothing else edited them since",
    )
    p.add_argument(
        "--repair",
        action="store_true",
        help="with --resume: a record whose hash chain breaks is cut back to its last good line first "
        "(the record as it was kept beside it, ID.jsonl.broken)",
    )
    return p


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number above 0")
    return value


# The fronts a person can choose with --front (-p is a front of its own, chosen by -p).
FRONTS = ("client", "repl")


# The subcommands bastion/cli.py dispatches before the agent's flags are read.
SUBCOMMANDS = ("check", "audit", "hook", "doctor", "sessions", "config", "runtime", "mcp", "acp")


def _stray_word(argv: Sequence[str]) -> str | None:
    """What to say about a first word that is not a flag: the agent takes none, so it is a
    mistyped subcommand (or a prompt given without -p)."""
    if not argv or argv[0].startswith("-"):
        return None
    word = argv[0]
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.6)
    hint = (
        f"did you mean `bastion {close[0]}`?" if close else f'a prompt goes after -p: bastion -p "{word} ..."'
    )
    return f"bastion: unknown command {word!r}; {hint} (commands: {', '.join(SUBCOMMANDS)})"


def _latest_session(home: str, cwd: str) -> str:
    found = [info for info in list_sessions(home, cwd) if info.cwd == cwd]
    if not found:
        raise ConfigError(f"--continue: no session has run in {cwd} (bastion --list)")
    return found[-1].id


def main(argv: Sequence[str]) -> int:
    if list(argv[:1]) == ["sessions"]:
        from .sessions import sessions_main

        return sessions_main(argv[1:], process_environ(), os.getcwd())
    if list(argv[:1]) == ["config"]:
        from .front import config_main

        return config_main(argv[1:], process_environ())
    if list(argv[:1]) == ["acp"]:
        from ._wiring import build
        from .acp import acp_main  # the protocol's SDK, on this path alone

        return acp_main(argv[1:], _parser, build, process_environ())
    stray = _stray_word(argv)
    if stray is not None:
        print(stray, file=sys.stderr)
        return 2
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.version:
        from .. import __version__

        print(f"bastion {__version__}")
        return 0
    try:
        _usage(args)
        if args.prompt is not None:
            args.prompt = read_prompt(args.prompt, args.yes_to, sys.stdin)
    except UsageError as err:
        print(f"bastion: {err}", file=sys.stderr)
        return 2
    environ = process_environ()
    cwd = os.getcwd()
    home = bastion_home(environ)
    if args.list:  # the alias of `bastion sessions list`
        from .sessions import list_here

        return list_here(home, cwd)
    front = (
        "p" if args.prompt is not None else args.front or ("client" if _on_a_terminal(environ) else "repl")
    )
    refused = _front_refused(front, args, environ)
    if refused is not None:
        print(f"bastion: {refused}", file=sys.stderr)
        return 2
    if args.provider:  # its SDK imports while the session is made (else once the config names it)
        preload(args.provider)
    # The keys this run reads are let go when it ends; whatever it prints is redacted.
    with holding(), redacting():
        try:
            from ._wiring import build

            if front == "client":
                from .client import client_main  # Textual: on this path alone

                return client_main(args, environ, cwd, build)
            if args.continue_:
                args.resume = _latest_session(home, cwd)
            from .front import one_shot, repl

            if args.prompt is not None:
                return one_shot(args, environ, cwd, build)
            return repl(args, environ, cwd, build)
        except ConfigError as err:
            print(safe_line(f"bastion: {err}"), file=sys.stderr)
            if err.hint is not None:
                print(safe_line(f"bastion: {err.hint}"), file=sys.stderr)
            return 1


def _on_a_terminal(environ: Mapping[str, str]) -> bool:
    """Whether the client can have the screen: standard input, output and error are a terminal
    (it draws on standard error, reads keys on standard input) and the terminal is not dumb."""
    streams = (sys.stdin, sys.stdout, sys.stderr)
    return all(s is not None and s.isatty() for s in streams) and environ.get("TERM", "") != "dumb"


def _front_refused(front: str, args: argparse.Namespace, environ: Mapping[str, str]) -> str | None:
    """Why the front chosen cannot run what the flags ask (None: it can)."""
    if front == "client" and not _on_a_terminal(environ):
        return (
            "--front client needs a terminal (standard input, output and error); --front repl works anywhere"
        )
    if front != "client" and args.resume == "":
        return "--resume without an ID lists the sessions in the terminal client; give an ID (bastion --list)"
    return None


def _usage(args: argparse.Namespace) -> None:
    """Flags that do not go together."""
    if args.transcript and args.prompt is None:
        raise UsageError("--transcript needs -p (a transcript is of one run)")
    if args.max_turns and args.prompt is None:
        raise UsageError("--max-turns needs -p (in the REPL, Ctrl-C stops a run)")
    if args.continue_ and args.resume is not None:
        raise UsageError("--continue resumes the latest session; --resume ID names one: give one of them")
    if args.front == "client" and args.prompt is not None:
        raise UsageError("--front client and -p are two fronts: give one of them")
    if args.here and args.resume is None and not args.continue_:
        raise UsageError("--here goes with --resume or --continue")
    if args.at is not None and not args.resume:
        raise UsageError("--at goes with --resume ID (the entry is a line of that session)")
    if args.rewind and args.at is None:
        raise UsageError("--rewind goes with --resume ID --at LINE (the entry to rewind to)")
    if args.repair and args.resume is None and not args.continue_:
        raise UsageError("--repair goes with --resume or --continue")
