"""The `bastion` command. Policy commands (check) stay on the light path: they import only the
policy core. Everything else is the agent, imported only when asked for."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import argparse

    from .audit import CodexHooks
    from .policy import DryRun

__all__ = ["main"]

EXIT = {"allow": 0, "ask": 3, "deny": 4}
USAGE = 2


def _check_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="bastion check",
        description="Policy dry-run: decide a call as a session would, without running anything. "
        "Exit status: 0 allow, 3 ask, 4 deny, 2 usage error.",
    )
    p.add_argument("--cwd", default=".", help="the working directory the call is decided in (default: .)")
    p.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--jsonl", action="store_true", help="read JSON requests from standard input, one a line")
    p.add_argument("--tool", default="bash", help="the tool called (bash, read, write, edit, glob, grep, ls)")
    p.add_argument("--path", help="the path argument of a file tool")
    p.add_argument("--pattern", help="the pattern argument of glob or grep")
    p.add_argument("--explain", action="store_true", help="show the parse, checkers, subjects and rules")
    p.add_argument("line", nargs="?", help="the bash line (after --)")
    return p


_VALUED = {"--cwd": "cwd", "--config": "config", "--tool": "tool", "--path": "path", "--pattern": "pattern"}
_FLAGS = {"--json": "json", "--jsonl": "jsonl", "--explain": "explain"}
_DEFAULTS = {"cwd": ".", "config": None, "json": False, "jsonl": False, "tool": "bash", "path": None,
             "pattern": None, "explain": False, "line": None}  # fmt: skip


def _plain_args(argv: Sequence[str]) -> SimpleNamespace | None:
    """The arguments of a plainly written command line, as argparse reads them: each option spelled
    in full and given once, a value as the next word (not starting with "-"), the line as the one word
    after "--". Anything else is None, and argparse reads it (and words its help and its errors):
    importing and building argparse is most of a short check's own time. A test compares the two."""
    values: dict[str, object] = dict(_DEFAULTS)
    seen: set[str] = set()
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            rest = argv[index + 1 :]
            if len(rest) != 1 or rest[0] == "--":
                return None
            values["line"] = rest[0]
            break
        if word in seen:
            return None
        seen.add(word)
        if word in _FLAGS:
            values[_FLAGS[word]] = True
        elif word in _VALUED and index + 1 < len(argv) and not argv[index + 1].startswith("-"):
            index += 1
            values[_VALUED[word]] = argv[index]
        else:
            return None
        index += 1
    return SimpleNamespace(**values)


def _print_human(result: dict[str, Any], out: TextIO) -> None:
    out.write(f"{result['decision']}: {result['reason']}\n")
    if result.get("rule"):
        out.write(f"  rule: {result['rule']} ({result['source']})\n")
    if result.get("plan"):
        out.write(f"  runs: {result['plan']}\n")
    if result.get("submodules_hidden"):
        out.write(f"  submodules are not shown: {result['submodules_hidden']}\n")
    if result.get("reads"):
        out.write(f"  reads: {', '.join(result['reads'])}\n")


def _jsonl(dry: DryRun, stdin: TextIO, out: TextIO) -> int:
    from .policy import PolicyError, RequestError, load_json

    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        try:
            result = dry.request(load_json(line))
        except (ValueError, RequestError, PolicyError) as err:
            result = {"error": f"request {number}: {err}"}
        except Exception as err:  # one request never ends the stream
            result = {"error": f"request {number} could not be decided: {type(err).__name__}: {err}"}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 0


