"""The probes every hello app answers beside /hello: GET /healthz and GET /readyz.

A hello app has nothing to wait for, so both answer as soon as the process does. The
routes are registered after /hello, so the benchmarked path matches first and costs
what it did without them.
"""

HEALTHZ = "/healthz"
READYZ = "/readyz"
ALIVE: dict[str, str] = {"status": "ok"}
READY: dict[str, str] = {"status": "ready"}
