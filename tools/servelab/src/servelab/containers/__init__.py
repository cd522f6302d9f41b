"""Containers for real: a private Docker engine (engine.py), the official base images or
stand-ins built from Debian packages (images.py, `servelab images`), pytest fixtures."""
