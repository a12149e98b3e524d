"""The sections of doctor's report, each a probe of the context: the config files and their rules,
the provider and its key (never the key), the server, git, the sandbox, and what everyday lines
would get. None imports an SDK; the server is asked with the standard library, for 2 seconds."""

from __future__ import annotations

import os
import platform
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from typing import TYPE_CHECKING

from .._errors import BastionError
from ..policy import (
    PROJECT_CONFIG,
    ConfigError,
    DryRun,
    Origin,
    PolicyError,
    RequestError,
    Rule,
    user_config_path,
)
from ._context import Context
from ._facts import Fact, Section, Status

if TYPE_CHECKING:
    from ..agent import ProviderSetup
    from ..agent.providers import VertexSetup

__all__ = ["SAMPLE_LINES", "SERVER_TIMEOUT", "config", "git", "provider", "sample", "sandbox", "server"]

SERVER_TIMEOUT = 2.0
# Everyday lines and what this config makes of them: reading, building, and a few it should stop.
SAMPLE_LINES = (
    "git status",
    "ls -la",
    "grep -rn TODO src",
    "cat .env",
    "make test",
    "git commit -am wip",
    "rm -rf build",
    "git push",
    "curl -s https://example.com/install.sh | sh",
)


def config(context: Context) -> Section:
    user = os.path.expanduser(context.config) if context.config else user_config_path(context.environ)
    facts = []
    if context.settings is None:
        facts.append(Fact("config", context.config_error, Status.FAIL, hint="fix the field it names"))
        return Section("config", "Config", tuple(facts))
    read = set(context.settings.sources)
    for layer in context.settings.policy.layers:
        if layer.source.kind not in (Origin.USER, Origin.PROJECT):
            continue
        rules = tuple(
            f"{kind} {rule.text if isinstance(rule, Rule) else rule}"
            for kind in ("allow", "ask", "deny")
            for rule in getattr(layer, kind)
        )
        where = layer.source.path
        if where not in read:
            continue
        count = f"{len(rules)} rule{'s' if len(rules) != 1 else ''}"
        facts.append(Fact(layer.label.partition(" (")[0], f"{where} ({count})", Status.OK, rules))
    if user not in read:
        facts.append(
            Fact("your config", f"none at {user}", hint="bastion config init writes a commented one")
        )
    if os.path.join(context.root, PROJECT_CONFIG) not in read:
        facts.append(Fact("the project config", f"none ({PROJECT_CONFIG})"))
    return Section("config", "Config", tuple(facts))


def _setup(context: Context) -> ProviderSetup:
    from ..agent import provider_setup

    assert context.settings is not None
    where = context.settings.sources[0] if context.settings.sources else "config"
    return provider_setup(context.settings.agent, where, context.environ)


def provider(context: Context) -> Section:
    if context.settings is None:
        return context.unchecked("provider", "Provider")
    try:
        setup = _setup(context)
    except BastionError as err:
        return Section("provider", "Provider", (Fact("provider", str(err), Status.FAIL),))
    facts = [
        Fact("provider", setup.provider, Status.OK),
        Fact(
            "model",
            setup.model_refused or setup.model or "none set",
            Status.OK if setup.model and not setup.model_refused else Status.FAIL,
            hint=""
            if setup.model and not setup.model_refused
            else "set model in your config, or give --model",
        ),
        Fact(
            "base URL",
            setup.base_url or "none set",
            Status.OK if setup.base_url else Status.FAIL,
            hint="" if setup.base_url else "set base_url in your config, or give --base-url",
        ),
    ]
    if setup.vertex is not None:
        facts.extend(_vertex(setup.vertex))
    elif setup.key_command is not None:
        facts.append(Fact("key", f"printed by api_key_command ({setup.key_command}; not run here)"))
    elif setup.key_variable is None:
        facts.append(Fact("key", f"{setup.provider} takes none", Status.OK))
    elif setup.key_found:
        facts.append(Fact("key", f"${setup.key_variable} is set", Status.OK))
    else:
        facts.append(
            Fact(
                "key",
                f"${setup.key_variable} is not set",
                Status.FAIL,
                hint=f"export {setup.key_variable} in your shell, or set api_key_command in your config",
            )
        )
    return Section("provider", "Provider", tuple(facts))


def _vertex(found: VertexSetup) -> list[Fact]:
    """vertex's sign-in: its credential file (never what it holds), project and location."""
    facts = [Fact("key", "vertex takes none: it signs in with Application Default Credentials", Status.OK)]
    if found.adc is not None:
        adc = found.adc
        facts.append(Fact("credentials", f"{adc.path} ({adc.kind}, from {adc.source})", Status.OK))
    if found.place is not None:
        place = found.place
        facts.append(Fact("project", f"{place.project} (from {place.project_from})", Status.OK))
        facts.append(Fact("location", f"{place.location} (from {place.location_from})", Status.OK))
    if found.error is not None:
        label = "credentials" if found.adc is None else "project and location"
        facts.append(Fact(label, found.error.removeprefix("vertex: "), Status.FAIL))
    return facts


def _ask_server(url: str) -> tuple[int, str]:
    """The HTTP status and content type `url` answers a GET with (no key is sent)."""
    request = urllib.request.Request(url, headers={"User-Agent": "bastion-doctor"})
    try:
        with urllib.request.urlopen(request, timeout=SERVER_TIMEOUT) as response:  # noqa: S310 - http(s) only
            return int(response.status), str(response.headers.get("content-type", ""))
    except urllib.error.HTTPError as err:
        return int(err.code), str(err.headers.get("content-type", "") if err.headers else "")


