"""The entry editor's own metrics, beside servicekit's request metrics:

entryeditor_cache_lookups_total{outcome}      collocation lookups: local, hit, miss,
                                              wait, bypass (cache.Outcome)
entryeditor_compute_call_seconds{method, outcome}
                                              Thrift calls to the compute service:
                                              ok, error (a typed answer), unavailable
entryeditor_compute_breaker_open              1 while any live worker's breaker is
                                              open or half-open (max over workers)
entryeditor_db_connections_open               database connections held open by the
                                              live workers (entryeditor_service.dbmetrics)
entryeditor_db_connections_in_use             of those, running a query now
entryeditor_db_query_seconds                  each query's time; rate(_sum): connections
                                              busy on average
"""

from prometheus_client import Counter, Gauge, Histogram

from servicekit.metrics import multiprocess, switch

multiprocess.ensure_directory()

CACHE_LOOKUPS = Counter(
    "entryeditor_cache_lookups_total",
    "Collocation lookups, by how the cache served them.",
    ["outcome"],
)
COMPUTE_CALLS = Histogram(
    "entryeditor_compute_call_seconds",
    "Thrift calls to the compute service, by method and outcome.",
    ["method", "outcome"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
BREAKER_OPEN = Gauge(
    "entryeditor_compute_breaker_open",
    "1 while a worker's circuit breaker to compute is open or half-open.",
    multiprocess_mode="livemax",
)
DB_OPEN = Gauge(
    "entryeditor_db_connections_open",
    "Database connections the workers hold open (one per thread at most).",
    multiprocess_mode="livesum",
)
DB_IN_USE = Gauge(
    "entryeditor_db_connections_in_use",
    "Database connections running a query now.",
    multiprocess_mode="livesum",
)
DB_QUERY = Histogram(
    "entryeditor_db_query_seconds",
    "Time of each database query; the rate of its sum is the connections busy on average.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)


def cache_lookup(outcome: str) -> None:
    if switch.enabled():
        CACHE_LOOKUPS.labels(outcome).inc()


def compute_call(method: str, outcome: str, seconds: float, *, breaker_open: bool) -> None:
    """A call to compute ended: its time, and the breaker's state after it."""
    if switch.enabled():
        COMPUTE_CALLS.labels(method, outcome).observe(seconds)
        BREAKER_OPEN.set(breaker_open)
