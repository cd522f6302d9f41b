"""The WSGI app: `hello_service.flask_app:app`, GET /hello as in the write-up."""

from flask import Flask, Response

from hello_service.body import BODY, CONTENT_TYPE

app = Flask(__name__)


@app.get("/hello")
def hello() -> Response:
    return Response(BODY, content_type=CONTENT_TYPE)
