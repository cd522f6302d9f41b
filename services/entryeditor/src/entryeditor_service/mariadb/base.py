"""Django's MySQL backend, where a health check that timed out ends the request.

With CONN_HEALTH_CHECKS, a request's first query pings the worker's kept connection. Stock
Django closes a connection that fails the ping and opens a new one at once. That is right
when the ping fails fast (the server restarted, the connection was reset): the new
connection serves the request. When the ping waited out DB_READ_TIMEOUT, the server is
silent (hung, or cut off by the network), and the new connection would wait
DB_CONNECT_TIMEOUT more for a handshake that does not come: the request would answer its 503
after both timeouts. Here a ping that failed after SILENT_S raises the client's error
instead, so the request answers after the read timeout alone and opens the database breaker
(entryeditor_service.database) for the requests behind it.
"""

from __future__ import annotations

import time

from django.db import DatabaseError
from django.db.backends.mysql import base as mysql

# A ping that took this long before failing met a silent server, not a closed connection
# (which fails within milliseconds); DB_READ_TIMEOUT is whole seconds, at least 1.
SILENT_S = 0.5


class DatabaseWrapper(mysql.DatabaseWrapper):
    # Django's own attribute, which its type stubs leave out.
    health_check_done: bool

    def close_if_health_check_failed(self) -> None:
        checks = self.settings_dict["CONN_HEALTH_CHECKS"]
        if self.connection is None or not checks or self.health_check_done:
            return
        started = time.monotonic()
        try:
            # Django's errors, as a query's would be: the client's code and message.
            with self.wrap_database_errors:
                self.connection.ping()
        except DatabaseError:
            self.close()
            if time.monotonic() - started >= SILENT_S:
                raise
        self.health_check_done = True
