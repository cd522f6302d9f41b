"""The bytes of images in flight in one process, bounded (IMAGE_BUDGET_BYTES).

Each request reserves what its image will take, from the size its header declares, before a
pixel is decoded, and gives it back when its answer is ready. A request that does not fit
waits for others to finish, at most IMAGE_BUDGET_WAIT_S, then gets a 503 with Retry-After:
so 40 threads decoding 4999 x 4999 images at once cannot take 40 times one image's memory.
An image larger than the whole budget runs alone.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# What analyzing an image takes at its peak, per pixel: the decoder's RGBX buffer, the RGB
# array, the resized copies and the detector's inputs. Measured: 9.2 bytes per pixel at
# 4999 x 4999 for each usage (peak RSS of a warm worker, onnxruntime on the CPU), 10 with room.
BYTES_PER_PIXEL = 10


def image_cost(width: int, height: int) -> int:
    """The bytes analyzing a width x height image takes at its peak."""
    return width * height * BYTES_PER_PIXEL


class BudgetExhausted(Exception):
    """No room for this image within the wait: the service is busy, try again."""

    def __init__(self, retry_after_s: float) -> None:
        self.code = "busy"
        self.status = 503
        self.message = "too many images are being analyzed now; try again shortly"
        self.retry_after = max(1, math.ceil(retry_after_s))
        super().__init__(self.message)


class ImageBudget:
    """A byte budget shared by the threads of one process; every method is thread-safe."""

    def __init__(self, capacity: int, wait_s: float) -> None:
        self.capacity = capacity
        self.wait_s = wait_s
        self._in_use = 0
        self._waiting = 0
        self._changed = threading.Condition()

    @property
    def in_use(self) -> int:
        return self._in_use

    @property
    def waiting(self) -> int:
        """Requests waiting for room now."""
        return self._waiting

    @contextmanager
    def hold(self, cost: int) -> Iterator[None]:
        """Hold `cost` bytes of the budget (the whole budget at most) while the block runs."""
        amount = min(cost, self.capacity)
        with self._changed:
            self._waiting += 1
            try:
                admitted = self._changed.wait_for(
                    lambda: self._in_use + amount <= self.capacity, timeout=self.wait_s
                )
            finally:
                self._waiting -= 1
            if not admitted:
                raise BudgetExhausted(self.wait_s)
            self._in_use += amount
        try:
            yield
        finally:
            with self._changed:
                self._in_use -= amount
                self._changed.notify_all()
