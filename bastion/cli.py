"""The `bastion` command. Policy commands (check) stay on the light path: they import only the
policy core. Everything else is the agent, imported only when asked for. This module itself
imports only os and sys (json, typing and what they bring cost more than Python's own start on a
busy machine), so `bastion --version` loads nothing else."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads it the same)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import SimpleNamespace
    from typing import Any, TextIO

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
    p.add_argument(
        "--no-project-config",
        action="store_true",
        help="decide without the project's .bastion/config.toml (none of its rules apply)",
    )
    p.add_argument("line", nargs="?", help="the bash line (after --)")
    return p


_VALUED = {"--cwd": "cwd", "--config": "config", "--tool": "tool", "--path": "path", "--pattern": "pattern"}
_FLAGS = {"--json": "json", "--jsonl": "jsonl", "--explain": "explain",
          "--no-project-config": "no_project_config"}  # fmt: skip
_DEFAULTS = {"cwd": ".", "config": None, "json": False, "jsonl": False, "tool": "bash", "path": None,
             "pattern": None, "explain": False, "no_project_config": False, "line": None}  # fmt: skip


def _print_human(result: dict[str, Any], stream: TextIO, cwd: str) -> None:
    from ._safe import safe_lines

    out = safe_lines(stream)  # a line, a name, a reason from the repository: shown safe
    out.write(f"{result['decision']}: {result['reason']}\n")
    if result.get("rule"):
        out.write(f"  rule: {result['rule']} ({result['source']})\n")
    if result.get("plan"):
        from .audit import short_plan  # its neutralising settings summarised (--json: whole)

        out.write(f"  runs: {short_plan(result['plan'])}\n")
    if result.get("submodules_hidden"):
        out.write(f"  submodules are not shown: {result['submodules_hidden']}\n")
    # A name that is no file here is left out: a revision (`git diff HEAD~1`) is decided as a read
    # in case it names a file, but a person reads "reads:" as files.
    files = [r for r in result.get("reads") or () if os.path.lexists(os.path.join(cwd, r))]
    if files:
        out.write(f"  reads: {', '.join(files)}\n")


def _jsonl(dry: DryRun, stdin: TextIO, out: TextIO) -> int:
    import json

    from .policy import ConfigError, PolicyError, RequestError, load_json

    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        try:
            result = dry.request(load_json(line))
        except (ValueError, RequestError, PolicyError, ConfigError) as err:
            result = {"error": f"request {number}: {err}"}
        except Exception as err:  # one request never ends the stream
            result = {"error": f"request {number} could not be decided: {type(err).__name__}: {err}"}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 0


def check(
    argv: Sequence[str], stdin: TextIO | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    from .policy import ConfigError, DryRun, PolicyError, RequestError

    # The streams of the moment, not of when this module was imported (a test may have swapped them).
    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr

    from ._argv import Reading, read_plainly  # argparse only for what is not plainly written

    args: argparse.Namespace | SimpleNamespace | None = read_plainly(
        argv, Reading(_VALUED, _FLAGS, _DEFAULTS, "line", {}, after_dashes=True)
    )
    if args is None:
        try:
            args = _check_parser().parse_args(list(argv))
        except SystemExit as exc:
            return USAGE if exc.code else 0
    dry = DryRun(args.config, project_config=not args.no_project_config)
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
        except (RequestError, PolicyError, ConfigError) as exc:
            err.write(_safe_error(exc))
            return USAGE
    try:
        result = dry.check(os.path.abspath(args.cwd), args.tool, call)
    except (RequestError, PolicyError, ConfigError) as exc:
        err.write(_safe_error(exc))
        return USAGE
    if args.json:
        import json

        out.write(json.dumps(result) + "\n")
    else:
        _print_human(result, out, os.path.abspath(args.cwd))
    return EXIT[result["decision"]]


# The commands that hold no key and start no program a key could reach: they keep their environment.
KEYLESS = ("--version", "check", "audit", "hook", "mcp", "runtime", "sessions", "config")
# `execute` is not among them: it runs commands, so its own environment loses the key variables too.


def _safe_error(exc: Exception) -> str:
    from ._safe import safe_line
    from .policy import ProjectConfigError

    said = safe_line(f"bastion check: {exc}") + "\n"
    if isinstance(exc, ProjectConfigError):
        said += safe_line(f"bastion check: {exc.advice('bastion check')}") + "\n"
    return said


# The commands that never read the working directory (a hook is told where its call runs).
NOWHERE = ("--version", "hook")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line `argv`, or this process's own (sys.argv), which is first executed again
    without its key variables when it holds a key (bastion/_handover.py). A command run from a
    working directory that was removed is one line saying so (exit 2)."""
    if ((sys.argv[1:2] if argv is None else list(argv[:1])) or [""])[0] not in NOWHERE:
        from ._files import removed_cwd  # not on --version's path

        gone = removed_cwd()
        if gone is not None:
            from ._safe import safe_line  # a directory's name is shown safe

            said = f"the working directory {gone + ' ' if gone else ''}no longer exists"
            sys.stderr.write(
                safe_line(f"bastion: {said} (removed after it was entered); cd to one that does")
            )
            sys.stderr.write("\n")
            return USAGE
    if argv is None and (sys.argv[1:2] or [""])[0] not in KEYLESS:
        from ._handover import keep_keys_out

        try:
            keep_keys_out(sys.argv[1:])
        except OSError as err:
            sys.stderr.write(f"bastion: cannot take the key variables out of its own environment: {err}\n")
            return 1
    try:
        if argv is None and _resident(sys.argv[1:]):
            answered = _by_server(sys.argv[1:])
            if answered is not None:
                return answered
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        # The reader went away (`bastion check ... | head -1`): nothing more can be said to it, and
        # Python's own flush at exit must not fail again on the closed pipe.
        import contextlib

        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _resident(args: list[str]) -> bool:
    """Whether the command is one the resident server answers (bastion/resident): a hook call, or
    a `check` of one call (not --jsonl, whose stream is one process already); never with
    BASTION_NO_SERVER set to anything but 0, and only in an isolated interpreter (`python -I`, as
    bastion's command starts it), whose module search path holds no PYTHONPATH entry and not the
    current directory: the server is started with that path and serves every call that has it."""
    if os.environ.get("BASTION_NO_SERVER", "0") != "0" or not sys.flags.isolated:
        return False
    return args[:1] == ["hook"] or (args[:1] == ["check"] and not any(a.startswith("--jsonl") for a in args))


