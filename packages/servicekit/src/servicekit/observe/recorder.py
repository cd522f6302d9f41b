"""What both middlewares do when a request ends: count it and log it."""

from servicekit.metrics import http
from servicekit.observe.accesslog import access_logger, log_request
from servicekit.observe.settings import ObserveSettings


class Recorder:
    def __init__(self, settings: ObserveSettings) -> None:
        self._logger = access_logger() if settings.access_log else None

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
    ) -> None:
        http.record(method, route, status, seconds)
        if self._logger is not None:
            log_request(
                self._logger,
                method=method,
                route=route,
                path=path,
                status=status,
                seconds=seconds,
                size=size,
                request_id=request_id,
            )
