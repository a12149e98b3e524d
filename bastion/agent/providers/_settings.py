"""The provider fields of the user config (top-level keys of its TOML), checked, and merged with flags."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...config import AgentConfig
from ..runtime import ConfigError

__all__ = ["PROVIDER_KEYS", "PROVIDERS", "ProviderConfig", "merge_flags", "provider_config"]

PROVIDERS = ("ollama", "openai", "openrouter", "openresponses", "anthropic", "gemini", "vertex")
# Fields that belong to the provider in force where they are set: a later layer that switches the
# provider leaves them behind.
_PROVIDER_BOUND = ("model", "base_url", "api_key_env", "api_key_command")
PROVIDER_KEYS = ("provider", "model", "base_url", "api_key_env", "api_key_command", "think", "effort")


class ProviderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: Literal["ollama", "openai", "openrouter", "openresponses", "anthropic", "gemini", "vertex"] = (
        "ollama"
    )
    model: str | None = Field(default=None, min_length=1)
    base_url: str | None = None
    api_key_env: str | None = None
    api_key_command: list[str] | None = None
    think: bool = True
    effort: Literal["minimal", "low", "medium", "high", "xhigh"] = "low"

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and "://" not in value and re.fullmatch(r"[^\s/]+(/\S*)?", value):
            raise ValueError(f"{value!r} has no scheme: write http://{value} (or https://)")
        if value is not None and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ValueError("must be the name of an environment variable (never the key itself)")
        return value

    @field_validator("api_key_command", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        # A string is split as a shell splits words, with nothing expanded; no shell ever runs it.
        return shlex.split(value) if isinstance(value, str) else value

    @field_validator("api_key_command")
    @classmethod
    def _command(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not value[0]):
            raise ValueError('must be a program and its arguments, ["program", "arg", ...]')
        return value


def _check(data: Mapping[str, Any], where: str) -> ProviderConfig:
    try:
        return ProviderConfig.model_validate(dict(data))
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top)"
        message = str(first["msg"]).removeprefix("Value error, ")
        if where == "flags":  # named as it was given: --base-url
            raise ConfigError(f"--{field.replace('_', '-')}: {message}") from None
        raise ConfigError(f"{where}: {field}: {message}") from None


def provider_config(config: AgentConfig, where: str = "config") -> ProviderConfig:
    """The provider fields of a config file, those it sets (the table typed them; the values are
    checked here: the provider's name, the URL, the effort)."""
    given = {key: getattr(config, key) for key in PROVIDER_KEYS}
    return _check({key: value for key, value in given.items() if value is not None}, where)


def merge_flags(base: ProviderConfig, flags: Mapping[str, Any]) -> ProviderConfig:
    """Flags over the config file. A flag that switches the provider drops the file's model, base_url
    and key settings, which were meant for the other provider."""
    data = base.model_dump(exclude_unset=True)
    given = {k: v for k, v in flags.items() if v is not None}
    if "provider" in given and given["provider"] != base.provider:
        for key in _PROVIDER_BOUND:
            data.pop(key, None)
    data.update(given)
    if data.get("api_key_command") == []:  # --api-key-command "" turns off the config's command
        data.pop("api_key_command")
    return _check(data, "flags")
