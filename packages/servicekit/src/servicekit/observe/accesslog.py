"""One JSON line per request on stderr, the same shape from every service and server:

    {"ts": "2026-11-23T11:40:02.123Z", "level": "info", "logger": "access",
     "method": "GET", "route": "/objects/{object_id}", "path": "/objects/abc",
     "status": 200, "duration_ms": 1.93, "bytes": 262144, "request_id": "6f1c..."}

`route` is the template, `path` the request's path. The lines are written the way nginx's
`access_log ... buffer=64k flush=1s` writes its own: gathered in memory and written in one
call once 64 KiB have gathered, a second after the oldest waiting line (a thread of each
process), and when the worker stops: at the ASGI lifespan's shutdown (uvicorn re-raises
SIGTERM once it has drained, so no exit hook of the process runs), at the end of a
multiprocessing worker (granian) and at interpreter exit (gunicorn, Tornado). uWSGI's
workers leave without Python's exit hooks, so its recipes write each line at once. A
line then costs its JSON encoding, not a write to a pipe per request, which for the
cheapest requests cost a third of the request (docs/observability.md has the figures).
ACCESS_LOG_FLUSH_S=0 writes each line at once; a process killed with SIGKILL loses at
most the last second's lines.

Not the standard library's `logging`: the servers configure its root logger each in their
own way, and a record through it costs as much again as the line.
"""

import atexit
import json
import os
import sys
import threading
import time
from multiprocessing import util
from typing import TextIO

# Written in one call once this much has gathered (nginx's buffer=).
BUFFER_BYTES = 64 * 1024


def _stderr() -> TextIO:
    return sys.stderr


def format_line(
    *,
    method: str,
    route: str | None,
    path: str,
    status: int,
    seconds: float,
    size: int,
    request_id: str,
    now: float | None = None,
) -> str:
    """The JSON line (with its newline) for one request answered at `now` (epoch s)."""
    now = time.time() if now is None else now
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
    document = {
        "ts": f"{stamp}.{int(now * 1000) % 1000:03d}Z",
        "level": "info",
        "logger": "access",
        "method": method,
        "route": route,
        "path": path,
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
        "bytes": size,
        "request_id": request_id,
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


class AccessLog:
    """Lines to a text stream (stderr by default, looked up at each write), gathered and
    written together every `flush_s` seconds, or at once where `flush_s` is 0."""

    def __init__(self, flush_s: float, stream: TextIO | None = None) -> None:
        self.flush_s = flush_s
        self._stream = stream
        self._lock = threading.Lock()
        self._lines: list[str] = []
        self._size = 0
        self._flusher: threading.Thread | None = None
        # A forked worker starts empty, with a lock and a flusher of its own: the lines in
        # the parent's buffer are the parent's to write.
        os.register_at_fork(after_in_child=self._forget)
        atexit.register(self.flush)
        # A multiprocessing child leaves with os._exit, past atexit, but runs its
        # finalizers first; a forked one starts with none, so it registers its own.
        util.register_after_fork(self, AccessLog._finalize_in_child)
        util.Finalize(None, self.flush, exitpriority=0)

    def write(self, line: str) -> None:
        if self.flush_s <= 0:
            self._emit(line)
            return
        with self._lock:
            self._lines.append(line)
            self._size += len(line)
            full = self._size >= BUFFER_BYTES
            if self._flusher is None:
                self._flusher = threading.Thread(
                    target=self._flush_every, name="access-log", daemon=True
                )
                self._flusher.start()
        if full:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            lines, self._lines, self._size = self._lines, [], 0
        if lines:
            self._emit("".join(lines))

    def _emit(self, text: str) -> None:
        stream = self._stream or _stderr()
        stream.write(text)
        stream.flush()

    def _flush_every(self) -> None:
        while True:
            time.sleep(self.flush_s)
            self.flush()

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._lines, self._size, self._flusher = [], 0, None

    def _finalize_in_child(self) -> None:
        util.Finalize(None, self.flush, exitpriority=0)


_shared: AccessLog | None = None


def access_log(flush_s: float) -> AccessLog:
    """This process's access log on stderr (the first caller's `flush_s` sets it)."""
    global _shared
    if _shared is None:
        _shared = AccessLog(flush_s)
    return _shared
