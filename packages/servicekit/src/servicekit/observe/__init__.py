"""What every request passes through: its request id, its metrics and its access log line.

`asgi.ObserveMiddleware` (FastAPI) and `wsgi.ObserveMiddleware` (Flask, Django) do the
same three things and answer GET /metrics; `flask.install` and `django.RouteMiddleware`
tell the WSGI one which route matched. Settings come from the environment (`settings`).
"""
