"""The probe endpoints on Flask: install(app, facts). Needs the `flask` extra."""

from flask import Flask

from servicekit.health import HEALTHZ, READYZ, Facts, alive, no_facts, ready


def install(app: Flask, facts: Facts = no_facts) -> None:
    """GET /healthz and GET /readyz; a Flask app here needs nothing to be ready."""
    app.add_url_rule(HEALTHZ, "healthz", lambda: alive(facts))
    app.add_url_rule(READYZ, "readyz", lambda: ready(facts))
