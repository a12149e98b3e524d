"""Where Google's models are served from, for vertex, read from the environment alone (standard
library only: `bastion doctor` reads it too, with no SDK): the file Application Default
Credentials are in and what kind they are, the project and location, the endpoint, and the family a
model name belongs to.

Application Default Credentials are a file: the one $GOOGLE_APPLICATION_CREDENTIALS names (a
service account's key), else the one `gcloud auth application-default login` writes
($CLOUDSDK_CONFIG, else ~/.config/gcloud, /application_default_credentials.json). Only these two
kinds are taken; neither runs a program. The metadata server of a Google Cloud machine is never
asked (a request to a link-local address bastion did not name).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..._files import read_regular
from ..._safe import hold
from ..runtime import ConfigError

__all__ = [
    "ADC_KINDS",
    "FAMILIES",
    "Adc",
    "Place",
    "family_of",
    "VertexSetup",
    "read_adc",
    "refused_model",
    "vertex_base_url",
    "vertex_location",
    "vertex_place",
    "vertex_setup",
]

# The kinds of credential file taken (a file's "type"), and the fields of each that are secrets.
ADC_KINDS = ("service_account", "authorized_user")
_SECRET_FIELDS = ("private_key", "private_key_id", "refresh_token", "client_secret")
_FILE_MAX = 1 << 20
# Model name prefix -> family: the adapter a vertex request goes through.
FAMILIES = {"claude-": "claude", "gemini-": "gemini"}
# What a project ID and a location look like (a domain-scoped project has a colon and dots); they
# go into the request's URL, so nothing else is taken.
_PROJECT = re.compile(r"[a-z][a-z0-9.:-]{0,127}")
_LOCATION = re.compile(r"[a-z][a-z0-9-]{0,62}")


@dataclass(frozen=True, slots=True)
class Adc:
    """A credential file: where it is, how it was found (`source`, said to the person), its kind, and
    the project it names of its own (a service account's project_id, a login's quota project)."""

    path: str
    source: str
    kind: str
    project: str | None
    quota_project: str | None


@dataclass(frozen=True, slots=True)
class Place:
    """The project and location vertex serves from, and where each came from (said by doctor)."""

    project: str
    location: str
    project_from: str
    location_from: str
    quota_project: str | None = None

    @property
    def path(self) -> str:
        """The URL path of the project's location, each part quoted."""
        return f"projects/{quote(self.project, safe='')}/locations/{quote(self.location, safe='')}"


def _adc_path(environ: Mapping[str, str]) -> tuple[str, str]:
    named = environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    if named:
        return os.path.expanduser(named), "$GOOGLE_APPLICATION_CREDENTIALS"
    home = environ.get("HOME") or os.path.expanduser("~")
    config = environ.get("CLOUDSDK_CONFIG") or os.path.join(home, ".config", "gcloud")
    return os.path.join(config, "application_default_credentials.json"), "gcloud's application-default login"


def _text(info: Mapping[str, Any], name: str) -> str | None:
    value = info.get(name)
    return value if isinstance(value, str) and value else None


def read_adc(environ: Mapping[str, str]) -> tuple[Adc, dict[str, Any]]:
    """The credential file and what it holds; its secrets are held for redaction from here on.
    Raises ConfigError naming the file and what is wrong with it."""
    path, source = _adc_path(environ)
    login = "run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS"
    try:
        data = read_regular(path, _FILE_MAX + 1)
    except FileNotFoundError:
        raise ConfigError(
            f"vertex: no Application Default Credentials: {path} ({source}) does not exist; {login}"
        ) from None
    except OSError as err:
        raise ConfigError(f"vertex: {path}: cannot be read: {err.strerror or err}") from None
    try:
        info = json.loads(data) if len(data) <= _FILE_MAX else None
    except (ValueError, RecursionError):
        info = None
    if not isinstance(info, dict):
        raise ConfigError(f"vertex: {path}: not a credential file (a JSON object of at most 1 MiB)")
    for name in _SECRET_FIELDS:
        if value := _text(info, name):
            hold(value)
    kind = info.get("type")
    if kind not in ADC_KINDS:
        raise ConfigError(
            f"vertex: {path}: credentials of type {json.dumps(kind)} are not taken "
            f"({' or '.join(ADC_KINDS)}; {login})"
        )
    quota = _text(info, "quota_project_id")
    return Adc(path, source, str(kind), _text(info, "project_id") or quota, quota), info


def vertex_location(environ: Mapping[str, str]) -> tuple[str, str]:
    """The location (GOOGLE_CLOUD_LOCATION, else GOOGLE_CLOUD_REGION, else global) and where it came
    from. Raises ConfigError for one that is not a location's name."""
    location, said = "global", "the default"
    for name in ("GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION"):
        if environ.get(name):
            location, said = environ[name], f"${name}"
            break
    if not _LOCATION.fullmatch(location):
        raise ConfigError(f"vertex: {said}: {json.dumps(location)} is not a location (global, us-east5, ...)")
    return location, said


def vertex_place(environ: Mapping[str, str], adc: Adc) -> Place:
    """The project (GOOGLE_CLOUD_PROJECT, else the credentials' own) and the location. Raises
    ConfigError naming the variable or file that is wrong."""
    project, project_from = environ.get("GOOGLE_CLOUD_PROJECT", ""), "$GOOGLE_CLOUD_PROJECT"
    if not project:
        project, project_from = adc.project or "", f"the credentials ({adc.path})"
    if not project:
        raise ConfigError(
            f"vertex: no project: set GOOGLE_CLOUD_PROJECT (the credentials in {adc.path} name none)"
        )
    if not _PROJECT.fullmatch(project):
        raise ConfigError(f"vertex: {project_from}: {json.dumps(project)} is not a project ID")
    location, location_from = vertex_location(environ)
    return Place(project, location, project_from, location_from, adc.quota_project)


@dataclass(frozen=True, slots=True)
class VertexSetup:
    """vertex's sign-in as found, for doctor (never a secret): the credential file and the place, as
    far as they were found, and what is wrong (None: nothing)."""

    adc: Adc | None
    place: Place | None
    error: str | None


def vertex_setup(environ: Mapping[str, str]) -> VertexSetup:
    """What vertex would sign in with here and where it would send its requests (no request made)."""
    try:
        adc, _ = read_adc(environ)
    except ConfigError as err:
        return VertexSetup(None, None, str(err))
    try:
        return VertexSetup(adc, vertex_place(environ, adc), None)
    except ConfigError as err:
        return VertexSetup(adc, None, str(err))


def vertex_base_url(location: str) -> str:
    """Vertex AI's endpoint for a location: the global one, a multi-region's, or a region's."""
    if location == "global":
        return "https://aiplatform.googleapis.com"
    if location in ("us", "eu"):
        return f"https://aiplatform.{location}.rep.googleapis.com"
    return f"https://{location}-aiplatform.googleapis.com"


def family_of(model: str) -> str | None:
    """The family a model name is of (claude, gemini), or None."""
    return next((family for prefix, family in FAMILIES.items() if model.startswith(prefix)), None)


def refused_model(provider: str, model: str) -> str | None:
    """Why `provider` cannot run `model` (vertex: a name of neither family), or None."""
    if provider != "vertex" or family_of(model) is not None:
        return None
    return f"vertex serves Claude (claude-...) and Gemini (gemini-...) models only, not {json.dumps(model)}"
