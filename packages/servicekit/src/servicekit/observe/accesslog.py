"""One JSON line per request on stderr, the same shape from every service and server:

    {"ts": "2026-11-23T11:40:02.123Z", "level": "info", "logger": "access",
     "method": "GET", "route": "/objects/{object_id}", "path": "/objects/abc",
     "status": 200, "duration_ms": 1.93, "bytes": 262144, "request_id": "6f1c..."}

Standard library logging with its own handler (the servers configure the root logger each
in their own way; this logger does not propagate to it). `route` is the template, `path`
the request's path.
"""

import json
import logging
import sys
import time
from typing import Any

LOGGER = "servicekit.access"


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: the time, level, logger and the record's `fields`."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        document: dict[str, Any] = {
            "ts": f"{stamp}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name.rsplit(".", 1)[-1],
        }
        document.update(getattr(record, "fields", None) or {"message": record.getMessage()})
        return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def access_logger() -> logging.Logger:
    """The access logger, writing JSON lines to stderr (configured on first use)."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return logger


def log_request(
    logger: logging.Logger,
    *,
    method: str,
    route: str | None,
    path: str,
    status: int,
    seconds: float,
    size: int,
    request_id: str,
) -> None:
    fields = {
        "method": method,
        "route": route,
        "path": path,
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
        "bytes": size,
        "request_id": request_id,
    }
    logger.info("request", extra={"fields": fields})
