"""The WSGI middleware (Flask, Django): wrap the framework's WSGI callable in it.

The same as servicekit.observe.asgi for WSGI: request id, metrics, one JSON access log
line, GET /metrics. The framework adapter puts the matched route's template in the
environ under ROUTE (servicekit.observe.flask, servicekit.observe.django); the request
ends, and is counted, when the server closes the response iterable, so a streamed body is
timed to its last byte.
"""

import time
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any

from servicekit.metrics import exposition
from servicekit.observe.recorder import Recorder
from servicekit.observe.requestid import HEADER, current, request_id
from servicekit.observe.settings import ObserveSettings

Environ = dict[str, Any]
ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]
StartResponse = Callable[..., Callable[[bytes], object]]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]

# The environ keys the middleware reads and sets.
ROUTE = "servicekit.route"
REQUEST_ID = "servicekit.request_id"


class ObserveMiddleware:
    def __init__(self, app: WSGIApp, settings: ObserveSettings | None = None) -> None:
        self.app = app
        self.settings = settings or ObserveSettings.from_env()
        self._recorder = Recorder(self.settings)

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == self.settings.endpoint:
            metrics = exposition.render()
            start_response(
                "200 OK",
                [("Content-Type", exposition.CONTENT_TYPE), ("Content-Length", str(len(metrics)))],
            )
            return [metrics]
        rid = request_id(environ.get("HTTP_X_REQUEST_ID"))
        environ[REQUEST_ID] = rid
        exchange = _Exchange(self._recorder, environ, rid)

        def observed_start_response(
            status: str, headers: list[tuple[str, str]], exc_info: ExcInfo | None = None
        ) -> Callable[[bytes], object]:
            exchange.status = int(status[:3])
            headers.append((HEADER, rid))
            return start_response(status, headers, exc_info)

        self._recorder.begin()
        token = current.set(rid)
        try:
            body = self.app(environ, observed_start_response)
        except BaseException:
            exchange.finish()
            raise
        finally:
            current.reset(token)
        return _ObservedBody(body, exchange)


class _Exchange:
    """One request's state until its body is closed."""

    def __init__(self, recorder: Recorder, environ: Environ, rid: str) -> None:
        self.recorder = recorder
        self.environ = environ
        self.request_id = rid
        self.status = 500
        self.size = 0
        self.started = time.perf_counter()
        self.started_ns = time.time_ns() if recorder.tracing else 0
        self.finished = False

    def finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.recorder.finish(
            method=self.environ.get("REQUEST_METHOD", ""),
            route=self.environ.get(ROUTE),
            path=self.environ.get("PATH_INFO", ""),
            status=self.status,
            seconds=time.perf_counter() - self.started,
            size=self.size,
            request_id=self.request_id,
            started_ns=self.started_ns,
            carrier=_carrier(self.environ) if self.recorder.tracing else None,
        )


def _carrier(environ: Environ) -> dict[str, str]:
    """The request's headers under their lower-case names (traceparent, tracestate)."""
    return {
        key[5:].lower().replace("_", "-"): value
        for key, value in environ.items()
        if key.startswith("HTTP_") and isinstance(value, str)
    }


class _ObservedBody:
    """The app's response iterable, counting its bytes; closing it ends the request."""

    def __init__(self, body: Iterable[bytes], exchange: _Exchange) -> None:
        self._body = body
        self._exchange = exchange

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            self._exchange.size += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._exchange.finish()
