"""Fake Application Default Credentials for vertex's tests: a service account's key file (an RSA key made
here, once per test process) and a gcloud login's file, each with its token_uri on the scripted
server (POST /token), so google-auth fetches the access token from it and nothing leaves the machine."""

from __future__ import annotations

import functools
import json
from pathlib import Path

PROJECT = "scripted-project"
LOCATION = "us-east5"
# The secrets a login's file holds (made up).
CLIENT_SECRET = "scripted-client-secret-Q19q7MQm"
REFRESH_TOKEN = "1//0scripted-refresh-token-Zq8Kx3LmNp"


@functools.cache
def private_key() -> str:
    """A 2048-bit RSA key in PKCS#8 PEM (made once: key generation is slow)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def service_account(path: Path, token_uri: str, project: str | None = PROJECT) -> Path:
    """A service account's key file at `path`, naming `project` as its own (none when None)."""
    info = {
        "type": "service_account",
        "private_key_id": "0123456789abcdef0123456789abcdef01234567",
        "private_key": private_key(),
        "client_email": "bastion-test@scripted-project.iam.gserviceaccount.com",
        "client_id": "100000000000000000001",
        "token_uri": token_uri,
    }
    if project is not None:
        info["project_id"] = project
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(info))
    return path


def authorized_user(path: Path, token_uri: str, quota_project: str | None = None) -> Path:
    """The file `gcloud auth application-default login` writes, at `path`."""
    info = {
        "type": "authorized_user",
        "client_id": "000000000000-scripted.apps.googleusercontent.com",
        "client_secret": CLIENT_SECRET,
        "refresh_token": REFRESH_TOKEN,
        "token_uri": token_uri,
    }
    if quota_project is not None:
        info["quota_project_id"] = quota_project
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(info))
    return path


def vertex_env(tmp: Path, server_url: str) -> dict[str, str]:
    """The environment a vertex run is given: a service account's key file whose token endpoint is the
    scripted server, the project the file's own, the location a region's."""
    path = service_account(tmp / "adc" / "service-account.json", server_url + "/token")
    return {
        "GOOGLE_APPLICATION_CREDENTIALS": str(path),
        "GOOGLE_CLOUD_PROJECT": "",
        "GOOGLE_CLOUD_LOCATION": LOCATION,
    }
