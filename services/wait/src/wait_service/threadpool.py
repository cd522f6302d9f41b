"""The thread pool that runs `def` endpoints: anyio's default capacity limiter."""

import anyio.to_thread


def set_threadpool_size(size: int) -> None:
    """Let `size` sync endpoints run at once in this worker; call it on the event loop."""
    anyio.to_thread.current_default_thread_limiter().total_tokens = size


def threadpool_size() -> int:
    return int(anyio.to_thread.current_default_thread_limiter().total_tokens)
