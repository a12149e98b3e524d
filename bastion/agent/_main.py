"""`bastion [flags]`: the REPL, or one prompt with -p; --list and --resume for sessions."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._handover import environ as process_environ
from .._safe import holding, redact_data, redacting, safe_line
from ._advice import advice
from ._ask import CallKey
from ._colour import colour_for
from ._front import Asker, Fanout, Printer
from ._one_shot_answers import one_shot_answerer
from ._prompt_input import read_prompt
from ._report import Transcript, document, outcome
from ._session import Session, list_sessions
from ._settings import PROVIDERS, merge_flags, provider_config
from ._store import StoreError, bastion_home
from ._types import AgentError, Cancelled, ConfigError, ModelError, OutputClosed, Usage, UsageError
from .loop import Agent, Answerer, Gatekeeper, RunResult, Tools
from .providers import EFFORTS, Connection, Window, model_limits, prices_of, window_of

if TYPE_CHECKING:
    from ..workspace import Workspace
    from ._grants import Deciding
    from ._session_tools import SessionExtras
    from .mcp import McpToolbox

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bastion",
        description="A coding agent whose policy decides every tool call.",
        epilog="Other commands: bastion check, audit, hook, doctor, sessions, config, runtime, mcp serve, "
        "acp (each with --help).",
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
    p.add_argument("--resume", metavar="ID", help="continue a session (in the directory it ran in)")
    p.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the latest session of this directory",
    )
    p.add_argument(
        "--here", action="store_true", help="with --resume: continue the session in this directory"
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


@dataclass(slots=True)
class Built:
    agent: Agent
    session: Session
    model_name: str
    provider: str
    connection: Connection
    key_from: str = ""
    mcp: McpToolbox | None = None
    extras: SessionExtras | None = None
    workspace: Workspace | None = None

    def close(self) -> None:
        """End the session's record, stop its MCP servers and close an executor's pipe."""
        self.session.close()
        if self.mcp is not None:
            self.mcp.close()
        from ..workspace import ExecutorWorkspace

        if isinstance(self.workspace, ExecutorWorkspace):
            self.workspace.close()

    def advice(self, err: AgentError) -> str | None:
        return advice(err, self.provider, self.connection.base_url, self.key_from)


def _build(
    args: argparse.Namespace, environ: Mapping[str, str], cwd: str, printer: Printer, answer: Answerer
) -> Built:
    from ..analyzer import Stamper
    from ..policy import (
        PROJECT_CONFIG,
        Gate,
        PolicyFlags,
        ProjectConfigError,
        load_settings,
        user_config_path,
    )
    from ..policy import ConfigError as PolicyConfigError
    from ..sandbox import start_notice
    from ..workspace import LocalWorkspace
    from ._checkpoint import Checkpoints
    from ._compact import Compactor, Record, compact_at_setting, windows_setting
    from ._executor_setup import executor_argv, executor_line, open_workspace
    from ._prompt import SystemPrompt
    from ._session_tools import session_extras
    from ._setup import key_names
    from ._subagent import (
        Subagents,
        TaskTools,
        configured_model,
        front_console,
        subagent_model_setting,
        tasks_in,
    )
    from ._toolbox import Toolbox
    from .harness import harness_config, load_harness
    from .mcp import with_servers
    from .providers import RetryPolicy, key_variables, make_model, refused_model, timeouts_of

    flags = PolicyFlags(allow=tuple(args.allow), ask=tuple(args.ask), deny=tuple(args.deny))
    try:
        settings = load_settings(
            LocalWorkspace(cwd), args.config, flags=flags, project_config=not args.no_project_config
        )
    except ProjectConfigError as err:
        raise ConfigError(str(err), err.advice("bastion")) from None
    except PolicyConfigError as err:
        raise ConfigError(str(err)) from None
    if args.no_project_config and os.path.lexists(os.path.join(cwd, PROJECT_CONFIG)):
        skipped = f"{PROJECT_CONFIG} is not read (--no-project-config): none of its rules apply"
        printer.err.write(f"bastion: {skipped}\n")
    base = provider_config(settings.extra, settings.sources[0] if settings.sources else "config")
    command = None if args.api_key_command is None else shlex.split(args.api_key_command)
    cfg = merge_flags(
        base,
        {
            "provider": args.provider,
            "model": args.model,
            "base_url": args.base_url,
            "api_key_env": args.api_key_env,
            "api_key_command": command,
            "think": args.think,
            "effort": args.effort,
        },
    )
    retry = RetryPolicy(cap=float(environ["BASTION_RETRY_CAP"])) if "BASTION_RETRY_CAP" in environ else None
    home = bastion_home(environ)
    pricing = prices_of(settings.extra.get("pricing"))
    # The key's variables (and those MCP headers are read from) leave every child's environment
    # even when pass_env names them.
    where = settings.sources[0] if settings.sources else "config"
    scrub = key_names(cfg, settings.extra, where)
    model = make_model(
        cfg,
        environ,
        retry,
        pricing=pricing,
        limits_cache=os.path.join(home, "models.json"),
        timeouts=timeouts_of(settings.extra),
        scrub=scrub,
    )
    switched = args.provider is not None and args.provider != base.provider
    subagent_model = subagent_model_setting(settings.extra, args.subagent_model, switched)
    refused = refused_model(cfg.provider, subagent_model) if subagent_model else None
    if refused is not None:  # before any session is made
        raise ConfigError(f"{'--subagent-model' if args.subagent_model else 'subagent_model'}: {refused}")
    if model.connection.key is not None:
        model.connection.key.on_wait = printer.note
    executor = executor_argv(args.executor, settings.extra)
    passed: Sequence[str] = settings.extra.get("executor_pass_env") or ()
    ws = open_workspace(executor, cwd, environ, settings.pass_env, passed, scrub)
    if executor is not None:  # the project's config is the executor's (a local one has no say there)
        try:
            settings = load_settings(ws, args.config, flags=flags)
        except PolicyConfigError as err:
            raise ConfigError(str(err)) from None
        printer.err.write(f"bastion: {executor_line(ws)}\n")
    policy_gate = Gate(settings, ws, Stamper())
    extras = session_extras(
        policy_gate,
        home,
        os.path.expanduser(args.config) if args.config else user_config_path(),
        skills=args.skills,
        memory=args.memory,
        trust_skills=args.trust_skills,
    )
    builtin = Toolbox(policy_gate, printer.output, sandbox=settings.sandbox)
    servers = with_servers(
        builtin, settings.extra, where, environ, cwd, sorted(scrub), lock=builtin.write_lock
    )
    tools: Tools = builtin if servers is None else servers
    notice = start_notice(settings.sandbox)
    if notice is not None:
        printer.err.write(f"bastion: {notice}\n")
    for line in extras.notes:
        printer.err.write(f"bastion: {line}\n")
    recorded: Deciding = answer.watch(policy_gate) if isinstance(answer, Asker) else policy_gate
    gate: Gatekeeper = recorded
    cache = os.path.join(home, "models.json")

    windows = windows_setting(settings.extra)

    def window_for(name: str) -> Window:
        return window_of(name, windows, lambda: model_limits(model.connection, name, cache).context_window)

    def record_compaction(summary: str, replaced: int, focus: str, start: int) -> None:
        session.record("compaction", summary=summary, replaced=replaced, focus=focus, start=start)

    def say(text: str) -> None:
        printer.err.write(f"[{text}]\n")
        printer.err.flush()

    compact_at = compact_at_setting(settings.extra)
    compactor = Compactor(window_for, compact_at, record_compaction, say)

    def child_compactor(record: Record, label: str) -> Compactor:
        def said(text: str) -> None:
            say(f"{label[1:-1]}: {text}")

        return Compactor(window_for, compact_at, record, said)

    where = os.path.expanduser(args.config) if args.config else user_config_path()

    def warn(text: str) -> None:
        printer.err.write(f"bastion: {text}\n")

    harness = load_harness(harness_config(settings.extra, where), warn)
    # The session is opened (and its record locked) last of what may fail on a bad setting.
    if args.resume:
        session, messages = Session.resume(home, args.resume, cwd, here=args.here, repair=args.repair)
        if isinstance(answer, Asker):
            for tool, arguments in session.rules:
                answer.rules.add(CallKey(tool, arguments))
    else:
        try:
            session, messages = Session.create(home, cwd, cfg.provider, model.options.model), []
        except StoreError as err:  # the run goes on unrecorded, said once (and in -p's JSON)
            session, messages = Session.unrecorded(str(err)), []
    if executor is not None:  # the session records where its tools acted
        info = getattr(ws, "info", None)
        session.record("workspace", root=ws.root, **({} if info is None else info._asdict()))
    if session.profile is not None:  # switched with /harness before the session was resumed
        harness.restore_profile(session.profile)
    checkpoints = Checkpoints(ws)
    # Made for each turn's catalog (the AGENTS.md chain read once, here).
    system = SystemPrompt(ws, extras.sections())
    subagents = Subagents(
        tools,
        gate,
        front_console(answer, printer),
        configured_model(model, subagent_model),
        system,
        session,
        checkpoint=checkpoints,
        compaction=child_compactor,
        first=tasks_in(messages) + 1,
    )
    # Skills, memory and grants are the main agent's; its sub-agents have none (Subagents: `tools`, `gate`).
    offered = TaskTools(extras.tools(tools), subagents)
    agent = Agent(
        model,
        extras.gate(recorded),
        offered,
        answer,
        system,
        Fanout(session, printer, *extras.events),
        messages,
        checkpoint=checkpoints,
        compaction=compactor,
        harness=harness,
    )
    subagents.attach(agent)
    if args.prompt is not None:  # a limit of one run's requests: -p's (the REPL's person stops a run)
        configured = settings.extra.get("max_turns")
        agent.max_turns = args.max_turns or (configured if isinstance(configured, int) else None)
    extras.on_grant(session.record, say)
    printer.retries = model.connection.retry.attempts
    model.connection.on_retry = printer.retried
    key_from = (
        "the key api_key_command prints"
        if cfg.api_key_command
        else " or ".join(f"${name}" for name in key_variables(cfg)) or "the key"
    )
    if cfg.provider == "vertex":
        key_from = "your Application Default Credentials (gcloud auth application-default login)"
    return Built(
        agent, session, model.options.model, cfg.provider, model.connection, key_from, servers, extras, ws
    )


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM cancels as Ctrl-C does: calls stopped, results paired, reports written


def _one_shot(args: argparse.Namespace, environ: Mapping[str, str], cwd: str) -> int:
    began = time.monotonic()
    as_json = args.output_format == "json"
    printer = Printer(sys.stdout, sys.stderr, stream_text=not as_json, colour=colour_for(sys.stderr, environ))
    model_name = args.model or ""
    result: RunResult | None = None
    error: AgentError | None = None
    built: Built | None = None
    transcript: Transcript | None = None
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        answer = one_shot_answerer(args.yes_to, sys.stdin, sys.stderr, cwd, environ)
        built = _build(args, environ, cwd, printer, answer)
        model_name = built.model_name
        if args.transcript:
            transcript = _transcript(args.transcript, built)
        result = built.agent.run(args.prompt)
    except AgentError as err:
        error = err
    except KeyboardInterrupt:
        error = Cancelled("cancelled")
    finally:
        printer.idle()
        signal.signal(signal.SIGTERM, previous)
        if built is not None:
            built.session.record(
                "outcome",
                status="completed" if error is None else "error",
                kind=None if error is None else str(error.kind),
            )
            built.close()
    warnings = built.session.warnings if built is not None else []
    if transcript is not None:
        transcript.checkpoint(outcome(result, error, warnings))
        if transcript.write_error is not None:
            sys.stderr.write(
                safe_line(f"bastion: --transcript {args.transcript}: {transcript.write_error}") + "\n"
            )
    usage = built.agent.usage if built is not None else Usage(cost_usd=None)
    denials = built.agent.denials if built is not None else []
    try:
        if isinstance(error, OutputClosed) or printer.closed:
            raise BrokenPipeError
        if as_json:
            recorded = built is not None and built.session.recorded
            shown = redact_data(
                document(
                    model_name,
                    result,
                    error,
                    usage,
                    denials,
                    warnings,
                    session_id=built.session.id if recorded and built is not None else None,
                    duration_ms=round((time.monotonic() - began) * 1000),
                )
            )
            sys.stdout.write(json.dumps(shown) + "\n")
        elif result is not None and result.text and not result.text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        return _output_closed()
    if error is not None:
        sys.stderr.write(safe_line(f"bastion: {error}") + "\n")
        hint = built.advice(error) if built is not None else None
        if hint is None and isinstance(error, ConfigError):
            hint = error.hint
        if hint is not None:
            sys.stderr.write(safe_line(f"bastion: {hint}") + "\n")
        return error.kind.exit_code
    return 0


# The status a shell gives a writer that SIGPIPE ended (128 + 13), as `yes | head` leaves it.
OUTPUT_CLOSED = 141


def _output_closed() -> int:
    """The reader of the answer went away: nothing more is said (to anyone), and Python's own flush
    of standard output at exit must not fail on the closed pipe."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return OUTPUT_CLOSED


