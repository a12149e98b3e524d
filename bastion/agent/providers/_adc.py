"""vertex's access token: Application Default Credentials (_google.read_adc) made into a token by
google-auth, over bastion's own HTTP client (its transport, its time bounds, no `requests`). The token
is held in memory only and held for redaction, fetched the first time a request needs it, again
before it expires (google-auth's margin) and when the server refuses it (a 401 or 403 is answered
once more with a new one, as a key command's key is). It is never put in any environment."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..._safe import hold
from ..runtime import Failure, ModelError
from ._google import Adc
from ._keys import NoKey

if TYPE_CHECKING:
    import httpx2

__all__ = ["AdcToken"]

_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_TIMEOUT = 30.0
_SIGN_IN = "sign in again (gcloud auth application-default login), or check GOOGLE_APPLICATION_CREDENTIALS"


def _say_nothing(text: str) -> None:
    pass


class _Response:
    """google.auth.transport.Response: what google-auth reads of an answer."""

    def __init__(self, status: int, headers: Mapping[str, str], data: bytes) -> None:
        self.status = status
        self.headers = headers
        self.data = data


class _Request:
    """google.auth.transport.Request over an httpx2 client: how google-auth reaches the token endpoint."""

    def __init__(self, client: httpx2.Client) -> None:
        self._client = client

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _Response:
        import httpx2
        from google.auth import exceptions

        try:
            response = self._client.request(
                method, url, content=body, headers=dict(headers or {}), timeout=timeout or _TIMEOUT
            )
        except httpx2.HTTPError as err:
            failed: Any = exceptions.TransportError  # google-auth's functions are not annotated
            raise failed(f"{type(err).__name__}: {err}") from err
        return _Response(response.status_code, dict(response.headers), response.content)


class AdcToken:
    """The access token of one credential file (a Key: see _keys.py)."""

    def __init__(self, adc: Adc, info: Mapping[str, Any], http: Callable[[], httpx2.Client]) -> None:
        self.provider = "vertex"
        self.adc = adc
        self.on_wait: Callable[[str], None] = _say_nothing
        self._info = dict(info)
        self._http = http
        self._lock = threading.Lock()
        self._credentials: Any = None

    @property
    def refreshable(self) -> bool:
        return True

    def get(self) -> str:
        with self._lock:
            credentials = self._made()
            if not credentials.valid:  # none yet, or expiring within google-auth's margin
                return self._fetch(credentials)
            return str(credentials.token)

    def refresh(self) -> str:
        with self._lock:
            return self._fetch(self._made())

    def _failed(self, why: str) -> NoKey:
        return NoKey(f"authentication failed: vertex: {self.adc.path} ({self.adc.source}): {why}; {_SIGN_IN}")

    def _made(self) -> Any:
        """The credentials the file describes (google-auth is imported here, the first time)."""
        if self._credentials is None:
            try:
                make: Any  # google-auth's functions are not annotated
                if self.adc.kind == "service_account":
                    from google.oauth2 import service_account

                    make = service_account.Credentials.from_service_account_info
                else:
                    from google.oauth2 import credentials

                    make = credentials.Credentials.from_authorized_user_info
                self._credentials = make(self._info, scopes=[_SCOPE])
            except (ValueError, KeyError, TypeError) as err:  # a field missing or malformed
                raise self._failed(f"not usable credentials ({err})") from None
        return self._credentials

    def _fetch(self, credentials: Any) -> str:
        from google.auth import exceptions

        try:
            credentials.refresh(_Request(self._http()))
        except exceptions.RefreshError as err:
            raise self._failed(f"no access token: {err}") from None
        except exceptions.TransportError as err:
            raise ModelError(
                f"vertex: the token endpoint could not be reached ({err})", Failure.NETWORK, retryable=True
            ) from None
        except (ValueError, TypeError) as err:  # a key that does not sign, an answer not understood
            raise self._failed(f"no access token: {err}") from None
        token = credentials.token
        if not isinstance(token, str) or not token:
            raise self._failed("the token endpoint answered no access token")
        hold(token)
        for secret in (getattr(credentials, "refresh_token", None),):  # a login's, which may be replaced
            if isinstance(secret, str):
                hold(secret)
        return token
