"""Stopping a command cleanly on Ctrl-C, SIGTERM or SIGHUP.

The first of those signals raises KeyboardInterrupt in the main thread, so the stacks a
command started stop on the way out (their `with` blocks); later ones are ignored until the
command ends, so that a second Ctrl-C, or a terminal that sends SIGINT to both `uv run` and
the Python under it, cannot cut that stopping short (every stop is bounded by its grace
period). The handlers are installed whatever the command inherited: a shell starts a
background job with SIGINT ignored, and Python would leave it ignored.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    for each in STOP_SIGNALS:
        signal.signal(each, signal.SIG_IGN)
    raise KeyboardInterrupt


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, a stop signal raises KeyboardInterrupt once; the handlers before
    it come back afterwards. Outside the main thread (where no handler can be set) a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    for signum in STOP_SIGNALS:
        signal.signal(signum, _interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
