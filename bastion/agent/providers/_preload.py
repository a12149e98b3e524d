"""The provider's SDK imported on a thread of its own, started as soon as the provider is known, while
the config, the workspace, the policy and the session load on the main thread: the first request
then finds the SDK imported (docs/performance.md has the figures, docs/design.md the rule).

Only the chosen provider's SDK is imported (openai for the OpenAI wire formats, anthropic for
Anthropic's; gemini and vertex speak over httpx2, which both SDKs import too). An import that fails
here is dropped: Python takes the failed module out of sys.modules, so the first request imports it
again on the main thread and fails there the way it always did (one line naming the provider, no
traceback). Before it imports an SDK, the main thread waits for this thread (`settle`), so the two
never import the same modules at once."""

from __future__ import annotations

import threading

__all__ = ["preload", "settle"]

# What a first request imports, in order: the SDK, the resource its request is made through, the
# model list some servers are asked first (an OpenAI-style server's window), and the HTTP transport.
_HTTP = ("httpx2", "httpcore2", "truststore")
_CHAT = ("openai", "openai.resources.chat", "openai.resources.models", *_HTTP)
_SDKS = {
    "openai": _CHAT,
    "ollama": _CHAT,
    "openrouter": _CHAT,
    "openresponses": ("openai", "openai.resources.responses", "openai.resources.models", *_HTTP),
    "anthropic": ("anthropic", "anthropic.resources.messages", *_HTTP),
    "gemini": _HTTP,
    "vertex": _HTTP,  # Claude's Vertex client is anthropic's, Gemini's httpx2: the model decides
}

_lock = threading.Lock()
_thread: threading.Thread | None = None


def _load(modules: tuple[str, ...]) -> None:
    try:
        for name in modules:
            __import__(name)
    except Exception:  # surfaced where the request imports it again (see the module's text)
        return


def preload(provider: str) -> None:
    """Start importing `provider`'s SDK on a daemon thread (once a process: a second call does
    nothing, and an unknown provider starts nothing)."""
    global _thread
    modules = _SDKS.get(provider)
    with _lock:
        if _thread is not None or modules is None:
            return
        _thread = threading.Thread(target=_load, args=(modules,), name="bastion-sdk-import", daemon=True)
        _thread.start()


def settle() -> None:
    """Wait until the background import (if any was started) has ended, succeeded or failed."""
    with _lock:
        thread = _thread
    if thread is not None and thread is not threading.current_thread():
        thread.join()
