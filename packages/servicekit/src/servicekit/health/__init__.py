"""The two probe endpoints every service answers, framework-free: GET /healthz (the process
is alive) and GET /readyz (it can serve). Each answers a JSON object whose `status` is "ok"
or "ready", with what the service says about itself beside it (`facts`); a service that
cannot serve answers /readyz with not_ready(reason): 503 not_ready in the error shape, with
Retry-After, its message a short reason in the service's own words (a driver's text, which
names addresses and internals, goes to the log). servicekit.health.fastapi and
servicekit.health.flask register them; compose healthchecks ask with servicekit.probe.
"""

from collections.abc import Callable, Mapping

from servicekit.errors import ApiError

HEALTHZ = "/healthz"
READYZ = "/readyz"
# Seconds a client (a load balancer, a deploy tool) waits before asking /readyz again.
RETRY_AFTER_S = 1

# What a service reports about itself on both probes (the settings in force, its engine).
Facts = Callable[[], Mapping[str, object]]


def no_facts() -> Mapping[str, object]:
    return {}


def alive(facts: Facts) -> dict[str, object]:
    return {"status": "ok", **facts()}


def ready(facts: Facts) -> dict[str, object]:
    return {"status": "ready", **facts()}


def not_ready(reason: str) -> ApiError:
    """The answer to /readyz when the service cannot serve, `reason` saying why."""
    return ApiError(503, "not_ready", reason, headers={"Retry-After": str(RETRY_AFTER_S)})