def _by_server(args: list[str]) -> int | None:
    """The server's answer, its bytes written here; None to decide in-process (standard input, when
    a hook's was read for the server, is read again from the start)."""
    from . import __version__
    from .resident import ask_server, read_stdin, replay_stdin

    stdin, whole = read_stdin() if args[0] == "hook" and sys.stdin is not None else (b"", True)
    answer = ask_server(args, stdin, __version__, os.path.dirname(__file__)) if whole else None
    if answer is None:
        if stdin or not whole:
            replay_stdin(stdin)
        return None
    code, out, err = answer
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return code


def _command(argv: list[str], stdin: TextIO, out: TextIO, err: TextIO) -> int:
    """A command the resident server runs: what _dispatch runs for it, with the given streams."""
    if argv[0] == "check":
        return check(argv[1:], stdin, out, err)
    from .audit import hook_main

    return hook_main(argv[1:], stdin, out, err)


def _preload() -> None:
    """What a server imports before its first call: every module of the dry-run's packages, and
    every grammar's tables (each a pure function of the installed files)."""
    import importlib
    import pkgutil

    from . import analyzer, audit, grammar, policy, workspace

    for package in (grammar, workspace, analyzer, policy, audit):
        for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not found.name.endswith(".__main__"):
                importlib.import_module(found.name)
    tables = {
        id(v): v
        for m in list(sys.modules.values())
        for v in vars(m).values()
        if isinstance(v, grammar.Grammar)
    }
    for table in tables.values():
        table.parser()
    _warm()  # the shipped rules' compiled layers, the lexer's states: remembered once compiled


# Lines whose parse compiles the lexer's commonest states: a pure function of the text.
_WARM_LINES = (
    "ls -la | head -5 && cat a.txt; echo \"$x\" 'y' > /dev/null 2>&1 || true",
    "git status --short && git diff -- x | grep -n 'a b' < f",
    "sed -n '1,5p' README.md | wc -l",
)


