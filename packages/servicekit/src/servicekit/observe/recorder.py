"""What both middlewares do when a request starts and ends: count it (unless METRICS=0),
log it (unless ACCESS_LOG=0), and trace it when tracing is on (servicekit.tracing)."""

import time
from collections.abc import Mapping

from servicekit import tracing
from servicekit.metrics import http
from servicekit.observe.accesslog import access_log, format_line
from servicekit.observe.settings import ObserveSettings


class Recorder:
    def __init__(self, settings: ObserveSettings) -> None:
        self._log = access_log(settings.access_log_flush_s) if settings.access_log else None
        self._metrics = settings.metrics
        self.tracing = tracing.ENABLED

    def begin(self) -> None:
        """A request arrived (`finish` ends it, whatever happened)."""
        if self._metrics:
            http.IN_FLIGHT.inc()

    def flush(self) -> None:
        """Write the access lines still waiting (the worker is stopping)."""
        if self._log is not None:
            self._log.flush()

    def finish(
        self,
        *,
        method: str,
        route: str | None,
        path: str,
        status: int,
        seconds: float,
        size: int,
        request_id: str,
        started_ns: int = 0,
        carrier: Mapping[str, str] | None = None,
    ) -> None:
        """`started_ns` (time.time_ns() at arrival) and `carrier` (the request's headers,
        lower-case) are needed only when `self.tracing` is on."""
        if self._metrics:
            http.IN_FLIGHT.dec()
            http.record(method, route, status, seconds)
        if self.tracing:
            tracing.record_server_span(
                method=method,
                route=route,
                path=path,
                status=status,
                started_ns=started_ns,
                ended_ns=time.time_ns(),
                request_id=request_id,
                carrier=carrier or {},
            )
        if self._log is not None:
            line = format_line(
                method=method,
                route=route,
                path=path,
                status=status,
                seconds=seconds,
                size=size,
                request_id=request_id,
            )
            self._log.write(line)
