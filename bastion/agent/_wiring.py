"""The wiring: one session's parts joined, for every front (the REPL, -p, `bastion acp`). Each room
makes its own part from the settings (the providers the model and its windows, the tools the
workspace, the runtime the compactor and the harness, the sessions the record); here they are
joined, each named once. The parts know nothing of each other but the runtime's seams
(bastion/agent/runtime/seams.py)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from ..analyzer import Stamper
from ..policy import (
    PROJECT_CONFIG,
    Gate,
    PolicyFlags,
    ProjectConfigError,
    Settings,
    load_settings,
    user_config_path,
)
from ..sandbox import start_notice
from ..workspace import ExecutorWorkspace, LocalWorkspace
from ._setup import key_names
from .front import Asker, Built, CallKey, Fanout, Printer
from .mcp import with_servers
from .providers import ProviderFlags, preload, session_provider, windows_of
from .runtime import (
    Agent,
    Answerer,
    Compactor,
    ConfigError,
    SystemPrompt,
    compact_at_setting,
    windows_setting,
)
from .runtime.harness import harness_config, load_harness
from .sessions import (
    REWIND_ACK,
    Checkpoints,
    Objects,
    Session,
    bastion_home,
    file_keeper,
    rewind,
    rewind_note,
    rewind_said,
)
from .subagents import Subagents, TaskTools, configured_model, front_console, tasks_in
from .tools import (
    Toolbox,
    executor_landlock,
    executor_line,
    resume_check,
    session_extras,
    session_workspace,
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
    policy_flags = PolicyFlags(allow=tuple(args.allow), ask=tuple(args.ask), deny=tuple(args.deny))
    settings = _settings(args, cwd, policy_flags, printer)
    where = settings.sources[0] if settings.sources else "config"
    home = bastion_home(environ)
    flags = ProviderFlags.given(vars(args))
    provider = session_provider(
        settings.agent, where, flags, environ, home, key_names(None, settings.agent, where)
    )
    model, scrub = provider.model, provider.scrub
    kind, name = provider.cfg.provider, model.options.model  # the provider's and the model's names
    preload(kind)  # its SDK imports while the workspace, the tools and the session are made
    if model.connection.key is not None:
        model.connection.key.on_wait = printer.note
    reload = partial(load_settings, user_config=args.config, flags=policy_flags)  # read in an executor
    ws, settings = session_workspace(settings, args.executor, cwd, environ, scrub, reload)
    _notes(printer, [executor_line(ws)])
    user_config = os.path.expanduser(args.config) if args.config else user_config_path()
    policy_gate = Gate(settings, ws, Stamper(), whole=True)  # the agent's calls run as given
    extras = session_extras(
        policy_gate, home, user_config, skills=args.skills, memory=args.memory, trust_skills=args.trust_skills
    )
    builtin = Toolbox(policy_gate, printer.output, sandbox=settings.sandbox)
    executor = ws if isinstance(ws, ExecutorWorkspace) else None  # its stdio servers start there
    servers = with_servers(
        builtin,
        settings.agent,
        where,
        environ,
        cwd,
        sorted(scrub),
        lock=builtin.write_lock,
        executor=executor,
    )
    _notes(printer, [start_notice(settings.sandbox, executor_landlock(ws)), *extras.notes])
    recorded: Deciding = answer.watch(policy_gate) if isinstance(answer, Asker) else policy_gate
    harness = load_harness(harness_config(settings.agent, user_config), lambda text: _notes(printer, [text]))
    # The session is opened (and its record locked) last of what may fail on a bad setting.
    check = resume_check(ws, args.executor, args.resume or "", args.here)
    session, messages = Session.open(
        home,
        cwd,
        kind,
        name,
        args.resume,
        here=args.here,
        repair=args.repair,
        workspace=check,
        at=args.at,
        rewind=args.rewind,
    )
    if isinstance(answer, Asker):  # a resumed session's rules
        for tool, arguments in session.rules:
            answer.rules.add(CallKey(tool, arguments))
    acted = workspace_record(ws)
    if acted is not None:  # the session records where its tools acted
        session.record("workspace", **acted)
    if session.profile is not None:  # switched with /harness before the session was resumed
        harness.restore_profile(session.profile)
    windows = windows_of(model, windows_setting(settings.agent))
    say = _said(printer)
    compactor = Compactor(windows, compact_at_setting(settings.agent), session.compaction, say)
    objects = Objects(home)
    checkpoints = Checkpoints(ws, keep=file_keeper(session.record, objects) if session.recorded else None)
    system = SystemPrompt(ws, extras.sections())  # made for each turn's catalog (AGENTS.md read once, here)
    tools = builtin if servers is None else servers
    subagents = Subagents(
        tools,
        recorded,
        front_console(answer, printer),
        configured_model(model, provider.subagent_model),
        system,
        session,
        checkpoint=checkpoints,
        compaction=compactor.for_child,
        first=tasks_in(messages) + 1,
    )
    # Skills, memory and grants are the main agent's; its sub-agents have none (Subagents: `tools`, `gate`).
    agent = Agent(
        model,
        extras.gate(recorded),
        TaskTools(extras.tools(tools), subagents),
        answer,
        system,
        Fanout(session, printer, *extras.events),
        messages,
        checkpoint=checkpoints,
        compaction=compactor,
        harness=harness,
    )
    subagents.attach(agent)
    if session.branched is not None:  # --rewind: the files, then the model told
        done = rewind(ws, objects, *session.branched)
        if done.changed:
            session.record("files", by="rewind", files=done.changed, cannot_undo=[])
        _notes(printer, [rewind_said(done)])
        agent.tell(rewind_note(done), REWIND_ACK)
    if executor is not None:  # lost, it ends the run: nothing falls back to this machine
        agent.workspace_lost = lambda: executor.lost
    if args.prompt is not None:  # a limit of one run's requests: -p's (the REPL's person stops a run)
        agent.max_turns = args.max_turns or settings.agent.max_turns
    extras.on_grant(session.record, say)
    printer.retries = model.connection.retry.attempts
    model.connection.on_retry = printer.retried
    return Built(
        agent, session, name, kind, model.connection, provider.key_from, servers, extras, ws, builtin
    )


def _settings(args: argparse.Namespace, cwd: str, flags: PolicyFlags, printer: Printer) -> Settings:
    """The settings read here (the user's config, the project's unless --no-project-config, the
    flags' rules); a project config left unread is said."""
    try:
        settings = load_settings(
            LocalWorkspace(cwd), args.config, flags=flags, project_config=not args.no_project_config
        )
    except ProjectConfigError as err:
        raise ConfigError(str(err), err.advice("bastion")) from None
    if args.no_project_config and os.path.lexists(os.path.join(cwd, PROJECT_CONFIG)):
        _notes(printer, [f"{PROJECT_CONFIG} is not read (--no-project-config): none of its rules apply"])
    return settings


def _notes(printer: Printer, lines: Iterable[str | None]) -> None:
    """Each line said on stderr as bastion's."""
    for line in lines:
        if line is not None:
            printer.err.write(f"bastion: {line}\n")


def _said(printer: Printer) -> Callable[[str], None]:
    """How a compaction or a grant is said to the person: in brackets, at once."""

    def say(text: str) -> None:
        printer.err.write(f"[{text}]\n")
        printer.err.flush()

    return say
