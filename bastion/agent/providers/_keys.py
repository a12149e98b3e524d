"""A provider's key: from one variable, or printed by a command and refreshed."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from ..._safe import hold
from ...policy import without
from ..runtime import ConfigError, Failure, ModelError

__all__ = ["Key", "KeySource", "NoKey"]

_KEY_MAX = 16 * 1024
_KEY_AGE = 300.0
_COMMAND_TIMEOUT = 300.0
# How long a key command runs before bastion says what it is waiting for.
SLOW_COMMAND = 5.0


class NoKey(ModelError):
    """No key could be had (a key command that failed, vertex's credentials that gave no token):
    no request was sent, so no server refused anything."""

    def __init__(self, message: str) -> None:
        super().__init__(message, Failure.AUTHENTICATION)


def _say_on_stderr(text: str) -> None:
    sys.stderr.write(f"bastion: {text}\n")
    sys.stderr.flush()


class Key(Protocol):
    """What a request is authenticated with: a KeySource, or vertex's access token (_adc.AdcToken).
    `get` gives it as it is now (fetched again once it has aged); `refresh` fetches it again at
    once, when the server refused it and `refreshable` says another may do better."""

    provider: str
    on_wait: Callable[[str], None]

    @property
    def refreshable(self) -> bool: ...

    def get(self) -> str: ...

    def refresh(self) -> str: ...


class KeySource:
    """A provider's key: read from one environment variable, or printed by a command (run without a
    shell, again once five minutes old or when the server refuses it). Held in memory only, and
    held for redaction (bastion/_safe.py) from the moment it is read.

    The command runs with `environ` less the variables in `scrub` (the key variables: the
    command is your credential helper, so its own credentials stay); its standard error is never
    shown, since it may hold the very key it failed to print (bastion cannot redact a key it was
    never given). One that runs over SLOW_COMMAND seconds is said, by its name, through `on_wait`."""

    def __init__(
        self,
        provider: str,
        *,
        env_name: str | None = None,
        command: list[str] | None = None,
        environ: Mapping[str, str] | None = None,
        scrub: Iterable[str] = (),
    ) -> None:
        self.provider = provider
        self.env_name = env_name
        self._command = command
        self._lock = threading.Lock()
        self._key: str | None = None
        self._at = 0.0
        self.on_wait: Callable[[str], None] = _say_on_stderr
        self._env = without(environ or {}, scrub)
        if command is None:
            value = (environ or {}).get(env_name or "", "")
            if not value:
                raise ConfigError(f"{provider}: no API key: set {env_name} in the environment")
            self._key = value
            hold(value)

    @property
    def refreshable(self) -> bool:
        return self._command is not None

    def get(self) -> str:
        with self._lock:
            if self._key is None or (self._command is not None and time.monotonic() - self._at > _KEY_AGE):
                self._key = self._run()
                self._at = time.monotonic()
            return self._key

    def refresh(self) -> str:
        with self._lock:
            self._key = self._run()
            self._at = time.monotonic()
            return self._key

    def _failed(self, name: str, why: str) -> NoKey:
        return NoKey(f"authentication failed: api_key_command {name} {why}")

    def _run(self) -> str:
        assert self._command is not None
        name = self._command[0] if self._command else "(empty)"
        try:
            proc = subprocess.Popen(
                self._command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self._env,
            )
        except (OSError, ValueError) as err:
            raise self._failed(
                name, f"could not be started: {getattr(err, 'strerror', None) or err}"
            ) from None
        try:
            try:
                out, _ = proc.communicate(timeout=SLOW_COMMAND)
            except subprocess.TimeoutExpired:
                self.on_wait(
                    f"waiting for the key from api_key_command {name} (at most {_COMMAND_TIMEOUT:g} s)"
                )
                out, _ = proc.communicate(timeout=_COMMAND_TIMEOUT - SLOW_COMMAND)
        except subprocess.TimeoutExpired:
            raise self._failed(name, f"printed no key within {_COMMAND_TIMEOUT:g} s") from None
        finally:
            if proc.poll() is None:  # timed out, or the wait was interrupted
                proc.kill()
                proc.wait()
        token = out.strip()
        if proc.returncode != 0:
            raise self._failed(
                name,
                f"exited {proc.returncode} (its standard error is not shown: it may hold the key; "
                "run the command yourself to see why)",
            )
        if not token or len(token) > _KEY_MAX or any(b < 0x21 or b > 0x7E for b in token):
            raise self._failed(name, f"did not print one printable token of at most {_KEY_MAX} bytes")
        key = token.decode("ascii")
        hold(key)
        return key
