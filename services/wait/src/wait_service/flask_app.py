"""The WSGI app: `wait_service.flask_app:app`, GET /wait with the contract of the FastAPI app.

On gunicorn sync workers each worker process serves one request at a time, so N
concurrent requests on one worker take N x WAITING_TIME.
"""

from collections.abc import Mapping

from flask import Flask

from servicekit.errors.flask import install_error_handlers
from servicekit.health.flask import install as install_health
from servicekit.observe.flask import install as observe
from wait_service.settings import Settings
from wait_service.work import blocking_work


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings()
    app = Flask(__name__)
    install_error_handlers(app)
    observe(app)

    @app.get("/wait")
    def wait() -> dict[str, float]:
        return {"wait": blocking_work(settings)}

    def facts() -> Mapping[str, object]:
        return {"model": settings.model, "waiting_time": settings.waiting_time}

    install_health(app, facts)
    return app


app = create_app()
