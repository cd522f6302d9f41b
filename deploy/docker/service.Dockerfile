# The one Dockerfile of every servelab service. Build context: the repository root.
#
#   docker build -f deploy/docker/service.Dockerfile --build-arg SERVICE=files \
#       --build-arg COMMAND="uvicorn files_service.main:app" -t servelab/files .
#
# One file rather than one per service: the six services are built the same way (one
# workspace member and its locked dependencies into a virtual environment, then a slim
# runtime with an unprivileged user) and differ only in the arguments below. Six copies
# of the same 40 lines drifted apart and were six places to fix; the compose file of each
# family (deploy/compose/*.yaml, x-*-build) names this file with its service's arguments,
# and each service's README gives its build command.
#
#   PYTHON_IMAGE      the base image: the official one, or your registry's copy of it
#   SERVICE           services/SERVICE, the workspace member servelab-SERVICE
#   EXTRAS            its optional extras, space-separated (health-code's GPU image: torch)
#   BUILD_PACKAGES    Debian packages its dependencies compile against (sdist-only on PyPI:
#                     the entry editor's mysqlclient)
#   RUNTIME_PACKAGES  Debian libraries those link to at run time
#   STATE_DIRS        the directories it writes, owned by the app user: a new named volume
#                     mounted there inherits the owner. Everything else may be read-only.
#   COMMAND           what `docker run IMAGE` serves; compose and Kubernetes name their own
#
# BuildKit is needed for the uv cache mount (DOCKER_BUILDKIT=1 on Docker 18.09+, the
# default since 23.0); the builtin frontend has it, so no `# syntax=` line and no image to
# pull for it.
ARG PYTHON_IMAGE=python:3.12.12-slim-bookworm

# --- build: a virtual environment with this service and its locked dependencies only ---
FROM ${PYTHON_IMAGE} AS build
ARG BUILD_PACKAGES=""
# Versions come with the base image's Debian release; exact pins would break the build once
# the mirror drops a superseded version.
# hadolint ignore=DL3008
RUN if [ -n "$BUILD_PACKAGES" ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends $BUILD_PACKAGES \
        && rm -rf /var/lib/apt/lists/*; \
    fi
# uv from PyPI, the version scripts/bootstrap.sh pins: ghcr.io's uv image cannot be pulled
# everywhere PyPI can.
RUN pip install --no-cache-dir --root-user-action=ignore uv==0.13.9
ARG SERVICE
ARG EXTRAS=""
RUN test -n "$SERVICE" || { echo "--build-arg SERVICE=<a folder of services/> is required" >&2; exit 1; }
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv
WORKDIR /app
# Dependencies first, so this layer stays cached while only the service's code changes;
# --frozen installs from uv.lock without the other members' pyproject.toml files.
COPY uv.lock pyproject.toml ./
COPY services/${SERVICE}/pyproject.toml services/${SERVICE}/pyproject.toml
RUN --mount=type=cache,target=/root/.cache/uv \
    set -- ; for extra in $EXTRAS; do set -- "$@" --extra "$extra"; done \
    && uv sync --package "servelab-${SERVICE}" --frozen --no-dev --no-install-workspace "$@"
# The workspace packages it uses (servicekit, the Thrift contract) are installed with the
# service, as wheels: the environment does not point back into the build stage.
COPY packages packages
COPY services/${SERVICE} services/${SERVICE}
RUN --mount=type=cache,target=/root/.cache/uv \
    set -- ; for extra in $EXTRAS; do set -- "$@" --extra "$extra"; done \
    && uv sync --package "servelab-${SERVICE}" --frozen --no-dev --no-editable "$@"

# --- runtime: the environment, the server configs, an unprivileged user ---
FROM ${PYTHON_IMAGE}
ARG RUNTIME_PACKAGES=""
# hadolint ignore=DL3008
RUN if [ -n "$RUNTIME_PACKAGES" ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends $RUNTIME_PACKAGES \
        && rm -rf /var/lib/apt/lists/*; \
    fi
ARG STATE_DIRS=""
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --home-dir /app --no-create-home app \
    && for dir in $STATE_DIRS; do mkdir -p "$dir" && chown app:app "$dir"; done
WORKDIR /app
COPY --from=build /app/.venv /app/.venv
# The gunicorn and uWSGI configs the commands name (-c deploy/gunicorn/..., --ini ...): a
# few kilobytes, the same in every image.
COPY deploy/gunicorn deploy/gunicorn
COPY deploy/uwsgi deploy/uwsgi
ARG COMMAND="python"
# A container listens on every interface of its own network namespace: the listen address
# of each server the services run (gunicorn and uWSGI's HOST, uvicorn, granian, Thrift).
ENV PATH="/app/.venv/bin:$PATH" \
    PYTHONUNBUFFERED=1 \
    HOST=0.0.0.0 \
    UVICORN_HOST=0.0.0.0 \
    GRANIAN_HOST=0.0.0.0 \
    COMPUTE_HOST=0.0.0.0 \
    SERVICE_COMMAND=${COMMAND}
USER 10001:10001
# exec: the server, not the shell, is PID 1 and gets docker stop's SIGTERM.
CMD ["sh", "-c", "exec $SERVICE_COMMAND"]
