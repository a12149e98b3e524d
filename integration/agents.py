"""The three agent CLIs as the integration runs them: where each keeps its settings, how its hook is
configured, how it is pointed at the scripted model, and the tool calls its model can make.

Every run gets a HOME of its own (a temporary directory) and an environment built from nothing: no key
of the machine's, a fake one for the CLI, the base URL of the scripted server, telemetry and updates
off, and a proxy that goes nowhere for anything but 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from integration.model_server import ToolCall

__all__ = ["AgentCli", "ClaudeCode", "Codex", "GeminiCli", "SetupError", "agents"]

DOCS = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"


class SetupError(Exception):
    """The CLI could not be configured for a run (the words say what failed)."""


class AgentCli(Protocol):
    """One agent CLI, as a scenario drives it."""

    @property
    def name(self) -> str: ...

    @property
    def hook_name(self) -> str:
        """The AGENT of `bastion hook AGENT`."""
        ...

    def version(self, env: dict[str, str]) -> str: ...

    def configure(self, home: Path, project: Path, url: str, hook: str, env: dict[str, str]) -> None: ...

    def environment(self, home: Path, url: str) -> dict[str, str]: ...

    def argv(self, prompt: str, *, bypass: bool) -> list[str]: ...

    def shell(self, line: str, project: Path) -> ToolCall: ...

    def shell_in(self, line: str, directory: Path) -> ToolCall | None:
        """A shell call with the working directory the model chose, when the CLI's tool takes one."""
        ...

    def read(self, path: str, project: Path) -> ToolCall | None: ...

    def write(self, path: str, content: str, project: Path) -> ToolCall | None: ...

    def patch(self, patch: str) -> ToolCall | None: ...

    def patch_heredoc(self, patch: str) -> ToolCall | None: ...


def documented_matcher(agent: str) -> str:
    """The matcher docs/integrations.md configures `bastion hook AGENT` with (its first JSON or TOML block
    of that agent's hooks), so that what runs here is what the docs tell a user to write."""
    language, marker, path = {
        "claude-code": ("json", '"PreToolUse"', ("hooks", "PreToolUse", 0, "matcher")),
        "codex": ("toml", "[[hooks.PreToolUse]]", ("hooks", "PreToolUse", 0, "matcher")),
        "gemini": ("json", '"BeforeTool"', ("hooks", "BeforeTool", 0, "matcher")),
    }[agent]
    for found, body in re.findall(r"^```(\w+)\n(.*?)^```", DOCS.read_text(), re.S | re.M):
        if found != language or marker not in body:
            continue
        try:
            value: Any = tomllib.loads(body) if language == "toml" else json.loads(body)
            for step in path:
                value = value[step]
        except (ValueError, KeyError, IndexError, TypeError) as error:
            raise SetupError(
                f"{DOCS.name}: the {agent} hook's {language} block does not parse: {error}"
            ) from error
        if isinstance(value, str):
            return value
    raise SetupError(f"{DOCS.name} shows no {language} block configuring the {agent} hook with a matcher")


def _bin(modules: Path, name: str) -> Path:
    return modules / ".bin" / name


def base_environment(home: Path, node_dir: str, proxy: str) -> dict[str, str]:
    """What every CLI starts with: nothing of this machine's environment but a PATH to node, bash, git,
    and `proxy` for anything but 127.0.0.1 (a ProxySink: what a CLI tries to reach is refused there)."""
    return {
        "PATH": os.pathsep.join(p for p in (node_dir, "/usr/local/bin", "/usr/bin", "/bin") if p),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "HTTP_PROXY": proxy,
        "HTTPS_PROXY": proxy,
        "ALL_PROXY": proxy,
        "http_proxy": proxy,
        "https_proxy": proxy,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }


