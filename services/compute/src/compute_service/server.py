"""`compute-server` (python -m compute_service.server): the Thrift server, of the kind
COMPUTE_SERVER names, made by the contract's make_server (framed transport, accelerated
binary protocol for every kind, as every client speaks)."""

from __future__ import annotations

import logging
import os
import signal
import sys
from types import FrameType

from compute_contract import make_server
from compute_service.build import BuildError, configure_logging, ensure_model
from compute_service.handler import ComputeHandler
from compute_service.pool import ConnectionPool
from compute_service.settings import Settings

log = logging.getLogger("compute.server")


def _stop_on_sigterm() -> None:
    """SIGTERM ends serve() in the main process; a forked worker just exits."""
    main_pid = os.getpid()

    def stop(signum: int, frame: FrameType | None) -> None:
        if os.getpid() != main_pid:
            os._exit(0)
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)


def main() -> int:
    configure_logging()
    settings = Settings.from_env()
    pool = ConnectionPool(
        settings.database_address(),
        settings.db_pool,
        wait_s=settings.db_wait_s,
        timeout_s=settings.db_timeout_s,
    )
    try:
        model = ensure_model(settings, pool).model
    except BuildError as error:
        log.error("%s", error)
        return 1
    # Forked workers must open their own connections, never share the parent's.
    pool.close_idle()
    handler = ComputeHandler(model, pool, max_k=settings.max_k, max_batch=settings.max_batch)
    server = make_server(
        handler,
        host=settings.host,
        port=settings.port,
        kind=settings.server,
        threads=settings.threads,
        processes=settings.processes,
    )
    _stop_on_sigterm()
    log.info(
        "%s server on %s:%d, %d sentences, %d database connections at most",
        settings.server,
        settings.host,
        settings.port,
        len(model.sentence_ids),
        settings.db_pool,
    )
    try:
        server.serve()
    except (SystemExit, KeyboardInterrupt):
        log.info("stopping")
    finally:
        pool.close_idle()
    return 0


if __name__ == "__main__":
    sys.exit(main())