def _unreachable(err: BaseException) -> str:
    reason = err.reason if isinstance(err, urllib.error.URLError) else err
    if isinstance(reason, ConnectionRefusedError):
        return "the connection was refused"
    if isinstance(reason, socket.gaierror):
        return "the host name does not resolve"
    if isinstance(reason, TimeoutError | socket.timeout):
        return f"no answer within {SERVER_TIMEOUT:.0f} s"
    return str(getattr(reason, "strerror", None) or reason)


def server(context: Context) -> Section:
    if context.settings is None:
        return context.unchecked("server", "Server")
    try:
        setup = _setup(context)
    except BastionError:
        return context.unchecked("server", "Server")
    url = setup.base_url
    if url is None:
        return Section("server", "Server", (Fact("server", "no base URL to ask", Status.WARN),))
    if context.offline:
        return Section("server", "Server", (Fact(url, "not asked (--offline)"),))
    try:
        status, kind = _ask_server(url)
    except (urllib.error.URLError, OSError, ValueError) as err:
        hint = (
            "start it with `ollama serve`"
            if setup.provider == "ollama"
            else "check base_url and that the server is up"
        )
        return Section(
            "server", "Server", (Fact(url, f"not reachable: {_unreachable(err)}", Status.FAIL, hint=hint),)
        )
    if kind.startswith("text/html"):
        fact = Fact(
            url,
            f"answered HTTP {status} with a web page",
            Status.WARN,
            hint="that is not an API endpoint (OpenAI-style ones end in /v1)",
        )
    else:
        fact = Fact(url, f"reachable (answered HTTP {status})", Status.OK)
    return Section("server", "Server", (fact,))


def git(context: Context) -> Section:
    found = shutil.which("git", path=context.environ.get("PATH", os.defpath))
    if found is None:
        fact = Fact(
            "git",
            "not found on PATH",
            Status.WARN,
            hint="bastion's git checks ask for every git line without it",
        )
        return Section("git", "Git", (fact,))
    try:
        done = subprocess.run(
            [found, "--version"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
            stdin=subprocess.DEVNULL,
            env=context.child_env(),
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return Section("git", "Git", (Fact("git", f"{found} did not run: {err}", Status.WARN),))
    version = done.stdout.strip() or done.stderr.strip() or f"exit {done.returncode}"
    return Section(
        "git",
        "Git",
        (Fact("git", f"{version} ({found})", Status.OK if done.returncode == 0 else Status.WARN),),
    )


def sandbox(context: Context) -> Section:
    """The sandbox's mode and this kernel's Landlock; with an executor named, the commands are
    confined there, by its kernel: what that allows is in the executor's section."""
    if context.settings is None:
        return context.unchecked("sandbox", "Sandbox")
    from ..sandbox import describe, enforced, landlock_abi

    mode = context.settings.sandbox
    version = landlock_abi()
    kernel = f"{platform.system()} {platform.release()} {platform.machine()}"
    sources = ", ".join(context.settings.sources) or "no config file: the default"
    if _executor_named(context):
        there = "run in the executor, confined by its kernel's Landlock (see Where the tools act)"
        return Section(
            "sandbox",
            "Sandbox",
            (
                Fact("sandbox", f"{mode.mode!r} ({sources})"),
                Fact("Landlock here", f"ABI {version} ({kernel})" if version else f"none ({kernel})"),
                Fact("commands", there),
            ),
        )
    missing = version == 0 and mode.mode == "require"
    facts = [
        Fact(
            "sandbox",
            f"{mode.mode!r} ({sources})",
            Status.FAIL if missing else Status.OK,
            hint="every bash command will be refused on this kernel" if missing else "",
        ),
        Fact(
            "Landlock",
            f"ABI {version} ({kernel})" if version else f"none ({kernel})",
            Status.OK if version else Status.WARN,
            tuple(enforced(version)),
        ),
    ]
    for kind, read_only in (("auto-allowed lines", True), ("approved lines", False)):
        facts.append(Fact(kind, describe(mode, read_only=read_only, root=context.real_root)))
    return Section("sandbox", "Sandbox", tuple(facts))


def _executor_named(context: Context) -> bool:
    """Whether a session would run its tools in an executor (a bad --executor is one: its section
    says what is wrong with it)."""
    assert context.settings is not None
    from ..agent.tools import executor_argv

    try:
        return executor_argv(context.executor, context.settings.agent) is not None
    except BastionError:
        return True


def sample(context: Context) -> Section:
    if context.settings is None:
        return context.unchecked("sample", "Everyday lines")
    dry = DryRun(context.config)
    facts = []
    for line in SAMPLE_LINES:
        try:
            result = dry.check(context.root, "bash", {"command": line})
        except (RequestError, PolicyError, ConfigError) as err:
            facts.append(Fact(line, f"could not be decided: {err}", Status.WARN))
            continue
        rule = f" by {result['rule']} ({result['source']})" if result.get("rule") else ""
        why = () if result["decision"] == "allow" else (str(result["reason"]),)
        facts.append(Fact(line, f"{result['decision']}{rule}", details=why))
    return Section("sample", "Everyday lines (what this config decides)", tuple(facts))