def check(
    argv: Sequence[str], stdin: TextIO | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    from .policy import DryRun, PolicyError, RequestError

    # The streams of the moment, not of when this module was imported (a test may have swapped them).
    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr

    args: argparse.Namespace | SimpleNamespace | None = _plain_args(argv)
    if args is None:
        try:
            args = _check_parser().parse_args(list(argv))
        except SystemExit as exc:
            return USAGE if exc.code else 0
    dry = DryRun(args.config)
    if args.jsonl:
        return _jsonl(dry, stdin, out)
    call: dict[str, object] = {}
    if args.tool == "bash":
        if args.line is None:
            err.write("bastion check: give the line after --, as in: bastion check -- 'git status'\n")
            return USAGE
        call["command"] = args.line
    else:
        for name in ("path", "pattern"):
            if getattr(args, name) is not None:
                call[name] = getattr(args, name)
    if args.explain:
        from .audit import explain_call

        try:
            return EXIT[explain_call(dry, os.path.abspath(args.cwd), args.tool, call, out)]
        except (RequestError, PolicyError) as exc:
            err.write(f"bastion check: {exc}\n")
            return USAGE
    try:
        result = dry.check(os.path.abspath(args.cwd), args.tool, call)
    except (RequestError, PolicyError) as exc:
        err.write(f"bastion check: {exc}\n")
        return USAGE
    if args.json:
        out.write(json.dumps(result) + "\n")
    else:
        _print_human(result, out)
    return EXIT[result["decision"]]


def doctor(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """`bastion doctor`: the sandbox a session here would have: the config's mode, the kernel's
    Landlock ABI and what it enforces, and what each kind of command runs under."""
    import argparse
    import platform

    from .policy import PolicyError, load_settings
    from .sandbox import describe, enforced, landlock_abi
    from .workspace import LocalWorkspace

    out, err = out or sys.stdout, err or sys.stderr
    p = argparse.ArgumentParser(prog="bastion doctor", description="Report the sandbox commands run under.")
    p.add_argument("--cwd", default=".", help="the working directory of the session (default: .)")
    p.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    try:
        args = p.parse_args(list(argv))
    except SystemExit as exc:
        return USAGE if exc.code else 0
    root = os.path.abspath(args.cwd)
    if not os.path.isdir(root):
        err.write(f"bastion doctor: {args.cwd}: not a directory\n")
        return USAGE
    ws = LocalWorkspace(root)
    try:
        settings = load_settings(ws, args.config)
    except PolicyError as exc:
        err.write(f"bastion doctor: {exc}\n")
        return 1
    finally:
        ws.close()
    config = settings.sandbox
    version = landlock_abi()
    out.write(f"sandbox = {config.mode!r} ({', '.join(settings.sources) or 'no config file: the default'})\n")
    kernel = f"{platform.system()} {platform.release()} {platform.machine()}"
    out.write(f"Landlock: ABI {version} ({kernel})\n" if version else f"Landlock: none ({kernel})\n")
    for line in enforced(version):
        out.write(f"  {line}\n")
    for kind, read_only in (("auto-allowed lines", True), ("approved lines", False)):
        out.write(f"{kind}: {describe(config, read_only=read_only, root=ws.real_root)}\n")
    from .audit import codex_hooks

    for line in _codex_lines(codex_hooks()):
        out.write(line + "\n")
    return 0


def _codex_lines(found: CodexHooks) -> list[str]:
    """What `bastion doctor` says of bastion's hook in Codex's config."""
    if not found.hooks_feature:
        return [f"codex: {found.config} turns hooks off ([features] hooks = false): Codex runs no hook"]
    lines = [f"codex: {problem}" for problem in found.problems]
    if not found.hooks:
        where = found.config if found.config_exists else f"{found.config} (absent)"
        return [*lines, f"codex: no `bastion hook codex` PreToolUse hook in {where} or its hooks.json"]
    for hook in found.hooks:
        said = {True: "yes", False: "no", None: "cannot tell (a regular expression)"}
        state = hook.trust if hook.enabled else f"{hook.trust}, disabled"
        lines.append(f"codex hook {hook.key}: {state} ({hook.command!r})")
        lines.append(f"  matcher {hook.matcher!r} selects Bash: {said[hook.selects_bash]}, "
                     f"apply_patch: {said[hook.selects_patch]}")  # fmt: skip
        if hook.why:
            lines.append(f"  cannot verify: {hook.why}")
        elif hook.trust != "trusted":
            lines.append(
                "  Codex does not run it until it is trusted: review it with /hooks in Codex, or add"
            )
            lines.append(f'  [hooks.state."{hook.key}"]\n  trusted_hash = "{hook.current_hash}"')
            lines.append(f"  to {found.config}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        # The reader went away (`bastion check ... | head -1`): nothing more can be said to it, and
        # Python's own flush at exit must not fail again on the closed pipe.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _dispatch(args: list[str]) -> int:
    if args[:1] == ["check"]:
        return check(args[1:])
    if args[:1] == ["doctor"]:
        return doctor(args[1:])
    if args[:1] in (["audit"], ["hook"]):
        from . import audit

        return audit.audit_main(args[1:]) if args[0] == "audit" else audit.hook_main(args[1:])
    from .agent import main as agent_main

    return int(agent_main(args))


if __name__ == "__main__":
    sys.exit(main())
