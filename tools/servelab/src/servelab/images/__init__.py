"""`servelab images`: the base images compose.yaml and the Dockerfiles name, pulled, or built
as stand-ins from Debian packages where the registries cannot be reached, into the private
engine (servelab.containers) the container tests use."""
