"""doctor's "Where the tools act" section: this machine, or the executor `--executor` (or the user
config's `executor`) starts, reached as a session reaches it (the same scrubbed environment for its
transport) and closed again: its bastion's version, the workspace's kind, ref and root, and the
Landlock ABI of its kernel, against which the sandbox's mode is decided, and what the confinement
applied there allows. The executor's package is loaded only when one is named."""

from __future__ import annotations

from .. import __version__
from .._errors import BastionError
from ._context import Context
from ._facts import Fact, Section, Status

__all__ = ["executor"]

TITLE = "Where the tools act"


def executor(context: Context) -> Section:
    settings = context.settings
    if settings is None:
        return context.unchecked("executor", TITLE)
    from ..agent.tools import executor_argv

    try:
        argv = executor_argv(context.executor, settings.agent)
    except BastionError as err:
        return Section("executor", TITLE, (Fact("executor", str(err), Status.FAIL),))
    if argv is None:
        here = f"this machine, in {context.root} (no executor: --executor or executor in your config)"
        return Section("executor", TITLE, (Fact("workspace", here),))
    from ..sandbox import describe, enforced

    try:
        ws = context.open_executor(argv)
    except BastionError as err:
        hint = "run the command by hand: it must start `bastion execute` and print its hello line"
        return Section("executor", TITLE, (Fact("executor", str(err), Status.FAIL, hint=hint),))
    try:
        info = ws.info
        mode = settings.sandbox.mode
        missing = info.landlock == 0 and mode == "require"
        same = info.version == __version__
        facts = (
            Fact("executor", f"{info.kind} {info.ref}, root {ws.root}", details=(" ".join(argv),)),
            Fact(
                "bastion there",
                info.version if same else f"{info.version} (this bastion is {__version__})",
                Status.OK if same else Status.WARN,
                hint="" if same else "install the same bastion where it runs",
            ),
            Fact(
                "Landlock there",
                f"ABI {info.landlock}" if info.landlock else "none",
                Status.FAIL if missing else Status.OK if info.landlock else Status.WARN,
                tuple(enforced(info.landlock)),
                'sandbox = "require": every bash command will be refused there' if missing else "",
            ),
            *(
                Fact(kind, describe(settings.sandbox, read_only=read_only, root=ws.root, abi=info.landlock))
                for kind, read_only in (("auto-allowed lines there", True), ("approved lines there", False))
            ),
        )
    finally:
        ws.close()
    return Section("executor", TITLE, facts)
