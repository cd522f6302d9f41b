"""The observability settings every service reads from the environment, the same names
everywhere:

    ACCESS_LOG     1 (default): one JSON line per request on stderr; 0: none (benchmarks)
    ACCESS_LOG_FLUSH_S
                   how long a line may wait to be written with others (default 1, as
                   nginx's flush=1s); 0: each line at once
    METRICS        1 (default): Prometheus metrics recorded and answered at METRICS_PATH;
                   0: none recorded, no endpoint (benchmarks measuring what metrics cost)
    METRICS_PATH   where the app answers Prometheus (default /metrics); empty: nowhere
"""

import os
from dataclasses import dataclass

_FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class ObserveSettings:
    access_log: bool = True
    metrics: bool = True
    metrics_path: str | None = "/metrics"
    access_log_flush_s: float = 1.0

    @classmethod
    def from_env(cls) -> "ObserveSettings":
        access_log = _switch("ACCESS_LOG")
        metrics = _switch("METRICS")
        metrics_path = os.environ.get("METRICS_PATH", "/metrics").strip() or None
        if metrics_path is not None and not metrics_path.startswith("/"):
            raise ValueError(f"METRICS_PATH must start with /: {metrics_path!r}")
        flush_s = float(os.environ.get("ACCESS_LOG_FLUSH_S", "1"))
        if flush_s < 0:
            raise ValueError(f"ACCESS_LOG_FLUSH_S must be 0 or more: {flush_s!r}")
        return cls(
            access_log=access_log,
            metrics=metrics,
            metrics_path=metrics_path,
            access_log_flush_s=flush_s,
        )

    @property
    def endpoint(self) -> str | None:
        """The path the app answers the exposition at: none while metrics are off."""
        return self.metrics_path if self.metrics else None


def _switch(name: str) -> bool:
    """On unless the variable says 0, false, no or off."""
    return os.environ.get(name, "1").strip().lower() not in _FALSE
