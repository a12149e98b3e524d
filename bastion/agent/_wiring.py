"""The wiring: one session's parts made and joined, for every front (the REPL, -p, `bastion acp`).
Everything a session is made of is named here once; the parts know nothing of each other but the
runtime's seams (bastion/agent/runtime/seams.py)."""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..analyzer import Stamper
from ..policy import (
    PROJECT_CONFIG,
    Gate,
    PolicyFlags,
    ProjectConfigError,
    load_settings,
    user_config_path,
)
from ..sandbox import start_notice
from ..workspace import ExecutorWorkspace, LocalWorkspace
from ._setup import key_names
from .front import Asker, Built, CallKey, Fanout, Printer
from .mcp import with_servers
from .providers import (
    RetryPolicy,
    Window,
    key_variables,
    make_model,
    merge_flags,
    model_limits,
    prices_of,
    provider_config,
    refused_model,
    timeouts_of,
    window_of,
)
from .runtime import (
    Agent,
    Answerer,
    Compactor,
    ConfigError,
    Gatekeeper,
    Record,
    SystemPrompt,
    Tools,
    compact_at_setting,
    windows_setting,
)
from .runtime.harness import harness_config, load_harness
from .sessions import Checkpoints, Session, StoreError, bastion_home
from .subagents import (
    Subagents,
    TaskTools,
    configured_model,
    front_console,
    subagent_model_setting,
    tasks_in,
)
from .tools import (
    Toolbox,
    executor_argv,
    executor_landlock,
    executor_line,
    open_workspace,
    resume_check,
    session_extras,
    workspace_record,
)

if TYPE_CHECKING:
    from .skills import Deciding

__all__ = ["build"]


def build(
    args: argparse.Namespace, environ: Mapping[str, str], cwd: str, printer: Printer, answer: Answerer
) -> Built:
    """A session's parts, joined: the settings read, the provider's model, the workspace the tools
    act in, the tools (built-in, MCP, skills, memory, task), the gate, the harness and the session's
    record, and the Agent over them."""
    flags = PolicyFlags(allow=tuple(args.allow), ask=tuple(args.ask), deny=tuple(args.deny))
    try:
        settings = load_settings(
            LocalWorkspace(cwd), args.config, flags=flags, project_config=not args.no_project_config
        )
    except ProjectConfigError as err:
        raise ConfigError(str(err), err.advice("bastion")) from None
    if args.no_project_config and os.path.lexists(os.path.join(cwd, PROJECT_CONFIG)):
        skipped = f"{PROJECT_CONFIG} is not read (--no-project-config): none of its rules apply"
        printer.err.write(f"bastion: {skipped}\n")
    base = provider_config(settings.agent, settings.sources[0] if settings.sources else "config")
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
    pricing = prices_of(settings.agent.pricing)
    # The key's variables (and those MCP headers are read from) leave every child's environment
    # even when pass_env names them.
    where = settings.sources[0] if settings.sources else "config"
    scrub = key_names(cfg, settings.agent, where)
    model = make_model(
        cfg,
        environ,
        retry,
        pricing=pricing,
        limits_cache=os.path.join(home, "models.json"),
        timeouts=timeouts_of(settings.agent),
        scrub=scrub,
    )
    switched = args.provider is not None and args.provider != base.provider
    subagent_model = subagent_model_setting(settings.agent, args.subagent_model, switched)
    refused = refused_model(cfg.provider, subagent_model) if subagent_model else None
    if refused is not None:  # before any session is made
        raise ConfigError(f"{'--subagent-model' if args.subagent_model else 'subagent_model'}: {refused}")
    if model.connection.key is not None:
        model.connection.key.on_wait = printer.note
    executor = executor_argv(args.executor, settings.agent)
    passed = settings.agent.executor_pass_env
    ws = open_workspace(executor, cwd, environ, settings.pass_env, passed, scrub)
    if executor is not None:  # the project's config is the executor's (a local one has no say there)
        settings = load_settings(ws, args.config, flags=flags)  # a ConfigError names the file
        printer.err.write(f"bastion: {executor_line(ws)}\n")
    policy_gate = Gate(settings, ws, Stamper(), whole=True)  # the agent's calls run as given
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
        builtin,
        settings.agent,
        where,
        environ,
        cwd,
        sorted(scrub),
        lock=builtin.write_lock,
        executor=ws if isinstance(ws, ExecutorWorkspace) else None,  # its stdio servers start there
    )
    tools: Tools = builtin if servers is None else servers
    notice = start_notice(settings.sandbox, executor_landlock(ws))
    if notice is not None:
        printer.err.write(f"bastion: {notice}\n")
    for line in extras.notes:
        printer.err.write(f"bastion: {line}\n")
    recorded: Deciding = answer.watch(policy_gate) if isinstance(answer, Asker) else policy_gate
    gate: Gatekeeper = recorded
    cache = os.path.join(home, "models.json")

    windows = windows_setting(settings.agent)

    def window_for(name: str) -> Window:
        return window_of(name, windows, lambda: model_limits(model.connection, name, cache).context_window)

    def record_compaction(summary: str, replaced: int, focus: str, start: int) -> None:
        session.record("compaction", summary=summary, replaced=replaced, focus=focus, start=start)

    def say(text: str) -> None:
        printer.err.write(f"[{text}]\n")
        printer.err.flush()

    compact_at = compact_at_setting(settings.agent)
    compactor = Compactor(window_for, compact_at, record_compaction, say)

    def child_compactor(record: Record, label: str) -> Compactor:
        def said(text: str) -> None:
            say(f"{label[1:-1]}: {text}")

        return Compactor(window_for, compact_at, record, said)

    where = os.path.expanduser(args.config) if args.config else user_config_path()

    def warn(text: str) -> None:
        printer.err.write(f"bastion: {text}\n")

    harness = load_harness(harness_config(settings.agent, where), warn)
    # The session is opened (and its record locked) last of what may fail on a bad setting.
    if args.resume:
        check = resume_check(ws, args.executor, args.resume, args.here)
        session, messages = Session.resume(
            home, args.resume, cwd, here=args.here, repair=args.repair, workspace=check
        )
        if isinstance(answer, Asker):
            for tool, arguments in session.rules:
                answer.rules.add(CallKey(tool, arguments))
    else:
        try:
            session, messages = Session.create(home, cwd, cfg.provider, model.options.model), []
        except StoreError as err:  # the run goes on unrecorded, said once (and in -p's JSON)
            session, messages = Session.unrecorded(str(err)), []
    acted = workspace_record(ws)
    if acted is not None:  # the session records where its tools acted
        session.record("workspace", **acted)
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
    if isinstance(ws, ExecutorWorkspace):  # lost, it ends the run: nothing falls back to this machine
        agent.workspace_lost = lambda: ws.lost
    if args.prompt is not None:  # a limit of one run's requests: -p's (the REPL's person stops a run)
        agent.max_turns = args.max_turns or settings.agent.max_turns
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
        agent,
        session,
        model.options.model,
        cfg.provider,
        model.connection,
        key_from,
        servers,
        extras,
        ws,
        builtin,
    )
