"""The project's configuration (cookiecutter-django's layout): `environment` reads the
environment once into one typed object, `settings` turns it into Django's settings,
`urls` is the root URLconf, `wsgi` the WSGI application."""
