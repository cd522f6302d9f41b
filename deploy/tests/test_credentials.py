"""No recipe holds a credential: every password and secret key comes from a file (a compose
secrets volume, a mounted Kubernetes Secret), never from a value written in a compose file,
a Kubernetes manifest, an nginx config or .env.example; no database URL names root or a
password; no database image may start with an empty root password; every Redis has users
with passwords (docs/security.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from servelab.project import Project

ROOT = Project.find(Path(__file__).parent).root
COMPOSE_FILES = [ROOT / "compose.yaml", *sorted((ROOT / "deploy" / "compose").glob("*.yaml"))]
K8S_FILES = sorted((ROOT / "deploy" / "k8s").rglob("*.yaml"))
TEXT_FILES = [
    ROOT / ".env.example",
    *sorted(p for p in (ROOT / "deploy" / "nginx").rglob("*") if p.is_file()),
]
# A variable that holds a credential itself (its *_FILE twin names a file instead).
SECRET_NAME = re.compile(r"(PASSWORD|PASSWD|SECRET_KEY|REQUIREPASS)$", re.IGNORECASE)
# user:password@ in a URL, or a credential assigned in a config or env file.
URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^\s/@:]*:[^\s/@]+@", re.IGNORECASE)
ASSIGNED = re.compile(r"^\s*#?\s*\w*(PASSWORD|SECRET_KEY)\w*\s*[=:]\s*\S", re.IGNORECASE | re.M)
# The URL variables whose user must log in with a password from a file.
URL_PASSWORD_FILE = {"DATABASE_URL": "DATABASE_PASSWORD_FILE", "REDIS_URL": "REDIS_PASSWORD_FILE"}


def interpolated(value: str) -> str:
    """A compose value as it reads with every variable at its default (unset: `x`)."""
    return re.sub(r"\$\{\w+(?::?-([^}]*))?\}", lambda m: m.group(1) or "x", value)


def problems(env: Mapping[str, str], image: str, command: list[str]) -> list[str]:
    """What is wrong with one container's settings, as the rules in the module docstring."""
    found = []
    for name, raw in env.items():
        value = interpolated(str(raw))
        if "ALLOW_EMPTY" in name.upper():
            found.append(f"{name}: an empty password allowed")
        if SECRET_NAME.search(name):
            found.append(f"{name}={raw!r}: a credential in the recipe (use {name}_FILE)")
        if "://" in value:
            url = urlsplit(value)
            if url.password:
                found.append(f"{name}: a password in the URL")
            if url.scheme in {"mysql", "mariadb", "redis", "rediss"}:
                if url.username in {None, "", "root"}:
                    found.append(f"{name}={raw!r}: connects as {url.username or 'nobody'}")
                if name in URL_PASSWORD_FILE and URL_PASSWORD_FILE[name] not in env:
                    found.append(f"{name}: no {URL_PASSWORD_FILE[name]} beside it")
    if image.split("/")[-1].startswith(("mariadb", "mysql")):
        for needed in ("MARIADB_ROOT_PASSWORD_FILE", "MARIADB_PASSWORD_FILE"):
            if needed not in env:
                found.append(f"{image}: no {needed}")
    if image.split("/")[-1].startswith("redis") and "--aclfile" not in command:
        found.append(f"{image}: redis-server without --aclfile (its users and passwords)")
    return found


def compose_containers() -> Iterator[tuple[str, dict[str, str], str, list[str]]]:
    for path in COMPOSE_FILES:
        services = (yaml.safe_load(path.read_text()) or {}).get("services") or {}
        for name, spec in services.items():
            command = spec.get("command") or []
            argv = command.split() if isinstance(command, str) else [str(c) for c in command]
            image = interpolated(str(spec.get("image", "")))
            env = {k: str(v) for k, v in (spec.get("environment") or {}).items()}
            local = (spec.get("x-local") or {}).get("environment") or {}
            yield f"{path.name}:{name}", env, image, argv
            if local:
                # The local run's settings override the container's, and are a recipe too.
                merged = {**env, **{k: str(v) for k, v in local.items()}}
                yield f"{path.name}:{name} (x-local)", merged, image, argv


def k8s_documents() -> Iterator[tuple[Path, Any]]:
    for path in K8S_FILES:
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict):
                yield path, doc


def k8s_containers() -> Iterator[tuple[str, dict[str, str], str, list[str]]]:
    """Each container of every manifest, with the variables of the ConfigMaps generated for
    it (by name: every generator's literals, as an overlay may rename none)."""
    generated: dict[str, dict[str, str]] = {}
    for _, doc in k8s_documents():
        for generator in doc.get("configMapGenerator") or []:
            literals = dict(item.split("=", 1) for item in generator.get("literals") or [])
            generated.setdefault(generator["name"], {}).update(literals)
    for path, doc in k8s_documents():
        pod = ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}
        for container in [*pod.get("containers", []), *pod.get("initContainers", [])]:
            env: dict[str, str] = {}
            for source in container.get("envFrom") or []:
                env.update(generated.get(source.get("configMapRef", {}).get("name", ""), {}))
            for variable in container.get("env") or []:
                env[variable["name"]] = str(variable.get("value", "<from a Secret>"))
            argv = [str(part) for part in container.get("command", []) + container.get("args", [])]
            where = f"{path.relative_to(ROOT)}:{doc['metadata']['name']}/{container['name']}"
            yield where, env, container.get("image", ""), argv


def test_the_rules_find_what_the_entry_editor_recipe_held_before() -> None:
    """The checks below catch the root URL, the empty root password and the open Redis."""
    old = {
        "DATABASE_URL": "mysql://root@entryeditor-mariadb:3306/${EE_DATABASE:-entryeditor}",
        "REDIS_URL": "redis://entryeditor-redis:6379/${EE_REDIS_DB:-0}",
        "SECRET_KEY": "${SECRET_KEY:-servelab-local-only-entryeditor-key}",
    }
    found = problems(old, "servelab/entryeditor", [])
    assert any("connects as root" in p for p in found), found
    assert any("connects as nobody" in p for p in found), found
    assert any(p.startswith("SECRET_KEY=") for p in found), found
    mariadb = problems({"MARIADB_ALLOW_EMPTY_ROOT_PASSWORD": "1"}, "mariadb:11", [])
    assert any("empty password" in p for p in mariadb), mariadb
    assert problems({}, "redis:7", ["redis-server", "--save", ""])
    assert URL_PASSWORD.search("DATABASE_URL=mysql://app:hunter2@db/app")
    assert ASSIGNED.search("# SECRET_KEY=servelab-local-only-entryeditor-key")


@pytest.mark.parametrize(
    ("env", "image", "command"),
    [pytest.param(*c[1:], id=c[0]) for c in [*compose_containers(), *k8s_containers()]],
)
def test_no_container_is_given_a_credential_by_its_recipe(
    env: dict[str, str], image: str, command: list[str]
) -> None:
    assert not problems(env, image, command)


def test_kubernetes_generates_no_secret_from_a_committed_value() -> None:
    for path, doc in k8s_documents():
        assert not doc.get("secretGenerator"), path
        if doc.get("kind") == "Secret":
            pytest.fail(f"{path}: a Secret committed with its values")


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_config_or_env_file_holds_a_credential(path: Path) -> None:
    text = path.read_text()
    assert not URL_PASSWORD.search(text), path
    assert not ASSIGNED.search(text), (path, ASSIGNED.search(text))
    assert "://root@" not in text, path
