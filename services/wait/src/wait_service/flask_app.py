"""The WSGI app: `wait_service.flask_app:app`, GET /wait with the contract of the FastAPI app.

On gunicorn sync workers each worker process serves one request at a time, so N
concurrent requests on one worker take N x WAITING_TIME.
"""

from flask import Flask

from wait_service.settings import Settings
from wait_service.work import blocking_work


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings()
    app = Flask(__name__)

    @app.get("/wait")
    def wait() -> dict[str, float]:
        return {"wait": blocking_work(settings)}

    @app.get("/healthcheck")
    def healthcheck() -> dict[str, str | float]:
        return {"status": "ok", "model": settings.model, "waiting_time": settings.waiting_time}

    return app


app = create_app()
