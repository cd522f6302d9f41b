"""A download racing a DELETE: an object stored, then GETs of it (whole, and `Range:
bytes=0-`) and a DELETE sent together, round after round. Each GET must bring every byte
under its 200 or 206, or be a clean JSON 404: never a status that promises the object over
a body cut short, which a client that trusts the status stores as the file."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from servelab.reliability.fuzz.judge import NOT_JSON, unanswered
from servelab.reliability.fuzz.raw import RawAnswer, exchange, request_bytes

# A user's report: 4 MiB, 4 GETs and a DELETE together; 12 of 250 GETs were 200s with no
# bytes. Big enough that the answer is still being sent when the DELETE lands.
OBJECT_BYTES = 4 * 2**20
GETS = (None, None, "bytes=0-", "bytes=0-")
ROUNDS = 10
TRUNCATED = "a short body under a status that promises the object"
WRONG_STATUS = "neither the object nor a 404"


@dataclass(frozen=True)
class RaceOutcome:
    """What `rounds` rounds of GETs racing a DELETE came to."""

    rounds: int
    gets: int
    whole: int
    not_found: int
    failures: list[str]

    @property
    def truncated(self) -> int:
        return sum(failure.endswith(TRUNCATED) for failure in self.failures)


def judge_download(answer: RawAnswer, data: bytes, http_range: str | None) -> str | None:
    """None when `answer` to a GET of `data` (whole, or `http_range`, always `bytes=0-`) is
    every byte of it or a clean JSON 404; else what was wrong."""
    if broken := unanswered(answer):
        return broken
    assert answer.status is not None
    if answer.status == 404:
        return None if answer.is_json_error() else NOT_JSON
    # A server may answer a Range with the whole object (200); never a GET with a 206.
    if answer.status not in ((200, 206) if http_range else (200,)):
        return WRONG_STATUS
    return None if answer.body == data else TRUNCATED


def race(port: int, upload: str, token: str, rounds: int = ROUNDS) -> RaceOutcome:
    """Store an object through `upload` (POST, answered with its `Location`), then send
    GETs of that location and its DELETE together, `rounds` times."""
    auth: dict[str, str | bytes] = {"Authorization": f"Bearer {token}"}
    data = os.urandom(OBJECT_BYTES)
    whole = not_found = 0
    failures: list[str] = []
    with ThreadPoolExecutor(len(GETS) + 1) as pool:
        for number in range(1, rounds + 1):
            stored = exchange(
                port,
                request_bytes(
                    "POST", upload, {**auth, "Content-Type": "application/octet-stream"}, data
                ),
            )
            location = stored.headers.get("location")
            if stored.status != 201 or location is None:
                failures.append(f"round {number}: storing answered {stored.status}")
                continue
            start = threading.Barrier(len(GETS) + 1)
            gets = [
                pool.submit(
                    _at_once, start, port, request_bytes("GET", location, {"Range": r} if r else {})
                )
                for r in GETS
            ]
            deleted = pool.submit(
                _at_once, start, port, request_bytes("DELETE", location, auth)
            ).result()
            if deleted.status != 204:
                failures.append(f"round {number}: DELETE answered {deleted.status}")
            for http_range, future in zip(GETS, gets, strict=True):
                answer = future.result()
                wrong = judge_download(answer, data, http_range)
                if wrong is None and answer.status == 404:
                    not_found += 1
                elif wrong is None:
                    whole += 1
                else:
                    shown = f"{answer.status} with {len(answer.body):,} bytes"
                    failures.append(f"GET {http_range or 'whole'} ({shown}): {wrong}")
    return RaceOutcome(rounds, rounds * len(GETS), whole, not_found, failures)


def _at_once(start: threading.Barrier, port: int, request: bytes) -> RawAnswer:
    """`request`'s answer, sent once every request of the round is ready to go."""
    start.wait()
    return exchange(port, request, max_answer=OBJECT_BYTES + 2**16)
