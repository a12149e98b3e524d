"""-p: one prompt run to its end, then its answer (text, or one JSON document with --output-format
json), its transcript (--transcript FILE) and its exit status."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Mapping

from ..._safe import redact_data, safe_line
from ..providers import model_limits
from ..runtime import AgentError, Cancelled, ConfigError, ModelError, OutputClosed, RunResult, Usage
from ._colour import colour_for
from ._front import Build, Built, Fanout, Printer
from ._one_shot_answers import one_shot_answerer
from ._report import Transcript, document, outcome

__all__ = ["OUTPUT_CLOSED", "one_shot"]


# What ends a -p run as Ctrl-C does (calls stopped, results paired, reports written): SIGTERM, and
# SIGHUP (the terminal closed, an ssh connection dropped), whose default would end it as kill -9.
_ENDING = (signal.SIGTERM, signal.SIGHUP)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def one_shot(args: argparse.Namespace, environ: Mapping[str, str], cwd: str, build: Build) -> int:
    """Run -p's prompt in a session `build` makes; the exit status."""
    began = time.monotonic()
    as_json = args.output_format == "json"
    colour = colour_for(sys.stderr, environ)
    printer = Printer(sys.stdout, sys.stderr, stream_text=not as_json, hold_text=True, colour=colour)
    model_name = args.model or ""
    result: RunResult | None = None
    error: AgentError | None = None
    built: Built | None = None
    transcript: Transcript | None = None
    previous = {signum: signal.signal(signum, _terminate) for signum in _ENDING}
    try:
        answer = one_shot_answerer(args.yes_to, sys.stdin, sys.stderr, cwd, environ)
        built = build(args, environ, cwd, printer, answer)
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
        for signum, handler in previous.items():
            signal.signal(signum, handler)
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
    except OSError:  # the reader went away (EPIPE), or the terminal hung up (EIO)
        return _output_closed()
    if error is not None:
        hint = built.advice(error) if built is not None else None
        if hint is None and isinstance(error, ConfigError):
            hint = error.hint
        with contextlib.suppress(OSError):  # a terminal that hung up takes no final words
            sys.stderr.write(safe_line(f"bastion: {error}") + "\n")
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
