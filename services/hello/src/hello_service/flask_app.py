"""The WSGI app: `hello_service.flask_app:app`, GET /hello as in the write-up, and the probes."""

from flask import Flask, Response

from hello_service.body import BODY, CONTENT_TYPE
from hello_service.health import ALIVE, HEALTHZ, READY, READYZ
from servicekit.flask import install_error_handlers
from servicekit.observe.flask import install as observe

app = Flask(__name__)
install_error_handlers(app)
observe(app)


@app.get("/hello")
def hello() -> Response:
    return Response(BODY, content_type=CONTENT_TYPE)


@app.get(HEALTHZ)
def healthz() -> dict[str, str]:
    return ALIVE


@app.get(READYZ)
def readyz() -> dict[str, str]:
    return READY
