"""What to do about a failure of the model's service, said in one line after the failure: the URL
that could not be reached, the variable (or command) the refused key came from, an address that
does not answer as the API does."""

from __future__ import annotations

from ..providers import DEFAULTS, NoKey
from ..runtime import AgentError, Failure

__all__ = ["advice"]


def advice(err: AgentError, provider: str, base_url: str, key_from: str) -> str | None:
    """A hint for `err`, or None when there is nothing to add. `key_from` names where the key came
    from ("$OPENAI_API_KEY", "the output of api_key_command"), never the key."""
    kind = getattr(err, "kind", None)
    if kind is Failure.NETWORK and getattr(err, "answered", False):
        return (
            f"{base_url} was reached, but its answer broke off or stalled; a model that thinks long "
            "before it answers may need a larger stream_idle_timeout or request_timeout (seconds, in "
            "the config)"
        )
    if kind is Failure.NETWORK:
        hint = f"could not connect to {base_url}"
        if provider == "ollama":
            return hint + "; is Ollama running? Start it with `ollama serve`"
        return hint + "; check the URL (--base-url or the config's base_url) and that the server is up"
    if isinstance(err, NoKey):
        return None  # no request was sent: the error says why no key could be had
    if kind is Failure.AUTHENTICATION:
        return f"the key was refused by {base_url}: check {key_from}"
    if getattr(err, "web_page", False):
        usual = DEFAULTS[provider][1] if provider in DEFAULTS else None
        where = f"{provider}'s is {usual}" if usual else "OpenAI-style ones end in /v1"
        return f"{base_url} answered with a web page: not an API endpoint ({where})"
    if kind is Failure.WORKSPACE_LOST:
        return (
            "the executor is gone for the rest of this session (nothing runs on this machine instead); "
            "once it can be reached, start bastion again with --resume and the same --executor"
        )
    if kind is Failure.PROTOCOL_ERROR:
        return f"{base_url} did not answer as the {provider} API does: is it the API endpoint?"
    return None
