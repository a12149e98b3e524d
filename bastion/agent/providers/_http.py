"""What every wire format shares: the key, the streamed POST with its retries, and SSE framing.

httpx is used directly rather than the vendors' SDKs: each SDK retries on its own terms, and the loop
must control retries (never after a tool call was surfaced, a capped Retry-After, tiny backoff in
tests) and classify every failure into one kind.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._types import ConfigError, Failure, ModelError, Reply

if TYPE_CHECKING:
    import httpx

__all__ = ["KeySource", "Poster", "RetryPolicy", "sse_events"]

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


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 3
    base: float = 0.5
    cap: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        wait = retry_after if retry_after is not None else self.base * 2**attempt
        return max(0.0, min(wait, self.cap))


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) pairs of a text/event-stream."""
    event = ""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if data:
        yield event, "\n".join(data)


def parse_json(provider: str, data: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except json.JSONDecodeError as err:
        raise ModelError(
            f"{provider}: the stream held a line that is not JSON: {err}", Failure.PROTOCOL_ERROR
        ) from None
    if not isinstance(value, dict):
        raise ModelError(f"{provider}: the stream held JSON that is not an object", Failure.PROTOCOL_ERROR)
    return value


def _classify(provider: str, status: int, body: str, retry_after: float | None) -> ModelError:
    text = " ".join(body.split())[:300]
    text = "".join(c for c in text if c.isprintable())
    message = f"{provider}: HTTP {status}: {text}" if text else f"{provider}: HTTP {status}"
    low = body.lower()
    if status == 429:
        return ModelError(
            message, Failure.RATE_LIMITED, retryable=True, http_status=status, retry_after=retry_after
        )
    if status >= 500:
        return ModelError(
            message, Failure.UNAVAILABLE, retryable=True, http_status=status, retry_after=retry_after
        )
    if status in (401, 402, 403):
        return ModelError(message, Failure.AUTHENTICATION, http_status=status)
    if status == 404:
        return ModelError(message, Failure.MODEL_NOT_FOUND, http_status=status)
    if status in (400, 413) and ("context" in low or "too long" in low or "too many tokens" in low):
        return ModelError(message, Failure.CONTEXT_EXCEEDED, http_status=status)
    return ModelError(message, Failure.OTHER, http_status=status)


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class Surfaced:
    """Set once a tool call has been shown to the caller: from then on the request is never retried."""

    def __init__(self) -> None:
        self.tool_call = False


Parse = Callable[[Iterator[tuple[str, str]], Surfaced], Reply]


class Poster:
    """POSTs a streaming request and hands its SSE events to a parser, with retries and key refresh."""

    def __init__(
        self,
        provider: str,
        url: str,
        headers: Callable[[str | None], dict[str, str]],
        key: KeySource | None,
        retry: RetryPolicy,
        timeout: float = 600.0,
    ) -> None:
        import httpx

        self.provider = provider
        self.url = url
        self._headers = headers
        self._key = key
        self._retry = retry
        self._client = httpx.Client(timeout=httpx.Timeout(timeout, connect=30.0))

    def post(self, body: dict[str, Any], parse: Parse) -> Reply:
        import httpx

        attempt = 0
        refreshed = False
        while True:
            surfaced = Surfaced()
            try:
                key = self._key.get() if self._key is not None else None
                with self._client.stream("POST", self.url, json=body, headers=self._headers(key)) as resp:
                    if resp.status_code >= 400:
                        raise self._refused(resp)
                    return parse(sse_events(resp.iter_lines()), surfaced)
            except ModelError as err:
                if (
                    err.kind is Failure.AUTHENTICATION
                    and err.http_status
                    and self._key is not None
                    and self._key.refreshable
                    and not refreshed
                ):
                    refreshed = True
                    self._key.refresh()
                    continue
                if not err.retryable or surfaced.tool_call or attempt >= self._retry.attempts:
                    raise
                time.sleep(self._retry.delay(attempt, err.retry_after))
            except httpx.TransportError as err:
                if surfaced.tool_call or attempt >= self._retry.attempts:
                    raise ModelError(
                        f"{self.provider}: network: {type(err).__name__}: {err}",
                        Failure.NETWORK,
                        retryable=True,
                    ) from None
                time.sleep(self._retry.delay(attempt, None))
            attempt += 1

    def _refused(self, resp: httpx.Response) -> ModelError:
        resp.read()
        return _classify(
            self.provider, resp.status_code, resp.text, _retry_after(resp.headers.get("retry-after"))
        )

    def close(self) -> None:
        self._client.close()