def _version(binary: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(binary), "--version"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise SetupError(f"`{binary.name} --version` exited {done.returncode}: {done.stderr.strip()[-200:]}")
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "?"


@dataclass(frozen=True)
class ClaudeCode:
    """Claude Code: `claude -p`, the Anthropic Messages API at ANTHROPIC_BASE_URL, a PreToolUse hook in
    ~/.claude/settings.json."""

    modules: Path
    name: str = "Claude Code"
    hook_name: str = "claude-code"

    def version(self, env: dict[str, str]) -> str:
        return _version(_bin(self.modules, "claude"), env)

    def configure(self, home: Path, project: Path, url: str, hook: str, env: dict[str, str]) -> None:
        settings = {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": documented_matcher(self.hook_name),
                        "hooks": [{"type": "command", "command": hook, "timeout": 30}],
                    }
                ]
            }
        }
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        (home / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))

    def environment(self, home: Path, url: str) -> dict[str, str]:
        env = {
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-ant-integration-not-a-key",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        if os.geteuid() == 0:
            env["IS_SANDBOX"] = "1"  # Claude Code refuses --dangerously-skip-permissions as root otherwise
        return env

    def argv(self, prompt: str, *, bypass: bool) -> list[str]:
        mode = ["--dangerously-skip-permissions"] if bypass else []
        return [str(_bin(self.modules, "claude")), "-p", prompt, "--output-format", "json", *mode]

    def shell(self, line: str, project: Path) -> ToolCall:
        return ToolCall("Bash", {"command": line, "description": "scripted"})

    def shell_in(self, line: str, directory: Path) -> ToolCall | None:
        return None

    def read(self, path: str, project: Path) -> ToolCall | None:
        return ToolCall("Read", {"file_path": str(project / path)})

    def write(self, path: str, content: str, project: Path) -> ToolCall | None:
        return ToolCall("Write", {"file_path": str(project / path), "content": content})

    def patch(self, patch: str) -> ToolCall | None:
        return None

    def patch_heredoc(self, patch: str) -> ToolCall | None:
        return None


def _lines_into(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _codex_rpc(binary: Path, env: dict[str, str], project: Path) -> list[dict[str, Any]]:
    """The hooks Codex's app server lists for `project` (`hooks/list`, what its `/hooks` screen shows)."""
    process = subprocess.Popen(
        [str(binary), "app-server"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    # Its answers are read by a thread (a line Python has buffered is invisible to select on the pipe).
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_lines_into, args=(process.stdout, lines), daemon=True).start()
    try:

        def send(message: dict[str, Any]) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            process.stdin.flush()

        def answer(ident: int) -> dict[str, Any]:
            deadline = time.monotonic() + 30
            while (left := deadline - time.monotonic()) > 0:
                try:
                    line = lines.get(timeout=left)
                except queue.Empty:
                    break
                if line is None:
                    break
                message = json.loads(line)
                if isinstance(message, dict) and message.get("id") == ident:
                    return message
            raise SetupError(f"codex app-server did not answer request {ident}")

        send(
            {
                "id": 1,
                "method": "initialize",
                "params": {"clientInfo": {"name": "bastion-it", "version": "1"}},
            }
        )
        answer(1)
        send({"method": "initialized", "params": {}})
        send({"id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}})
        listed = answer(2).get("result", {}).get("data", [])
        return [hook for entry in listed for hook in entry.get("hooks", [])]
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@dataclass(frozen=True)
class Codex:
    """Codex: `codex exec`, the Responses API of a `model_providers` entry, a PreToolUse hook in
    config.toml, trusted the way Codex's `/hooks` screen trusts it (a `[hooks.state."KEY"] trusted_hash`)."""

    modules: Path
    name: str = "Codex"
    hook_name: str = "codex"
    # A model Codex knows offers its own apply_patch tool besides exec_command.
    model: str = "gpt-5.5"

    def version(self, env: dict[str, str]) -> str:
        return _version(_bin(self.modules, "codex"), env)

    def configure(self, home: Path, project: Path, url: str, hook: str, env: dict[str, str]) -> None:
        config = home / ".codex" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        text = "\n".join(
            [
                f"model = {json.dumps(self.model)}",
                'model_provider = "scripted"',
                "check_for_update_on_startup = false",
                "",
                "[model_providers.scripted]",
                'name = "scripted"',
                f"base_url = {json.dumps(url + '/v1')}",
                'wire_api = "responses"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
                "",
                "[analytics]",
                "enabled = false",
                "",
                "[features]",
                "plugins = false  # else it syncs plugin lists from github.com and chatgpt.com",
                "",
                "[[hooks.PreToolUse]]",
                f"matcher = {json.dumps(documented_matcher(self.hook_name))}",
                "",
                "[[hooks.PreToolUse.hooks]]",
                'type = "command"',
                f"command = {json.dumps(hook)}",
                "",
            ]
        )
        config.write_text(text)
        listed = [h for h in self.listed_hooks(env, project) if h.get("command") == hook]
        if not listed:
            raise SetupError("codex app-server does not list bastion's hook (hooks/list)")
        for entry in listed:
            key, digest = json.dumps(entry["key"]), json.dumps(entry["currentHash"])
            text += f"\n[hooks.state.{key}]\ntrusted_hash = {digest}\n"
        config.write_text(text)
        again = [h for h in self.listed_hooks(env, project) if h.get("command") == hook]
        if not again or any(h.get("trustStatus") != "trusted" for h in again):
            raise SetupError(f"codex does not trust bastion's hook after the trusted_hash entry: {again}")

    def listed_hooks(self, env: dict[str, str], project: Path) -> list[dict[str, Any]]:
        """Codex's own account of its hooks for `project`: key, command, currentHash, trustStatus..."""
        return _codex_rpc(_bin(self.modules, "codex"), env, project)

    def environment(self, home: Path, url: str) -> dict[str, str]:
        return {"CODEX_HOME": str(home / ".codex")}

    def argv(self, prompt: str, *, bypass: bool) -> list[str]:
        # Codex's own sandbox and approvals are off in every run: bastion's hook is the only gate.
        return [
            str(_bin(self.modules, "codex")),
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            prompt,
        ]

    def shell(self, line: str, project: Path) -> ToolCall:
        return ToolCall("exec_command", {"cmd": line})

    def shell_in(self, line: str, directory: Path) -> ToolCall | None:
        return ToolCall("exec_command", {"cmd": line, "workdir": str(directory)})

    def read(self, path: str, project: Path) -> ToolCall | None:
        return None

    def write(self, path: str, content: str, project: Path) -> ToolCall | None:
        body = "".join(f"+{line}\n" for line in content.splitlines())
        return self.patch(f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n")

    def patch(self, patch: str) -> ToolCall | None:
        return ToolCall("apply_patch", freeform=patch)

    def patch_heredoc(self, patch: str) -> ToolCall | None:
        return ToolCall("exec_command", {"cmd": f"apply_patch <<'EOF'\n{patch}EOF"})


@dataclass(frozen=True)
class GeminiCli:
    """Gemini CLI: `gemini -p --yolo`, the Gemini API at GOOGLE_GEMINI_BASE_URL with a fake key, a
    BeforeTool hook in ~/.gemini/settings.json."""

    modules: Path
    name: str = "Gemini CLI"
    hook_name: str = "gemini"

    def version(self, env: dict[str, str]) -> str:
        return _version(_bin(self.modules, "gemini"), env)

    def configure(self, home: Path, project: Path, url: str, hook: str, env: dict[str, str]) -> None:
        settings = {
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "hooks": {
                "BeforeTool": [
                    {
                        "matcher": documented_matcher(self.hook_name),
                        "hooks": [{"type": "command", "command": hook, "timeout": 30000}],
                    }
                ]
            },
        }
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))

    def environment(self, home: Path, url: str) -> dict[str, str]:
        return {"GEMINI_API_KEY": "integration-not-a-key", "GOOGLE_GEMINI_BASE_URL": url}

    def argv(self, prompt: str, *, bypass: bool) -> list[str]:
        # --yolo: Gemini's own confirmations are off in every run, bastion's hook is the only gate.
        return [str(_bin(self.modules, "gemini")), "-p", prompt, "--yolo"]

    def shell(self, line: str, project: Path) -> ToolCall:
        return ToolCall("run_shell_command", {"command": line, "description": "scripted"})

    def shell_in(self, line: str, directory: Path) -> ToolCall | None:
        return ToolCall(
            "run_shell_command", {"command": line, "description": "scripted", "dir_path": str(directory)}
        )

    def read(self, path: str, project: Path) -> ToolCall | None:
        return ToolCall("read_file", {"file_path": path})

    def write(self, path: str, content: str, project: Path) -> ToolCall | None:
        return ToolCall("write_file", {"file_path": path, "content": content})

    def patch(self, patch: str) -> ToolCall | None:
        return None

    def patch_heredoc(self, patch: str) -> ToolCall | None:
        return None


def agents(modules: Path) -> list[AgentCli]:
    """The CLIs in the order of the table's columns."""
    return [ClaudeCode(modules), Codex(modules), GeminiCli(modules)]


def hook_command(bastion: Path, agent: str, *, strict: bool) -> str:
    """The hook's command line, as the CLI's settings name it."""
    return " ".join([shlex.quote(str(bastion)), "hook", agent, *(["--strict"] if strict else [])])
