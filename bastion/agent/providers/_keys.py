"""A provider's key: from one variable, or printed by a command and refreshed."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Mapping

from .._types import ConfigError, Failure, ModelError

__all__ = ["KeySource"]

_KEY_MAX = 16 * 1024
_KEY_AGE = 300.0


class KeySource:
    """A provider's key: read from one environment variable, or printed by a command (run without a
    shell, again once five minutes old or when the server refuses it). Held in memory only."""

    def __init__(
        self,
        provider: str,
        *,
        env_name: str | None = None,
        command: list[str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.provider = provider
        self.env_name = env_name
        self._command = command
        self._lock = threading.Lock()
        self._key: str | None = None
        self._at = 0.0
        if command is None:
            value = (environ or {}).get(env_name or "", "")
            if not value:
                raise ConfigError(f"{provider}: no API key: set {env_name} in the environment")
            self._key = value

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

    def _run(self) -> str:
        assert self._command is not None
        name = self._command[0] if self._command else "(empty)"
        try:
            done = subprocess.run(
                self._command, capture_output=True, timeout=300, stdin=subprocess.DEVNULL, check=False
            )
        except (OSError, subprocess.TimeoutExpired, ValueError) as err:
            raise ModelError(
                f"authentication failed: api_key_command {name}: {err}", Failure.AUTHENTICATION
            ) from None
        if done.returncode != 0:
            last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
            raise ModelError(
                f"authentication failed: api_key_command {name} exited {done.returncode}: {last}",
                Failure.AUTHENTICATION,
            )
        token = done.stdout.strip()
        if not token or len(token) > _KEY_MAX or any(b < 0x21 or b > 0x7E for b in token):
            raise ModelError(
                f"authentication failed: api_key_command {name} did not print one printable token"
                f" of at most {_KEY_MAX} bytes",
                Failure.AUTHENTICATION,
            )
        return token.decode("ascii")
