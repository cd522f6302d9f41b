"""Whether this process records metrics at all: METRICS (servicekit.observe.settings), on
unless 0. The services' own metrics ask `enabled()` before recording, as the request
metrics ask the middleware's settings, so METRICS=0 leaves no metric work in a request
(what the observability benchmark measures against)."""

from functools import cache

from servicekit.observe.settings import ObserveSettings


@cache
def enabled() -> bool:
    return ObserveSettings.from_env().metrics
