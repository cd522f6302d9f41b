"""The WSGI app: `wait_service.flask_app:app`, GET /wait with the contract of the FastAPI app.

On gunicorn sync workers each worker process serves one request at a time, so N
concurrent requests on one worker take N x WAITING_TIME.
"""

from flask import Flask

from servicekit.flask import install_error_handlers
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

    def health(status: str) -> dict[str, str | float]:
        return {"status": status, "model": settings.model, "waiting_time": settings.waiting_time}

    @app.get("/healthz")
    def healthz() -> dict[str, str | float]:
        """The process answers, with the settings in force."""
        return health("ok")

    @app.get("/readyz")
    def readyz() -> dict[str, str | float]:
        """Ready as soon as it answers: the app needs nothing else."""
        return health("ready")

    return app


app = create_app()
