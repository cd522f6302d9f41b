"""The WSGI app: `hello_service.flask_app:app`, GET /hello as in the write-up, and the probes
(ready as soon as the process answers: a hello app has nothing to wait for)."""

from flask import Flask, Response

from hello_service.body import BODY, CONTENT_TYPE
from servicekit.errors.flask import install_error_handlers
from servicekit.health.flask import install as install_health
from servicekit.observe.flask import install as observe

app = Flask(__name__)
install_error_handlers(app)
observe(app)


@app.get("/hello")
def hello() -> Response:
    return Response(BODY, content_type=CONTENT_TYPE)


install_health(app)
