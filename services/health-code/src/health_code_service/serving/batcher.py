"""A dynamic micro-batcher in the manner of Triton's: requests that arrive close together
run as one batch, in one dedicated thread, one batch at a time.

A batch opens with the oldest waiting item and closes when it holds `max_size` items or
when that item has waited `max_wait_s` (items that queued while the previous batch ran
have already waited, so they do not wait again). `process` gets the batch's values and
returns one outcome per value, in order: a result, or an exception that fails only that
item's request. If `process` itself raises, every item of its batch fails with it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from health_code_service import metrics

T = TypeVar("T")
R = TypeVar("R")

Process = Callable[[Sequence[T]], Sequence[R | BaseException]]


@dataclass(frozen=True, slots=True)
class _Item(Generic[T, R]):
    value: T
    future: Future[R]
    queued_at: float = field(default_factory=time.monotonic)


class BatcherClosed(RuntimeError):
    """The batcher was closed before it could take the item."""


class MicroBatcher(Generic[T, R]):
    def __init__(
        self, process: Process[T, R], *, max_size: int, max_wait_s: float, name: str = "batcher"
    ) -> None:
        if max_size < 1 or max_wait_s < 0:
            raise ValueError("max_size must be at least 1 and max_wait_s not negative")
        self._process = process
        self.max_size = max_size
        self.max_wait_s = max_wait_s
        self._queue: queue.SimpleQueue[_Item[T, R] | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, value: T) -> Future[R]:
        """Queue `value` for the next batch; the future holds its outcome."""
        future: Future[R] = Future()
        with self._lock:
            if self._closed:
                raise BatcherClosed("the batcher is closed")
            self._queue.put(_Item(value, future))
        return future

    async def run(self, value: T) -> R:
        """Queue `value` and wait for its outcome; a cancelled wait drops the item from
        any batch that has not started yet."""
        return await asyncio.wrap_future(self.submit(value))

    def close(self) -> None:
        """Run what is queued, then stop the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            deadline = first.queued_at + self.max_wait_s
            while len(batch) < self.max_size:
                try:
                    item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            self._run_batch(batch)

    def _run_batch(self, batch: list[_Item[T, R]]) -> None:
        # Items whose waiter went away (a client that disconnected) leave the batch here.
        live = [item for item in batch if item.future.set_running_or_notify_cancel()]
        if not live:
            return
        started = time.monotonic()
        metrics.batch([started - item.queued_at for item in live])
        try:
            outcomes = list(self._process([item.value for item in live]))
            if len(outcomes) != len(live):
                raise RuntimeError(f"batch of {len(live)} gave {len(outcomes)} outcomes")
        except Exception as error:
            for item in live:
                item.future.set_exception(error)
            return
        for item, outcome in zip(live, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                item.future.set_exception(outcome)
            else:
                item.future.set_result(outcome)
