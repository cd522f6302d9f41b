"""The two probe endpoints every service answers, framework-free: GET /healthz (the process
is alive) and GET /readyz (it can serve). Each answers a JSON object whose `status` is "ok"
or "ready", with what the service says about itself beside it (`facts`); a service that
cannot serve answers /readyz 503 in the error shape. servicekit.health.fastapi and
servicekit.health.flask register them; compose healthchecks ask with servicekit.probe.
"""

from collections.abc import Callable, Mapping

HEALTHZ = "/healthz"
READYZ = "/readyz"

# What a service reports about itself on both probes (the settings in force, its engine).
Facts = Callable[[], Mapping[str, object]]


def no_facts() -> Mapping[str, object]:
    return {}


def alive(facts: Facts) -> dict[str, object]:
    return {"status": "ok", **facts()}


def ready(facts: Facts) -> dict[str, object]:
    return {"status": "ready", **facts()}
