"""`bastion config init`: a commented user config to start from, written once (0600, never over a
file that is there), naming the variable the provider's key is read from and never holding a key."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from ...policy import user_config_path
from ..providers import DEFAULT_WINDOW, DEFAULTS, PROVIDERS

__all__ = ["config_main", "config_text"]


def _key_lines(provider: str) -> list[str]:
    variable = DEFAULTS[provider][2]
    if provider == "ollama":
        return ["# Ollama takes no key."]
    if provider == "vertex":
        return [
            "# vertex takes no key: it signs in with Application Default Credentials, the file",
            "# `gcloud auth application-default login` writes, or the service account key file",
            "# $GOOGLE_APPLICATION_CREDENTIALS names. The project is $GOOGLE_CLOUD_PROJECT (else the",
            "# credentials' own), the location $GOOGLE_CLOUD_LOCATION or $GOOGLE_CLOUD_REGION (else global).",
            '# subagent_model = "gemini-2.5-flash"   # a claude-... or gemini-... model: the families mix',
        ]
    if provider == "openresponses":
        return [
            "# The key is read from the variable named here (its name, never the key itself):",
            'api_key_env = "OPENRESPONSES_API_KEY"',
        ]
    return [
        f"# The key is read from ${variable} in the environment; never write the key in this file.",
        "# Or have a program print it (run without a shell, again every five minutes):",
        f'# api_key_command = ["pass", "show", "{provider}/api-key"]',
    ]


def config_text(provider: str) -> str:
    """The commented config for `provider`: valid TOML that bastion reads as it stands."""
    model, base_url, _ = DEFAULTS[provider]
    if provider == "vertex":
        base_url = "https://aiplatform.googleapis.com"  # the default: the location's endpoint
    lines = [
        "# bastion's user config (bastion config init). Flags win over it; a project's",
        "# .bastion/config.toml may only tighten it. docs/policy.md has every rule form.",
        "",
        "# The model: ollama, openai, openrouter, openresponses, anthropic, gemini or vertex.",
        f'provider = "{provider}"',
        f'model = "{model}"' if model else '# model = "NAME"               # required for openresponses',
        f'# base_url = "{base_url}"' if base_url else 'base_url = "https://llm.example.com/v1"',
        *_key_lines(provider),
        "# think = true",
        '# effort = "low"                   # minimal, low, medium, high, xhigh',
        "# compact_at = 100000              # tokens (default: 3/4 of the model's context window)",
        "# stream_idle_timeout = 30         # seconds without a byte from the server: the try is retried",
        "# request_timeout = 1200           # seconds one request may take, its retries included",
        "# max_turns = 40                   # with -p: at most this many model requests",
        "",
        "# Your own instructions for every session, read before the project's AGENTS.md files:",
        "# ~/.bastion/AGENTS.md, then agents_md_global's files (each skipped when missing; false:",
        "# not even ~/.bastion/AGENTS.md), then instructions_file (which must exist).",
        '# instructions_file = "~/notes/instructions.md"',
        '# agents_md_global = ["~/src/AGENTS.md"]',
        "",
        "[policy]",
        "# Rules: TOOL or TOOL(PATTERN); a deny beats an ask, an ask beats an allow.",
        '# allow = ["bash(make test)", "bash(npm run lint)", "edit(src/**)"]',
        '# ask = ["bash(git push:*)"]',
        '# deny = ["read(**/*.pem)"]',
        "",
        "[sandbox]",
        '# mode = "auto"                    # auto, require or off',
        '# writable = ["~/.cache"]          # approved commands may also write here',
        "# network = true",
        "",
        "# Variables the tools' commands may see besides the usual ones (never a key's).",
        "# pass_env = []",
        "",
        "# A model's context window, over what its server says and bastion's table of known",
        f"# models (a model neither knows is taken to have {DEFAULT_WINDOW}); NAME* is a family.",
        "# [context_windows]",
        '# "my-model" = 131072',
        "",
    ]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bastion config", description="Write a commented user config.")
    sub = p.add_subparsers(dest="command", required=True)
    init = sub.add_parser("init", help="write a commented config (0600); a file already there is kept")
    init.add_argument(
        "--provider", choices=PROVIDERS, default="ollama", help="the provider (default: ollama)"
    )
    init.add_argument("--config", help="where (default $XDG_CONFIG_HOME/bastion/config.toml)")
    return p


def config_main(argv: Sequence[str], environ: Mapping[str, str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    path = os.path.expanduser(args.config) if args.config else user_config_path(environ)
    try:
        os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        print(
            f"bastion config init: {path} is already there; it is kept (edit it, or move it away first)",
            file=sys.stderr,
        )
        return 1
    except OSError as err:
        print(f"bastion config init: {path}: {err.strerror or err}", file=sys.stderr)
        return 1
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(config_text(args.provider))
    variable = DEFAULTS[args.provider][2]
    key = f"; set ${variable} in your environment for the key" if variable else ""
    if args.provider == "vertex":
        key = "; sign in with `gcloud auth application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS)"
    print(f"wrote {path} (0600) for {args.provider}{key}")
    return 0
