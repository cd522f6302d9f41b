"""The probes every hello app answers beside /hello: GET /healthz and GET /readyz.

A hello app has nothing to wait for, so both answer as soon as the process does.
Matching the benchmarked /hello costs what it did without them: Starlette tries routes
in order and /hello comes first; werkzeug matches segment by segment.
"""

HEALTHZ = "/healthz"
READYZ = "/readyz"
ALIVE: dict[str, str] = {"status": "ok"}
READY: dict[str, str] = {"status": "ready"}
