"""Incremental SHA-256 of what passes by, and the checksum headers a client may send."""

import base64
import binascii
import contextlib
import hashlib
from dataclasses import dataclass

from starlette.datastructures import Headers

from servicekit.errors import ApiError

SHA256_SIZE = hashlib.sha256().digest_size


class Sha256Counter:
    """Hashes and counts bytes as they are written somewhere else."""

    __slots__ = ("_hash", "size")

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.size = 0

    def update(self, data: bytes | memoryview) -> None:
        self._hash.update(data)
        self.size += len(data)

    def digest(self) -> bytes:
        return self._hash.digest()

    def hexdigest(self) -> str:
        return self._hash.hexdigest()

    def summary(self) -> dict[str, int | str]:
        return {"size": self.size, "sha256": self.hexdigest()}


@dataclass(frozen=True, slots=True)
class ExpectedDigests:
    """SHA-256 digests announced by the client, checked once the body is in."""

    content: bytes | None
    """From RFC 9530 `Content-Digest: sha-256=:<base64>:`, over the request body as sent."""
    file: bytes | None
    """From `X-Checksum-SHA256: <hex>`, over the stored file's bytes."""


def expected_digests(headers: Headers) -> ExpectedDigests:
    return ExpectedDigests(
        content=_parse_content_digest(headers.get("content-digest")),
        file=_parse_hex_checksum(headers.get("x-checksum-sha256")),
    )


def check_digest(header: str, expected: bytes | None, actual: bytes) -> None:
    if expected is not None and expected != actual:
        raise ApiError(400, "checksum_mismatch", f"{header} does not match the bytes received")


def _parse_hex_checksum(value: str | None) -> bytes | None:
    if value is None:
        return None
    digest = b""
    with contextlib.suppress(ValueError):
        digest = bytes.fromhex(value.strip())
    if len(digest) != SHA256_SIZE:
        raise ApiError(400, "bad_checksum", "X-Checksum-SHA256 must be 64 hex digits")
    return digest


def _parse_content_digest(value: str | None) -> bytes | None:
    """The sha-256 member of a Content-Digest dictionary; other algorithms are ignored."""
    if value is None:
        return None
    for member in value.split(","):
        algorithm, _, item = member.partition("=")
        if algorithm.strip().lower() == "sha-256":
            return _decode_byte_sequence(item.split(";", 1)[0].strip())
    return None


def _decode_byte_sequence(item: str) -> bytes:
    """An RFC 8941 byte sequence, `:<base64>:`, that must hold a SHA-256 digest."""
    digest = b""
    if len(item) >= 2 and item[0] == item[-1] == ":":
        with contextlib.suppress(binascii.Error):
            digest = base64.b64decode(item[1:-1], validate=True)
    if len(digest) != SHA256_SIZE:
        raise ApiError(400, "bad_checksum", "Content-Digest sha-256 must be :<base64 of 32 bytes>:")
    return digest
