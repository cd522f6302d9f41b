"""Django's MySQL backend, where a health check that timed out ends the request, and every
wait on the server is bounded by DEADLINE seconds (deadline.py).

With CONN_HEALTH_CHECKS, a request's first query pings the worker's kept connection. Stock
Django closes a connection that fails the ping and opens a new one at once. That is right
when the ping fails fast (the server restarted, the connection was reset): the new
connection serves the request. When the ping waited out its timeout, the server is silent
(hung, or cut off by the network), and the new connection would wait as long again for a
handshake that does not come: the request would answer its 503 after both. Here a ping that
met a silent server raises the client's error instead, so the request answers after one
wait and opens the database breaker (entryeditor_service.database) for the requests behind
it.

DEADLINE in the database's settings (seconds, fractions allowed; 0 or absent: none) bounds
each query, ping and new connection below the client's whole-second timeouts.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import DatabaseError
from django.db.backends.mysql import base as mysql

from entryeditor_service.mariadb import deadline

# A ping that took this long before failing met a silent server, not a closed connection
# (which fails within milliseconds).
SILENT_S = 0.5


class DatabaseWrapper(mysql.DatabaseWrapper):
    # Django's own attribute, which its type stubs leave out.
    health_check_done: bool

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        deadline_s = float(self.settings_dict.get("DEADLINE") or 0)
        if not deadline_s:
            return super().get_new_connection(conn_params)
        return deadline.connect(conn_params, deadline_s)

    def close_if_health_check_failed(self) -> None:
        checks = self.settings_dict["CONN_HEALTH_CHECKS"]
        if self.connection is None or not checks or self.health_check_done:
            return
        started = time.monotonic()
        try:
            # Django's errors, as a query's would be: the client's code and message.
            with self.wrap_database_errors:
                self.connection.ping()
        except DatabaseError as exc:
            self.close()
            if isinstance(exc.__cause__, deadline.Silent) or (
                time.monotonic() - started >= SILENT_S
            ):
                raise
        self.health_check_done = True
