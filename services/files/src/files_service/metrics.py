"""The files service's own metrics, beside servicekit's request metrics:

    files_bytes_stored_total              bytes of every object committed
    files_bytes_served_total{via}         bytes of whole-object downloads, sent by the app
                                          ("app") or by nginx on X-Accel-Redirect ("nginx")

HEAD, Range requests (a part of an object) and 304s are not counted as served.
"""

from prometheus_client import Counter

from servicekit.metrics import multiprocess, switch

multiprocess.ensure_directory()

STORED = Counter("files_bytes_stored_total", "Bytes of the objects committed.")
SERVED = Counter(
    "files_bytes_served_total", "Bytes of whole objects sent, by who sent them.", ["via"]
)
# The two children, looked up once: labels() checks and looks up its values on every call.
_SERVED_BY: dict[str, Counter] = {via: SERVED.labels(via) for via in ("app", "nginx")}


def stored(size: int) -> None:
    if switch.enabled():
        STORED.inc(size)


def served(size: int, *, via: str, whole: bool) -> None:
    if whole and switch.enabled():
        _SERVED_BY[via].inc(size)