def serve_main(path: str, idle: str, expected: str) -> int:
    """The resident server's process (started by a client: bastion/resident/_client.py)."""
    from . import __version__
    from .resident import serve

    try:
        seconds = float(idle)
        _preload()
    except Exception:
        return 1
    return serve(
        path, seconds, bytes.fromhex(expected), os.path.dirname(__file__), __version__, _command, _warm_spare
    )


def _warm_spare() -> None:
    """A spare child's warming: the server's (`_warm`), and where git keeps its system config
    (a spawn of git, which the server itself never does: design rule 117), so a call's first git
    decision spawns nothing. A failure only leaves that to the call."""
    import contextlib

    from .analyzer import learn_git_system

    _warm()
    with contextlib.suppress(Exception):
        learn_git_system(os.environ)


def _warm() -> None:
    """What a spare child of the server does before its call: what is a function of the installed
    files alone (the shipped rules' layers, the lexer's states), so the pages they write are its own
    before the call comes."""
    from . import grammar, policy

    for builtin in (True, False):
        policy.Policy(builtin=builtin)
    for line in _WARM_LINES:
        grammar.parse(line)


def execute(argv: Sequence[str]) -> int:
    """`bastion execute [ROOT]`: serve the workspace at ROOT to the session at the other end of
    standard input and output (bastion/workspace/_serve.py). Standard output carries the protocol
    and nothing else: whatever else would print there goes to standard error."""
    import argparse
    import socket

    from . import __version__
    from .analyzer import recheck_digest
    from .policy import child_env
    from .sandbox import landlock_abi
    from .workspace import LocalWorkspace, serve

    p = argparse.ArgumentParser(
        prog="bastion execute",
        description="Serve the tools and the policy's looks from here to a session started elsewhere "
        "with --executor (no model, no policy, no session and no config run here).",
    )
    p.add_argument("root", nargs="?", default=".", help="where the tools act (default: here)")
    p.add_argument(
        "--kind",
        choices=("local", "container", "remote"),
        default="remote",
        help="the workspace's kind, as the session shows it (default: remote)",
    )
    p.add_argument(
        "--ref", default=socket.gethostname(), help="a host, container or pod (default: this host)"
    )
    try:
        args = p.parse_args(list(argv))
    except SystemExit as exc:
        return USAGE if exc.code else 0
    root = os.path.abspath(os.path.expanduser(args.root))
    if not os.path.isdir(root):
        sys.stderr.write(f"bastion execute: {root} is not a directory\n")
        return USAGE
    out = os.fdopen(os.dup(1), "wb")
    inp = os.fdopen(os.dup(0), "rb")
    os.dup2(2, 1)  # a stray print cannot corrupt the stream
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    ws = LocalWorkspace(root, env=child_env(os.environ), recheck=recheck_digest)
    hello = {"version": __version__, "kind": args.kind, "ref": args.ref, "landlock": landlock_abi()}
    why = serve(ws, inp, out, hello)
    if why:
        sys.stderr.write(f"bastion execute: {why}\n")
        return 1
    return 0


def _dispatch(args: list[str]) -> int:
    if args == ["--version"]:  # what the agent's --version prints, without loading the agent
        from . import __version__

        print(f"bastion {__version__}")
        return 0
    if args[:1] == ["check"]:
        return check(args[1:])
    if args[:1] == ["doctor"]:
        from .doctor import doctor_main

        return doctor_main(args[1:])
    if args[:1] == ["runtime"]:
        from .agent.runtime.harness import runtime_main  # the harness and the config only: no SDK

        return runtime_main(args[1:])
    if args[:1] == ["mcp"]:
        from .serve import mcp_main

        return mcp_main(args[1:])
    if args[:1] == ["execute"]:
        return execute(args[1:])
    if args[:1] in (["audit"], ["hook"]):
        from . import audit

        return audit.audit_main(args[1:]) if args[0] == "audit" else audit.hook_main(args[1:])
    from .agent import main as agent_main

    return int(agent_main(args))


if __name__ == "__main__":
    sys.exit(main())
