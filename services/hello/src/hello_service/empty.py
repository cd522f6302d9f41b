"""Apps with no framework at all, for the physical-limit row of the hello benchmark.

`hello_service.empty:wsgi` and `hello_service.empty:asgi` answer every request with the
hello bytes, so a server running them shows what that server costs on its own.
"""

from floor_apps import asgi_app, wsgi_app

from hello_service.body import BODY, CONTENT_TYPE

wsgi = wsgi_app(BODY, CONTENT_TYPE)
asgi = asgi_app(BODY, CONTENT_TYPE)
