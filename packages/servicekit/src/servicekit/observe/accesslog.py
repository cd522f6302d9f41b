"""One JSON line per request on stderr, the same shape from every service and server:

    {"ts": "2026-11-23T11:40:02.123Z", "level": "info", "logger": "access",
     "method": "GET", "route": "/objects/{object_id}", "path": "/objects/abc",
     "status": 200, "duration_ms": 1.93, "bytes": 262144, "request_id": "6f1c..."}

`route` is the template, `path` the request's path. The lines are written the way nginx's
`access_log ... buffer=64k flush=1s` writes its own: gathered in memory and written in one
call by a thread of each process, once 64 KiB have gathered or a second after the oldest
waiting line, and when the worker stops: at the ASGI lifespan's shutdown (uvicorn re-raises
SIGTERM once it has drained, so no exit hook of the process runs), at the end of a
multiprocessing worker (granian) and at interpreter exit (gunicorn, Tornado). uWSGI's
workers leave without Python's exit hooks, so its recipes write each line at once. A
line then costs its JSON encoding, not a write to a pipe per request, which for the
cheapest requests cost a third of the request (docs/observability.md has the figures), and
no request waits on the pipe: a full 64 KiB wakes the thread rather than being written by
the request that filled it (a pipe whose reader is behind blocked that write, and the event
loop with it). Only once 1 MiB waits, the reader that far behind, does a request write the
lines itself, so that what waits stays bounded.
ACCESS_LOG_FLUSH_S=0 writes each line at once; a process killed with SIGKILL loses at
most the last second's lines.

Not the standard library's `logging`: the servers configure its root logger each in their
own way, and a record through it costs as much again as the line.
"""

import atexit
import os
import sys
import threading
import time
from json.encoder import encode_basestring
from multiprocessing import util
from typing import TextIO

# Written in one call once this much has gathered (nginx's buffer=).
BUFFER_BYTES = 64 * 1024
# The most that waits while the thread writes: beyond it a request writes the lines itself.
HOLD_BYTES = 16 * BUFFER_BYTES


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
    """The JSON line (with its newline) for one request answered at `now` (epoch s).

    One template filled at once, each string through the JSON encoder's C escaping, the
    date formatted once a second: a dict through json.dumps and strftime on every line took
    11 µs a line, an f-string of the fields 3.9, this 2.7 (the 2-CPU development VM)."""
    now = time.time() if now is None else now
    return _LINE % (
        _second(int(now)),
        int(now * 1000) % 1000,
        _string(method),
        "null" if route is None else _string(route),
        _string(path),
        status,
        seconds * 1000,
        size,
        _string(request_id),
    )


_LINE = (
    '{"ts":"%s.%03dZ","level":"info","logger":"access","method":%s,"route":%s,"path":%s,'
    '"status":%d,"duration_ms":%.3f,"bytes":%d,"request_id":%s}\n'
)
_string = encode_basestring
_stamp: tuple[int, str] = (-1, "")


def _second(epoch: int) -> str:
    """The line's date to the second, formatted once a second."""
    global _stamp
    second, text = _stamp
    if second != epoch:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch))
        _stamp = (epoch, text)
    return text


class AccessLog:
    """Lines to a text stream (stderr by default, looked up at each write), gathered and
    written together every `flush_s` seconds, or at once where `flush_s` is 0."""

    def __init__(self, flush_s: float, stream: TextIO | None = None) -> None:
        self.flush_s = flush_s
        self._stream = stream
        self._lock = threading.Lock()
        self._lines: list[str] = []
        self._size = 0
        self._full = threading.Event()
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
            size = self._size
            if self._flusher is None:
                self._flusher = threading.Thread(
                    target=self._flush_every, name="access-log", daemon=True
                )
                self._flusher.start()
        if size >= HOLD_BYTES:
            self.flush()
        elif size >= BUFFER_BYTES:
            self._full.set()

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
            self._full.wait(self.flush_s)
            self._full.clear()
            self.flush()

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._full = threading.Event()
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
