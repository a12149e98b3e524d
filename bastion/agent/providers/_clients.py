"""Where a provider is and how it is reached: its URL, key, retries and prices, and the SDK clients made
from them. Each SDK is imported here, the first time its provider is used, never before.

Each SDK is handed the bounds of `timeouts` itself (`timeout=`): given only the HTTP client's, an SDK
takes a timeout equal to httpx's default (5 s) for "not set" and waits its own 600 s instead.

The key goes into the SDK as a header value only: OpenAI's client asks `KeySource.get` before every
request (so a key command's output is fetched again once five minutes old); Anthropic's is copied
with the key whenever it changes, and so is its Vertex client with vertex's access token. Neither
SDK retries (max_retries=0: the retries are ours), and neither may pick up a key, base URL, region,
project or other credential of its own from the environment. Gemini is spoken over `http_client`.
An SDK may be importing on another thread (_preload.py): each import here waits for it (`settle`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._failures import OnRetry, RetryPolicy, Timeouts
from ._google import Place
from ._keys import Key
from ._preload import settle
from ._pricing import Price

if TYPE_CHECKING:
    import anthropic
    import httpx2
    import openai
    from anthropic import Anthropic, AnthropicVertex

__all__ = ["Connection"]


@dataclass(slots=True)
class Connection:
    """`transport` replaces the network (an httpx2 transport: tests speak the wire format through it);
    `on_retry` hears of each request that is tried again; `limits_cache` is the file the models'
    limits are kept in; `timeouts` bound how long a request waits (no byte, and in all); `place`
    is where vertex's requests go (None: not vertex)."""

    provider: str
    base_url: str
    key: Key | None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    pricing: Mapping[str, Price] = field(default_factory=dict)
    transport: httpx2.BaseTransport | None = None
    on_retry: OnRetry | None = None
    limits_cache: str | None = None
    timeouts: Timeouts = field(default_factory=Timeouts)
    place: Place | None = None  # vertex: the project and location its requests go to
    _http: httpx2.Client | None = None
    _openai: openai.OpenAI | None = None
    _anthropic: anthropic.Anthropic | None = None
    _vertex: anthropic.AnthropicVertex | None = None
    _anthropic_key: str | None = None

    def timeout(self) -> httpx2.Timeout:
        """The read timeout is the idle bound: no byte for that long, while waiting for the answer
        to start or in the middle of its stream (a request made under `with_retries` waits no longer
        than its total bound has left, and every read of its body checks that bound)."""
        settle()
        import httpx2

        bounds = self.timeouts
        return httpx2.Timeout(bounds.idle, connect=min(bounds.connect, bounds.idle))

    def http_client(self) -> httpx2.Client:
        settle()
        import httpx2

        from ._overdue import bound_request, bound_response

        if self._http is None:
            self._http = httpx2.Client(
                transport=self.transport,
                timeout=self.timeout(),
                follow_redirects=False,
                event_hooks={"request": [bound_request], "response": [bound_response]},
            )
        return self._http

    def openai(self) -> openai.OpenAI:
        settle()
        import openai

        if self._openai is None:
            key = self.key
            self._openai = openai.OpenAI(
                api_key=key.get if key is not None else (lambda: ""),
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout(),
                http_client=self.http_client(),
            )
            # Read from OPENAI_ORG_ID and OPENAI_PROJECT_ID otherwise, and sent to whichever server this is.
            self._openai.organization = None
            self._openai.project = None
        return self._openai

    def openai_extras(self) -> dict[str, Any]:
        """What every OpenAI request adds: without a key (Ollama), no authorization header at all."""
        settle()
        import openai

        return {} if self.key is not None else {"extra_headers": {"Authorization": openai.omit}}

    def anthropic(self) -> anthropic.Anthropic:
        """The client with the key as it is now (a key command's output may have changed)."""
        settle()
        import anthropic

        key = self.key.get() if self.key is not None else ""
        if self._anthropic is None or key != self._anthropic_key:
            self._anthropic = anthropic.Anthropic(
                api_key=key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout(),
                http_client=self.http_client(),
                open_telemetry=False,
            )
            self._anthropic_key = key
        return self._anthropic

    def google_headers(self) -> dict[str, str]:
        """What a request to Google adds: the project a login's quota is billed to, when it names one."""
        quota = self.place.quota_project if self.place is not None else None
        return {"x-goog-user-project": quota} if quota else {}

    def claude(self) -> Anthropic | AnthropicVertex:
        """The client Claude's Messages go through: Anthropic's, or on vertex its Vertex client, with
        the access token as it is now (base URL, region and project bastion's, never the SDK's
        variables: ANTHROPIC_VERTEX_BASE_URL, CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID)."""
        settle()
        import anthropic

        if self.place is None:
            return self.anthropic()
        token = self.key.get() if self.key is not None else ""
        if self._vertex is None or token != self._anthropic_key:
            self._vertex = anthropic.AnthropicVertex(
                region=self.place.location,
                project_id=self.place.project,
                access_token=token,
                base_url=self.base_url + "/v1",
                max_retries=0,
                timeout=self.timeout(),
                http_client=self.http_client(),
                open_telemetry=False,
                default_headers=self.google_headers(),
            )
            self._anthropic_key = token
        return self._vertex
