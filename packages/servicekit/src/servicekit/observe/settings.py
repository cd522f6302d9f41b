"""The observability settings every service reads from the environment, the same names
everywhere:

    ACCESS_LOG     1 (default): one JSON line per request on stderr; 0: none (benchmarks)
    METRICS_PATH   where the app answers Prometheus (default /metrics); empty: nowhere
"""

import os
from dataclasses import dataclass

_FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class ObserveSettings:
    access_log: bool = True
    metrics_path: str | None = "/metrics"

    @classmethod
    def from_env(cls) -> "ObserveSettings":
        access_log = os.environ.get("ACCESS_LOG", "1").strip().lower() not in _FALSE
        metrics_path = os.environ.get("METRICS_PATH", "/metrics").strip() or None
        if metrics_path is not None and not metrics_path.startswith("/"):
            raise ValueError(f"METRICS_PATH must start with /: {metrics_path!r}")
        return cls(access_log=access_log, metrics_path=metrics_path)
