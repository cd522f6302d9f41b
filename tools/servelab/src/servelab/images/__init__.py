"""`servelab images`: the base images compose.yaml and the Dockerfiles name, pulled, or built
as stand-ins from Debian packages where the registries cannot be reached, into the engine the
docker command line points at (or servelab's private engine, the container tests'), and what
that engine needs from compose.yaml's variables."""
