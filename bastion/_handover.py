"""At start, on the paths that hold a key (the agent, doctor): the key variables taken out of
bastion's own process, so that no later reader finds them in /proc/<pid>/environ.

Which variables: every provider's standard one, `--api-key-env`'s, and in the user's config
`api_key_env` and the variables MCP header values are read from. Those that are set are removed
from the environment and bastion executes itself again (`execve`: the same process, so the same
pid, terminal, standard input, signal dispositions and exit status), the values handed over on an
inherited pipe, never in argv nor a file. The new image reads them into memory (`environ()` is
the environment with them), holds each for redaction, and makes itself non-dumpable: see
docs/rules.md (rule 11) for what that does and does not protect against. A variable named by
mistake (a prompt that reads like the flag) is only moved into memory: nothing is lost.

The standard library, `_files` and `_safe` only, and loaded before anything else, so a start
pays little for it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence

from ._files import read_regular
from ._safe import hold

__all__ = [
    "PROVIDER_KEY_VARIABLES",
    "environ",
    "handed",
    "keep_keys_out",
    "key_variables",
    "user_config_path",
]

# The variable each provider's key is read from (openresponses and ollama have none of their own;
# vertex takes no key: its access token is made in memory from a credential file).
PROVIDER_KEY_VARIABLES = {
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
# The inherited pipe's descriptor and the process it was made for: "FD:PID".
MARK = "BASTION_KEYS_FD"
_CONFIG_MAX = 1 << 20
_PR_SET_DUMPABLE = 4
# The values a pipe can take at once (F_SETPIPE_SZ may grow it up to /proc/sys/fs/pipe-max-size).
_PIPE_MAX = 1 << 20

_handed: dict[str, str] = {}


def user_config_path(environ: Mapping[str, str] | None = None) -> str:
    """$XDG_CONFIG_HOME/bastion/config.toml, else ~/.config/bastion/config.toml."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "bastion", "config.toml")


def _flag_values(argv: Sequence[str], flag: str, shortest: int) -> list[str]:
    """The values given to `flag` (also abbreviated to at least `shortest` characters, as argparse
    takes it), as `--flag VALUE` or `--flag=VALUE`."""
    found = []
    for i, word in enumerate(argv):
        name, eq, value = word.partition("=")
        if len(name) >= shortest and flag.startswith(name):
            if eq:
                found.append(value)
            elif i + 1 < len(argv):
                found.append(argv[i + 1])
    return found


def _config_variables(path: str) -> set[str]:
    """api_key_env and the MCP header variables of the user's config (unreadable or invalid: none;
    the session's own reading of the file says what is wrong)."""
    try:
        data = read_regular(path, _CONFIG_MAX + 1)  # a FIFO or a device is refused, never waited on
    except OSError:  # NotRegularFile included
        return set()
    if len(data) > _CONFIG_MAX or not (b"api_key_env" in data or b"headers" in data):
        return set()
    import tomllib

    try:
        config = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return set()
    names = {config.get("api_key_env")}
    servers = config.get("mcp", {}).get("servers", {}) if isinstance(config.get("mcp"), dict) else {}
    for server in servers.values() if isinstance(servers, dict) else ():
        headers = server.get("headers", {}) if isinstance(server, dict) else {}
        for source in headers.values() if isinstance(headers, dict) else ():
            names.add(source.get("env") if isinstance(source, dict) else None)
    return {name for name in names if isinstance(name, str) and name}


def key_variables(argv: Sequence[str], environ: Mapping[str, str]) -> set[str]:
    """The variables that may hold a key this command line would use."""
    configs = _flag_values(argv, "--config", len("--conf"))
    path = os.path.expanduser(configs[-1]) if configs else user_config_path(environ)
    return {
        *PROVIDER_KEY_VARIABLES.values(),
        *_flag_values(argv, "--api-key-env", len("--api-key-e")),
        *_config_variables(path),
    }


def environ() -> dict[str, str]:
    """This process's environment with the values handed over at start."""
    return {**os.environ, **_handed}


def handed() -> frozenset[str]:
    """The names of the variables handed over at start (none when nothing was moved)."""
    return frozenset(_handed)


def keep_keys_out(argv: Sequence[str]) -> None:
    """Run first: take the key variables out of the process (executing it again without them), or,
    in the image executed so, take them over from the pipe. Raises OSError when bastion cannot
    execute itself again (nothing is run then)."""
    mark = os.environ.pop(MARK, None)
    if mark is not None:
        _receive(mark)
    else:
        names = sorted(n for n in key_variables(argv, os.environ) if os.environ.get(n))
        if names:
            _again(names)  # does not return
    _not_dumpable()


def _again(names: list[str]) -> None:
    import json

    payload = json.dumps({name: os.environ[name] for name in names}).encode()
    read, write = os.pipe()
    try:
        if len(payload) > 65536:
            import fcntl

            fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, min(len(payload), _PIPE_MAX))
        os.set_blocking(write, False)
        # All of it fits, or nothing runs: the pipe holds it until the new image reads it.
        if os.write(write, payload) != len(payload):
            raise OSError(f"the key variables ({', '.join(names)}) are too large to hand over")
        os.close(write)
        os.set_inheritable(read, True)
        env = {k: v for k, v in os.environ.items() if k not in names}
        env[MARK] = f"{read}:{os.getpid()}"
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
    except BaseException:
        for fd in (read, write):
            with contextlib.suppress(OSError):
                os.close(fd)
        raise


def _receive(mark: str) -> None:
    """The values from the pipe `mark` names, when it was made for this very process (a stale mark
    inherited from elsewhere names another pid, and is dropped)."""
    import json

    fd, _, pid = mark.partition(":")
    if not (fd.isdigit() and pid == str(os.getpid())):
        return
    chunks = []
    try:
        while chunk := os.read(int(fd), 65536):
            chunks.append(chunk)
    finally:
        os.close(int(fd))
    values = json.loads(b"".join(chunks))
    for name, value in values.items():
        _handed[name] = value
        hold(value)


def _not_dumpable() -> None:
    """No core dump, and no process of the same user (not root) reads this one's memory or /proc
    entries: prctl(PR_SET_DUMPABLE, 0)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
