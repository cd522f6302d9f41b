"""Stream a process's output with a service-name prefix, keeping a tail for error messages."""

from __future__ import annotations

import threading
from collections import deque
from typing import IO, Protocol


class Sink(Protocol):
    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


class LogPump:
    """Reads lines from `stream` in a thread and writes them to `sink` as `prefix | line`."""

    def __init__(self, prefix: str, stream: IO[bytes], sink: Sink | None, tail: int = 40) -> None:
        self.prefix = prefix
        self._stream = stream
        self._sink = sink
        self._lock = threading.Lock()
        self._tail: deque[str] = deque(maxlen=tail)
        self._thread = threading.Thread(target=self._run, name=f"log-{prefix.strip()}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for raw in iter(self._stream.readline, b""):
            line = raw.decode(errors="replace").rstrip("\n")
            with self._lock:
                self._tail.append(line)
            if self._sink is not None:
                self._sink.write(f"{self.prefix} | {line}\n")
                self._sink.flush()
        self._stream.close()

    def tail(self) -> str:
        with self._lock:
            return "\n".join(self._tail)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
