"""The probe endpoints on FastAPI: `app.include_router(health_router(facts, check))`.
Needs the `fastapi` extra.
"""

from collections.abc import Callable

from fastapi import APIRouter

from servicekit.health import HEALTHZ, READYZ, Facts, alive, no_facts, not_ready, ready
from servicekit.openapi import error_responses


def health_router(
    facts: Facts = no_facts, check: Callable[[], str | None] | None = None
) -> APIRouter:
    """GET /healthz and GET /readyz. `check` returns None when the service can serve, else
    a short reason it cannot (/readyz answers not_ready(reason)); without one, a server that
    answers is ready (what the service needs is in place before it listens)."""
    router = APIRouter(tags=["health"])

    @router.get(HEALTHZ)
    async def healthz() -> dict[str, object]:
        """The process answers."""
        return alive(facts)

    if check is None:

        @router.get(READYZ)
        async def readyz() -> dict[str, object]:
            """Ready: the service took what it needs before the server listened."""
            return ready(facts)

    else:

        @router.get(READYZ, responses=error_responses({503: "The service cannot serve now."}))
        def checked_readyz() -> dict[str, object]:
            """Ready when the service's check passes (a `def`: a stuck disk or dependency
            holds a worker thread, not the event loop)."""
            reason = check()
            if reason is not None:
                raise not_ready(reason)
            return ready(facts)

    return router
