"""The files service's objects as a client sees them: stored before a drill, read back
byte for byte after it, and uploads held in flight while the runner acts."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx2

SEED_BYTES = 64 * 1024
CHUNK = 64 * 1024


def _client(url: str, token: str) -> httpx2.Client:
    return httpx2.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def seed(url: str, token: str, count: int) -> dict[str, str]:
    """Store `count` objects of random bytes; their ids with their SHA-256."""
    stored = {}
    with _client(url, token) as client:
        for index in range(count):
            body = os.urandom(SEED_BYTES + index)
            answer = client.post(
                "/files",
                content=body,
                params={"filename": f"seed-{index}.bin"},
                headers={"content-type": "application/octet-stream"},
            )
            answer.raise_for_status()
            stored[answer.json()["id"]] = hashlib.sha256(body).hexdigest()
    return stored


def missing(url: str, token: str, stored: dict[str, str]) -> list[str]:
    """The stored objects that no longer come back byte for byte."""
    with _client(url, token) as client:
        return [
            object_id
            for object_id, sha256 in stored.items()
            for answer in [client.get(f"/files/{object_id}")]
            if answer.status_code != 200 or hashlib.sha256(answer.content).hexdigest() != sha256
        ]


@dataclass
class InFlight:
    """Uploads of `size` bytes sent slowly (a chunk every `pause_s`), so that they are
    still in flight when the runner acts; each one's outcome: its status, or the error."""

    url: str
    token: str
    size: int
    pause_s: float = 0.05
    outcomes: list[str] = field(default_factory=list)
    _threads: list[threading.Thread] = field(default_factory=list)

    def _body(self) -> Iterator[bytes]:
        sent = 0
        while sent < self.size:
            chunk = os.urandom(min(CHUNK, self.size - sent))
            sent += len(chunk)
            yield chunk
            time.sleep(self.pause_s)

    def _send(self, index: int) -> None:
        try:
            with _client(self.url, self.token) as client:
                answer = client.post(
                    "/files",
                    content=self._body(),
                    params={"filename": f"in-flight-{index}.bin"},
                    headers={
                        "content-type": "application/octet-stream",
                        "content-length": str(self.size),
                    },
                )
            self.outcomes.append(str(answer.status_code))
        except httpx2.HTTPError as error:
            self.outcomes.append(type(error).__name__)

    def start(self, count: int) -> None:
        for index in range(count):
            thread = threading.Thread(target=self._send, args=(index,))
            thread.start()
            self._threads.append(thread)

    def join(self, timeout_s: float) -> None:
        for thread in self._threads:
            thread.join(timeout_s)


@dataclass(frozen=True)
class Entry:
    word: str
    version: int
    updated_at: str


def entries(url: str) -> dict[str, Entry]:
    """Every entry of the entry editor by id: its word, version and last change."""
    found: dict[str, Entry] = {}
    with httpx2.Client(base_url=url, timeout=30) as client:
        page: str | None = "/entryeditor/entryeditor/?page_size=100"
        while page:
            answer = client.get(page)
            answer.raise_for_status()
            listed = answer.json()
            for entry in listed["results"]:
                found[str(entry["id"])] = Entry(
                    entry["word"], int(entry["version"]), entry["updated_at"]
                )
            page = listed["next"]
    return found


def compare_entries(before: dict[str, Entry], after: dict[str, Entry]) -> dict[str, int]:
    """How the entries listed before fared: the same; written again over what was there (a
    later version: the database kept them, something wrote them since); created anew (an
    earlier or equal version, changed: what was there is gone); missing."""
    fared = {"same": 0, "written again": 0, "created anew": 0, "missing": 0}
    for key, entry in before.items():
        now = after.get(key)
        if now is None:
            fared["missing"] += 1
        elif now == entry:
            fared["same"] += 1
        elif now.version > entry.version:
            fared["written again"] += 1
        else:
            fared["created anew"] += 1
    return fared
