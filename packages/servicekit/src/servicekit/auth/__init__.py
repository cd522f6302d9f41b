"""Bearer-token access for writes: the policy, framework-free (servicekit.gate and
servicekit.auth.django answer what it decides).

A service holds one secret token (API_TOKEN, or the file API_TOKEN_FILE names: a Docker or
Kubernetes secret). A request that needs the credential must send
`Authorization: Bearer <token>`; the comparison is constant-time (hmac.compare_digest).
Writes (POST, PUT, PATCH, DELETE) always need it, reads (GET, HEAD, OPTIONS) only when
`protect_reads` is set, the probes never. With no token configured every write is refused
with a 403 that says how to configure one: no write endpoint is open by default.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

from servicekit.secretfiles import SecretConfigError, read_secret

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
SCHEME = "Bearer"


class TokenConfigError(SecretConfigError):
    """API_TOKEN and API_TOKEN_FILE are both set, or the file cannot be read."""


def read_token(token: str | None, token_file: str | Path | None) -> str | None:
    """The configured token: `token` itself, or the stripped content of `token_file`
    (servicekit.secretfiles); None when neither is set."""
    try:
        return read_secret("API_TOKEN", token, token_file)
    except SecretConfigError as error:
        raise TokenConfigError(str(error)) from None


@dataclass(frozen=True)
class Denial:
    """Why a request is refused, as the error shape's parts plus headers."""

    status: int
    code: str
    message: str
    headers: dict[str, str]


@dataclass(frozen=True)
class BearerPolicy:
    token: str | None
    protect_reads: bool = False

    def needs_credential(self, method: str, path: str) -> bool:
        if path.rstrip("/") in PROBE_PATHS:
            return False
        return self.protect_reads or method.upper() not in READ_METHODS

    def check(self, method: str, path: str, authorization: str | None) -> Denial | None:
        """None when the request may go on; otherwise the answer that refuses it."""
        if not self.needs_credential(method, path):
            return None
        if self.token is None:
            return Denial(
                403,
                "writes_disabled",
                "this server has no API token: set API_TOKEN (or API_TOKEN_FILE, a file "
                "holding it) to enable this endpoint, then send 'Authorization: Bearer <token>'",
                {},
            )
        challenge = {"WWW-Authenticate": f'{SCHEME} realm="api"'}
        if authorization is None:
            return Denial(
                401,
                "unauthorized",
                "this endpoint needs 'Authorization: Bearer <token>'",
                challenge,
            )
        scheme, _, credential = authorization.strip().partition(" ")
        if scheme.lower() != SCHEME.lower() or not _same(credential.strip(), self.token):
            return Denial(
                401,
                "invalid_token",
                "the bearer token is missing or wrong",
                {"WWW-Authenticate": f'{SCHEME} realm="api", error="invalid_token"'},
            )
        return None


def _same(given: str, expected: str) -> bool:
    # Bytes: compare_digest refuses str with non-ASCII characters.
    return hmac.compare_digest(given.encode(), expected.encode())