def _transcript(path: str, built: Built) -> Transcript:
    """The transcript, written once (running) before the first request: a path that cannot be
    written stops the run before it starts."""
    limits = model_limits(built.connection, built.model_name, built.connection.limits_cache)
    transcript = Transcript(path, built.agent, built.provider, built.model_name, limits)
    transcript.checkpoint()
    if transcript.write_error is not None:
        raise ConfigError(f"--transcript {path}: {transcript.write_error.strerror or transcript.write_error}")
    built.agent.events = Fanout(built.agent.events, transcript)
    shown = built.connection.on_retry

    def retried(failure: ModelError, wait: float) -> None:
        transcript.retried(failure, wait)
        if shown is not None:
            shown(failure, wait)

    built.connection.on_retry = retried
    return transcript


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
    found = list_sessions(home, cwd)
    if not found:
        raise ConfigError(f"--continue: no session has run in {cwd} (bastion --list)")
    return found[-1].id


def main(argv: Sequence[str]) -> int:
    if list(argv[:1]) == ["sessions"]:
        from ._sessions_cli import sessions_main

        return sessions_main(argv[1:], process_environ(), os.getcwd())
    if list(argv[:1]) == ["config"]:
        from ._config_init import config_main

        return config_main(argv[1:], process_environ())
    if list(argv[:1]) == ["acp"]:
        from .acp import acp_main  # the protocol's SDK, on this path alone

        return acp_main(argv[1:], _parser, _build, process_environ())
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
        from ._sessions_cli import list_here

        return list_here(home, cwd)
    # The keys this run reads are let go when it ends; whatever it prints is redacted.
    with holding(), redacting():
        try:
            if args.continue_:
                args.resume = _latest_session(home, cwd)
            if args.prompt is not None:
                return _one_shot(args, environ, cwd)
            from ._repl import repl

            return repl(args, environ, cwd, _build)
        except ConfigError as err:
            print(safe_line(f"bastion: {err}"), file=sys.stderr)
            if err.hint is not None:
                print(safe_line(f"bastion: {err.hint}"), file=sys.stderr)
            return 1


def _usage(args: argparse.Namespace) -> None:
    """Flags that do not go together."""
    if args.transcript and args.prompt is None:
        raise UsageError("--transcript needs -p (a transcript is of one run)")
    if args.max_turns and args.prompt is None:
        raise UsageError("--max-turns needs -p (in the REPL, Ctrl-C stops a run)")
    if args.continue_ and args.resume:
        raise UsageError("--continue resumes the latest session; --resume ID names one: give one of them")
    if args.here and not (args.resume or args.continue_):
        raise UsageError("--here goes with --resume or --continue")
    if args.repair and not (args.resume or args.continue_):
        raise UsageError("--repair goes with --resume or --continue")
