"""The observability settings every service reads from the environment, the same names
everywhere:

    ACCESS_LOG     1 (default): one JSON line per request on stderr; 0: none (benchmarks)
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

    @classmethod
    def from_env(cls) -> "ObserveSettings":
        access_log = _switch("ACCESS_LOG")
        metrics = _switch("METRICS")
        metrics_path = os.environ.get("METRICS_PATH", "/metrics").strip() or None
        if metrics_path is not None and not metrics_path.startswith("/"):
            raise ValueError(f"METRICS_PATH must start with /: {metrics_path!r}")
        return cls(access_log=access_log, metrics=metrics, metrics_path=metrics_path)

    @property
    def endpoint(self) -> str | None:
        """The path the app answers the exposition at: none while metrics are off."""
        return self.metrics_path if self.metrics else None


def _switch(name: str) -> bool:
    """On unless the variable says 0, false, no or off."""
    return os.environ.get(name, "1").strip().lower() not in _FALSE
