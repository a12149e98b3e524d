"""bash: a command line in the working directory, with a timeout and its output streamed.

With a stamp, what runs is what was decided: the gate that stamped it clears it right before it runs
(`Gate.cleared`: the line analysed again, as the gate decided it), and it runs as its rendered plan
(in the neutralising environment, URL userinfo masked) only if the plan stamp verifies, or, outside
the subset, as typed only if the line stamp over its redirect targets verifies. Anything else is
refused and nothing runs. Without a stamp the line runs as typed.

A line that is not the plan holds the workspace's write lock while it runs (tools/_writing.py).
Every command runs in the kernel's sandbox (bastion.sandbox) unless the user turned it off: the
rendered plan read-only (the kernel enforces what the analyzer proved), any other line with writes
only in the workspace, a private temporary directory and the config's writable paths.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Sequence

from ...analyzer import CHANGED_COMMAND, neutral_env, redact_userinfo
from ...policy import STAMP_ARG, Cleared
from ...sandbox import SandboxUnavailable, confinement_for, denial_note
from ...workspace import MAX_OUTPUT, ExecRequest, FactsChanged, Recheck, WorkspaceError
from ._base import Args, Tool, ToolContext, ToolError, number, schema, text
from ._executor_setup import executor_landlock
from ._terminal import OutputStream
from ._writing import writing

__all__ = ["BASH", "MAX_OUTPUT"]

DEFAULT_TIMEOUT = 120
# A URL cut by the output cap before its `@`: its userinfo would escape the redaction.
_CUT_USERINFO = re.compile(r"(://)[^/@\s]*\Z")


def _decided(line: str, stamp: object, ctx: ToolContext) -> Cleared:
    """What the stamped line runs, as the gate clears it right before it runs; or CHANGED_COMMAND."""
    try:
        cleared = ctx.gate.cleared(line, stamp)
    except Exception as err:  # a re-check that fails refuses
        raise ToolError(CHANGED_COMMAND) from err
    if cleared is None:
        raise ToolError(CHANGED_COMMAND)
    return cleared


def _execute(
    ctx: ToolContext,
    argv: Sequence[str],
    env: dict[str, str],
    timeout: int,
    redact: bool,
    *,
    read_only: bool,
    facts: Recheck | None = None,
) -> str:
    try:
        sandbox = confinement_for(ctx.sandbox, read_only=read_only, abi=executor_landlock(ctx.ws))
    except SandboxUnavailable as err:
        raise ToolError(str(err)) from err
    mask: Callable[[str], str] = redact_userinfo if redact else (lambda s: s)
    stream = OutputStream(ctx.on_output, mask) if ctx.on_output is not None else None
    try:
        result = ctx.ws.exec(
            ExecRequest(
                argv,
                cwd=ctx.cwd,
                env=env,
                timeout=timeout,
                on_output=stream.feed if stream is not None else None,
                cancel=ctx.cancel,
                sandbox=sandbox,
                contain=True,
                facts=facts,
            )
        )
    except FactsChanged as err:
        raise ToolError(CHANGED_COMMAND) from err
    except OSError as err:
        if isinstance(err, WorkspaceError) and err.may_have_run:  # the model must not take it as unrun
            raise ToolError(f"the command may have run, in part or in full: {err.strerror or err}") from err
        raise ToolError(f"the command could not be started: {err.strerror or err}") from err
    finally:
        if stream is not None:
            stream.close()
    out = mask(result.output.decode("utf-8", "replace"))
    if redact and result.omitted:
        out = _CUT_USERINFO.sub(r"\1***", out)
    if result.omitted:
        out += f"\n... [truncated, {result.omitted} bytes omitted]"
    if out and not out.endswith("\n"):
        out += "\n"
    if sandbox is not None:
        where = os.path.join(ctx.ws.real_root, ctx.cwd)
        note = denial_note(out, sandbox, ctx.ws.real_root, where, executor_landlock(ctx.ws))
        out += f"{note}\n" if note is not None else ""
    if result.timed_out:
        return out + f"[killed after {timeout}s]"
    if result.cancelled:
        return out + "[interrupted: killed as the run was stopped]"
    if result.exit_code is None:
        return out + f"[killed by signal {result.signal}]"
    return out + f"[exit {result.exit_code}]"


def _run(args: Args, ctx: ToolContext) -> str:
    line = text(args, "command")
    if not line.strip():
        raise ToolError("the command is empty")
    timeout = number(args, "timeout_seconds", DEFAULT_TIMEOUT, low=1, high=3600)
    stamp = args.get(STAMP_ARG)
    if stamp is None:
        with writing(ctx):
            return _execute(ctx, ["bash", "-c", line], ctx.ws.env(), timeout, redact=False, read_only=False)
    cleared = _decided(line, stamp, ctx)
    # The analyzer's plan, which it proved read-only, runs in the neutralising environment with
    # userinfo masked (it needs no write lock); a line-stamped line is approved, and may write.
    plan = cleared.plan
    env = neutral_env(ctx.ws.env()) if plan else ctx.ws.env()
    argv = ["bash", "-c", cleared.line]
    with contextlib.nullcontext() if plan else writing(ctx):
        return _execute(ctx, argv, env, timeout, plan, read_only=plan, facts=cleared.facts)


BASH = Tool(
    "bash",
    "Run a bash command line in the working directory. Output (stdout and stderr together) is capped "
    f"at {MAX_OUTPUT // 1024} KiB; the command is killed after timeout_seconds (default {DEFAULT_TIMEOUT}).",
    schema(
        {
            "command": {"type": "string", "description": "The command line."},
            "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 3600, "default": DEFAULT_TIMEOUT},
        },
        ["command"],
    ),
    _run,
)
