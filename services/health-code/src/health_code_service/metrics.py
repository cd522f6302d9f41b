"""The health-code service's own metrics, beside servicekit's request metrics:

health_code_analyses_total{usage, mode}          analysis requests with a known usage
health_code_batch_size                           items per OCR batch (batched mode)
health_code_batch_queue_wait_seconds             an item's wait from queue to its batch
"""

from prometheus_client import Counter, Histogram

from servicekit.metrics import multiprocess, switch

multiprocess.ensure_directory()

ANALYSES = Counter(
    "health_code_analyses_total", "Analysis requests, by usage and ANALYZE_MODE.", ["usage", "mode"]
)
BATCH_SIZE = Histogram(
    "health_code_batch_size", "Items per OCR batch.", buckets=(1, 2, 3, 4, 6, 8, 12, 16, 32)
)
QUEUE_WAIT = Histogram(
    "health_code_batch_queue_wait_seconds",
    "Time an item waited from its request to the start of its batch.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)


def analysis(usage: str, mode: str) -> None:
    if switch.enabled():
        ANALYSES.labels(usage, mode).inc()


def batch(waits: list[float]) -> None:
    """A batch started: its size and each item's wait in the queue."""
    if switch.enabled():
        BATCH_SIZE.observe(len(waits))
        for wait in waits:
            QUEUE_WAIT.observe(wait)
