"""The body of GET /metrics: this process's metrics, or every worker's merged."""

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from servicekit.metrics.multiprocess import directory, fold_exited_processes, locked

CONTENT_TYPE = CONTENT_TYPE_LATEST


def render() -> bytes:
    """The text exposition format. Under a multi-process server the registry is built per
    call from the files of every worker (prometheus_client's documented pattern: the
    collector must not be registered in the default registry, whose values are this
    process's alone)."""
    path = directory()
    if path is None:
        return generate_latest(REGISTRY)
    with locked(path):
        fold_exited_processes(path)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, str(path))  # type: ignore[no-untyped-call]
        return generate_latest(registry)
