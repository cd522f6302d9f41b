from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from servelab.project import Project
from servelab.stack.compose import ComposeError, load_project, parse_duration


def test_profile_selects_services_and_interpolates_from_env(
    compose_dir: Callable[[str], Path],
) -> None:
    directory = compose_dir(
        """
        services:
          web:
            profiles: [uvicorn]
            build: .
            command: uvicorn app:app --workers ${WEB_CONCURRENCY:-1}
            environment:
              PORT: "8000"
            healthcheck:
              test: ["CMD-SHELL", "check $${PORT}"]
              interval: 1m30s
            volumes: [data:/data]
            x-local:
              port: PORT
              environment: {STORAGE: "{volume:data}"}
          other:
            profiles: [gunicorn]
            image: nginx:1.27
        volumes:
          data:
        """
    )
    loaded = load_project(Project(directory), ["uvicorn"], {"WEB_CONCURRENCY": "3"})
    assert list(loaded.services) == ["web"]
    web = loaded.services["web"]
    assert web.command == ("uvicorn", "app:app", "--workers", "3")
    assert web.healthcheck is not None
    assert web.healthcheck.argv == ["/bin/sh", "-c", "check ${PORT}"]
    assert web.healthcheck.interval == 90.0
    assert web.local.port_env == "PORT"
    assert web.local.environment == {"STORAGE": "{volume:data}"}
    assert web.profiles == ("uvicorn",)
    assert loaded.volumes == ("data",)


def test_closure_orders_dependencies_first(compose_dir: Callable[[str], Path]) -> None:
    directory = compose_dir(
        """
        services:
          proxy:
            image: nginx:1.27
            depends_on:
              app: {condition: service_healthy}
          app:
            build: .
            command: ["run"]
        """
    )
    loaded = load_project(Project(directory), [])
    assert loaded.closure(["proxy"]) == ["app", "proxy"]
    assert loaded.services["proxy"].depends_on == {"app": "service_healthy"}
    assert loaded.services["proxy"].infrastructure == "nginx"
    with pytest.raises(ComposeError, match="not in the selected profile"):
        loaded.closure(["missing"])


def test_a_built_image_runs_locally_as_the_image_it_derives_from(
    compose_dir: Callable[[str], Path],
) -> None:
    directory = compose_dir(
        """
        services:
          site:
            build: .
            image: example/site
            x-local: {runs: nginx}
          app:
            build: .
            command: ["run"]
        """
    )
    loaded = load_project(Project(directory), [])
    assert loaded.services["site"].infrastructure == "nginx"
    assert loaded.services["app"].infrastructure is None


def test_invalid_compose_file_is_a_clear_error(compose_dir: Callable[[str], Path]) -> None:
    directory = compose_dir("services:\n  web:\n    image: x\n    depends_on: [missing]\n")
    with pytest.raises(ComposeError, match="docker-compose config failed"):
        load_project(Project(directory), [])


@pytest.mark.parametrize(
    ("text", "seconds"), [("2s", 2.0), ("500ms", 0.5), ("1m30s", 90.0), ("1h", 3600.0)]
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text, 0.0) == seconds


def test_bad_duration_is_rejected() -> None:
    with pytest.raises(ComposeError):
        parse_duration("2 seconds", 0.0)


@pytest.mark.heavy  # one docker-compose config per profile
def test_repository_compose_file_is_valid(project_root: Path) -> None:
    for profile in ("uvicorn", "gunicorn", "granian", "nginx", "reference", "replicas"):
        services = load_project(Project(project_root), [profile]).services
        assert services, profile
        needed = {d: c for s in services.values() for d, c in s.depends_on.items()}
        for service in services.values():
            if needed.get(service.name) == "service_completed_successfully":
                continue  # a one-shot service: it runs to completion
            assert service.healthcheck is not None, service.name
            # A port of its own, the machine's server, or a unix socket behind another service.
            reached = service.local.port_env or service.local.server or service.name in needed
            assert reached, service.name


def test_the_replicas_profile_scales_one_worker_servers_behind_nginx(project_root: Path) -> None:
    """REPLICAS one-worker uvicorn processes per family, and an nginx whose upstream is
    their service name under Docker and each replica's port in a local run."""
    services = load_project(Project(project_root), ["replicas"], {"REPLICAS": "3"}).services
    fronts = {name: s for name, s in services.items() if s.infrastructure == "nginx"}
    assert sorted(fronts) == ["files-replicas", "health-code-replicas", "hello-replicas"]
    for name, front in fronts.items():
        replica = name.removesuffix("s")
        assert services[replica].replicas == 3
        assert "--workers 1" in " ".join(services[replica].command)
        assert front.depends_on == {replica: "service_healthy"}
        assert front.environment["REPLICAS_UPSTREAM"] == f"{replica}:8000"
        assert front.local.environment["REPLICAS_UPSTREAM"] == f"127.0.0.1:{{port:{replica}}}"


def test_each_service_carries_its_recipes_memory_limit_in_bytes(project_root: Path) -> None:
    services = load_project(
        Project(project_root),
        ["health-code-replicas", "entryeditor-uwsgi"],
        {"HEALTH_CODE_MEMORY": "2g"},
    ).services
    assert services["health-code-replica"].memory_limit == 2 << 30
    assert services["health-code-replicas"].memory_limit == 128 << 20
    assert services["entryeditor-uwsgi"].memory_limit == 512 << 20
    assert services["entryeditor-init"].memory_limit is None
