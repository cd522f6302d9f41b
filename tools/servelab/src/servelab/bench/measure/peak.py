"""Readings taken in a thread every interval while a load runs: `Sampler` calls `sample()`,
and `PeakWatch` keeps the highest value a reading reaches, the base of the cell's watches
(memory.MemoryWatch, dbwatch.ConnectionWatch)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Self, TypeVar

N = TypeVar("N", int, float)


class Sampler:
    """`with sampler: ...` calls `sample()` at once and then every `interval_s` from a
    thread of its own; `at_exit` samples once more as the block ends, `active=False`
    samples nothing at all (there is nothing to watch)."""

    def __init__(self, name: str, interval_s: float, *, at_exit: bool, active: bool = True) -> None:
        self._interval = interval_s
        self._at_exit = at_exit
        self._active = active
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def sample(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        if self._active:
            self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        if self._active and self._at_exit:
            self.sample()

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(self._interval):
                return


class PeakWatch(Sampler, Generic[N]):
    """`with watch: ...`, then `watch.peak`: the highest value `read` gave (None: nothing
    could be read)."""

    def __init__(
        self, name: str, interval_s: float, read: Callable[[], N | None], **sampler: bool
    ) -> None:
        super().__init__(name, interval_s, **sampler)
        self.read: Callable[[], N | None] = read
        self.peak: N | None = None

    def sample(self) -> None:
        value = self.read()
        if value is not None:
            self.peak = value if self.peak is None else max(self.peak, value)
