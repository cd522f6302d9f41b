"""The private Docker engine and the stand-in base images (servelab.containers): the engine
stops every process it started and leaves the firewall alone; the stand-ins behave the way
the official images' interfaces do where compose.yaml relies on them."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from servelab.containers.engine import Engine, alive, engine_processes, private_engine
from servelab.images.stand_ins import (
    DESCRIPTION,
    OFFICIAL_ONLY,
    SOURCE,
    STAND_INS,
    StandIn,
    expected_stamp,
    source_digest,
    stamp_path,
    up_to_date,
)
from servelab.project import Project
from servelab.testing.containers import require_engine

ROOT = Project.find(Path(__file__).parent).root


def _mounts_below(path: Path) -> list[str]:
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    return [mount for mount in mounts if mount.startswith(f"{path}/")]


def _firewall() -> str | None:
    """The host's IPv4 firewall rules, or None where iptables-save is not installed. Its
    comment lines are left out: they say when it ran, to the second."""
    if shutil.which("iptables-save") is None:
        return None
    saved = subprocess.run(["iptables-save"], capture_output=True, text=True, check=True).stdout
    return "".join(line for line in saved.splitlines(keepends=True) if not line.startswith("#"))


def _sleeper_image(engine: Engine, tmp_path: Path) -> str:
    """An image of the host's /bin/sleep and the two libraries it loads, imported into a
    fresh engine in well under a second, so the engine test needs no base image."""
    rootfs = tmp_path / "rootfs"
    for name in ("/bin/sleep", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"):
        target = rootfs / name.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(Path(name).resolve(), target)
    tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
    engine.docker("import", "-", "servelab-test/sleep", stdin=tar.stdout)
    tar.wait()
    return "servelab-test/sleep"


# `stack`: it starts a Docker engine (dockerd, containerd) and a container in it, as the
# other `containers` tests do through the engine fixture (which requests starts_servers).
@pytest.mark.stack
@pytest.mark.containers
def test_the_engine_stops_every_process_it_started_and_leaves_the_firewall_alone(
    tmp_path: Path,
) -> None:
    require_engine()
    firewall = _firewall()
    forwarding = Path("/proc/sys/net/ipv4/ip_forward").read_text()
    with private_engine(tmp_path / "docker") as engine:
        image = _sleeper_image(engine, tmp_path)
        # Its own subnet: the session's engine may run beside this one, and both would
        # otherwise hand out the same addresses on the docker0 bridge they share.
        network = "servelab-engine-test"
        created = engine.docker("network", "create", "--subnet", "10.213.77.0/24", network)
        bridge = f"br-{created.stdout.strip()[:12]}"
        # unless-stopped, as compose's entry editor services: it would come back with the
        # engine, holding its published port, were it not removed at the next start.
        started = engine.docker(
            "run", "--detach", "--restart", "unless-stopped", "--network", network,
            "--publish", "127.0.0.1::8080", image, "/bin/sleep", "infinity",
        )  # fmt: skip
        container = started.stdout.strip()
        pid = int(engine.docker("inspect", "--format", "{{.State.Pid}}", container).stdout)
        running = engine_processes(engine.pid, engine.run_dir)
        # dockerd, its containerd, docker-proxy for the published port, the container's shim.
        assert engine.pid in running
        assert len(running) >= 4, running
        assert alive(pid)
        assert _firewall() == firewall
        run_dir = engine.run_dir
    # A zombie is not running: init reaps the shims it inherits when it gets to it.
    left = [p for p in [*running, pid] if alive(p)]
    assert left == [], f"processes outlived the engine: {left}"
    assert not run_dir.exists()
    assert _mounts_below(run_dir) == [] and _mounts_below(tmp_path / "docker") == []
    assert _firewall() == firewall
    assert Path("/proc/sys/net/ipv4/ip_forward").read_text() == forwarding
    with private_engine(tmp_path / "docker") as again:
        assert again.docker("ps", "--all", "--quiet").stdout.split() == []
    # dockerd keeps a network's bridge interface when it stops (a link, not a firewall rule);
    # this engine's data root goes with tmp_path, so its bridge goes now.
    subprocess.run(["ip", "link", "delete", bridge], check=False, capture_output=True)


def test_a_stand_in_is_up_to_date_until_its_sources_change(tmp_path: Path) -> None:
    project = Project(tmp_path / "project")
    shutil.copytree(ROOT / "deploy" / "images", project.root / "deploy" / "images")
    data_root = tmp_path / "docker"
    data_root.mkdir()
    assert not up_to_date(project, data_root)
    stamp_path(data_root).write_text(json.dumps(expected_stamp(project, data_root)))
    assert up_to_date(project, data_root)
    entrypoint = project.root / "deploy" / "images" / "redis" / "docker-entrypoint.sh"
    before = source_digest(entrypoint.parent)
    entrypoint.chmod(0o644)
    assert source_digest(entrypoint.parent) != before
    assert not up_to_date(project, data_root)


def _default(reference: str) -> str:
    """An image reference with ${NAME:-default} and ${NAME} replaced by their default."""
    return re.sub(
        r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}", lambda m: m.group(1) or "", reference
    )


def _official_images() -> set[str]:
    """Every image compose.yaml and the Dockerfiles pull (not the servelab/* they build)."""
    found = set()
    for path in (ROOT / "deploy" / "compose").glob("*.yaml"):
        for service in (yaml.safe_load(path.read_text()).get("services") or {}).values():
            if "image" in service and "build" not in service:
                found.add(_default(service["image"]))
    for dockerfile in ROOT.glob("deploy/docker/*.Dockerfile"):
        text = dockerfile.read_text()
        args: dict[str, str] = dict(re.findall(r"^ARG\s+(\w+)=(\S+)", text, re.MULTILINE))
        stages = set(re.findall(r"^FROM\s+\S+\s+AS\s+(\S+)", text, re.MULTILINE | re.IGNORECASE))
        for base in re.findall(r"^FROM\s+(\S+)", text, re.MULTILINE):
            base = re.sub(r"\$\{?(\w+)\}?", lambda m, args=args: args.get(m[1], m[0]), base)
            if base not in stages:
                found.add(_default(base))
    return found


def test_every_image_compose_and_the_dockerfiles_pull_has_a_stand_in() -> None:
    official = _official_images()
    assert {"mariadb:11", "nginx:1.27"} <= official
    assert official - {stand_in.tag for stand_in in STAND_INS} - set(OFFICIAL_ONLY) == set()
    assert set(OFFICIAL_ONLY) <= official  # no stale exemption


def test_env_example_lists_every_variable_compose_reads() -> None:
    # $${NAME} is compose's escape for the container's shell: not read by compose.
    texts = [path.read_text() for path in (ROOT / "deploy" / "compose").glob("*.yaml")]
    read = {name for text in texts for name in re.findall(r"(?<!\$)\$\{(\w+)", text)}
    listed = re.findall(r"^# (\w+)=", (ROOT / ".env.example").read_text(), re.MULTILINE)
    assert read - set(listed) == set()
    assert len(listed) == len(set(listed))


# --- the stand-ins, in the session's private engine -------------------------------------------


@pytest.fixture
def container(docker_engine: Engine) -> Iterator[list[str]]:
    """Names for containers a test starts; each is removed (with its volumes) afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        docker_engine.docker("rm", "--force", "--volumes", name, check=False)


def _name(names: list[str], role: str) -> str:
    names.append(f"servelab-test-{role}-{uuid.uuid4().hex[:8]}")
    return names[-1]


def _published(engine: Engine, name: str, port: int) -> int:
    address = engine.docker("port", name, f"{port}/tcp").stdout.split()[0]
    host, _, published = address.rpartition(":")
    assert host == "127.0.0.1"
    return int(published)


def _wait(check: Callable[[], object], timeout: float, failure: Callable[[], str]) -> None:
    """Poll `check` until it is true; after `timeout` fail with what `failure` says then."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{failure()} (waited {timeout:.0f} s)")
        time.sleep(0.5)


def _logs(engine: Engine, name: str) -> str:
    logs = engine.docker("logs", "--tail", "30", name, check=False)
    return f"{name}'s last log lines:\n{logs.stdout}{logs.stderr}"


@pytest.mark.containers
@pytest.mark.timeout(1800)  # a clean cache builds the stand-ins first (about 5 minutes)
@pytest.mark.parametrize("stand_in", STAND_INS, ids=lambda s: s.folder)
def test_each_stand_in_says_plainly_what_it_is(
    docker_engine: Engine, base_images: object, stand_in: StandIn
) -> None:
    tag = stand_in.tag
    labels = docker_engine.docker(
        "image", "inspect", "--format", "{{json .Config.Labels}}", tag
    ).stdout
    parsed = json.loads(labels) or {}
    if SOURCE not in parsed:
        pytest.skip(f"{tag} is the official image here")
    assert "stand-in" in parsed[DESCRIPTION] and "not the official image" in parsed[DESCRIPTION]


@pytest.mark.containers
@pytest.mark.timeout(1800)
def test_nginx_renders_its_templates_and_answers_on_a_loopback_port(
    docker_engine: Engine, base_images: object, container: list[str], tmp_path: Path
) -> None:
    template = tmp_path / "default.conf.template"
    template.write_text(
        "# ${NOT_SET} stays as it is: only defined variables are substituted\n"
        "server {\n"
        "    listen ${NGINX_PORT};\n"
        '    location / { return 200 "greeting=${GREETING} host=$host\\n"; }\n'
        "}\n"
    )
    name = _name(container, "nginx")
    docker_engine.docker(
        "run", "--detach", "--name", name,
        "--env", "NGINX_PORT=8080", "--env", "GREETING=hello from a template",
        "--publish", "127.0.0.1::8080",
        "--volume", f"{template}:/etc/nginx/templates/default.conf.template:ro",
        "nginx:1.27",
    )  # fmt: skip
    port = _published(docker_engine, name, 8080)

    def answers() -> bytes | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                return bytes(response.read())
        except OSError:
            return None

    _wait(answers, 30, lambda: f"nginx did not answer; {_logs(docker_engine, name)}")
    assert answers() == b"greeting=hello from a template host=127.0.0.1\n"
    rendered = docker_engine.docker("exec", name, "cat", "/etc/nginx/conf.d/default.conf").stdout
    assert rendered.startswith("# ${NOT_SET} stays as it is")
    # compose's nginx healthchecks run curl inside the container.
    docker_engine.docker("exec", name, "curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/")
    docker_engine.docker("stop", "--time", "10", name)
    assert (
        docker_engine.docker("inspect", "--format", "{{.State.ExitCode}}", name).stdout.strip()
        == "0"
    )


@pytest.mark.containers
@pytest.mark.timeout(1800)
def test_mariadb_initialises_an_empty_datadir_and_becomes_healthy(
    docker_engine: Engine, base_images: object, container: list[str], tmp_path: Path
) -> None:
    refused = docker_engine.docker("run", "--rm", "mariadb:11", check=False)
    assert refused.returncode == 1
    assert "password option is not specified" in refused.stderr

    # compose's recipe: root's and the app user's passwords in files of a secrets volume.
    secrets_dir = tmp_path / "secrets"
    secrets_dir.mkdir(mode=0o755)
    for file, value in {"root": "root-secret", "app": "app-secret"}.items():
        (secrets_dir / file).write_text(value + "\n")
        (secrets_dir / file).chmod(0o444)
    name = _name(container, "mariadb")
    docker_engine.docker(
        "run", "--detach", "--name", name,
        "--volume", f"{secrets_dir}:/run/secrets/probe:ro",
        "--env", "MARIADB_ROOT_PASSWORD_FILE=/run/secrets/probe/root",
        "--env", "MARIADB_DATABASE=servelab_probe", "--env", "MARIADB_USER=servelab_probe",
        "--env", "MARIADB_PASSWORD_FILE=/run/secrets/probe/app",
        "--health-cmd", "healthcheck.sh --connect --innodb_initialized",
        "--health-interval", "1s", "--health-retries", "120",
        "--publish", "127.0.0.1::3306",
        "mariadb:11", "--max-connections=151", "--character-set-server=utf8mb4",
    )  # fmt: skip

    def health() -> str:
        state = docker_engine.docker("inspect", "--format", "{{.State.Health.Status}}", name)
        return state.stdout.strip()

    _wait(
        lambda: health() == "healthy",
        120,
        lambda: f"mariadb is {health()}, not healthy; {_logs(docker_engine, name)}",
    )
    # What compose's DATABASE_URL relies on: the app's user, with the password from its file,
    # from another address, sees its database alone; root needs its own password.
    port = _published(docker_engine, name, 3306)

    def client(user: str, password: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["mariadb", "--host=127.0.0.1", f"--port={port}", f"--user={user}", "--skip-ssl",
             "--batch", "--skip-column-names", "--execute=SHOW DATABASES"],
            env={**os.environ, "MYSQL_PWD": password},
            capture_output=True, text=True, check=False, timeout=30,
        )  # fmt: skip

    app = client("servelab_probe", "app-secret")
    assert app.returncode == 0, app.stderr
    assert set(app.stdout.split()) == {"servelab_probe", "information_schema"}
    assert client("root", "").returncode != 0
    assert client("root", "root-secret").returncode == 0


@pytest.mark.containers
@pytest.mark.timeout(1800)
def test_redis_answers_ping_by_name_on_a_network_and_on_a_loopback_port(
    docker_engine: Engine, base_images: object, container: list[str]
) -> None:
    network = f"servelab-test-{uuid.uuid4().hex[:8]}"
    docker_engine.docker("network", "create", network)
    try:
        name = _name(container, "redis")
        docker_engine.docker(
            "run", "--detach", "--name", name, "--network", network, "--network-alias", "cache",
            "--publish", "127.0.0.1::6379",
            "redis:7", "redis-server", "--save", "", "--appendonly", "no",
        )  # fmt: skip
        client = _name(container, "redis-cli")

        def pong_by_name() -> bool:
            ping = docker_engine.docker(
                "run", "--rm", "--name", client, "--network", network,
                "redis:7", "redis-cli", "-h", "cache", "ping",
                check=False,
            )  # fmt: skip
            return ping.stdout.strip() == "PONG"

        _wait(
            pong_by_name,
            30,
            lambda: f"redis did not answer by name on the network; {_logs(docker_engine, name)}",
        )
        # Through docker-proxy the client is not loopback inside the container: the official
        # image's protected mode is off, so is the stand-in's.
        port = _published(docker_engine, name, 6379)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"PING\r\n")
            assert conn.recv(64) == b"+PONG\r\n"
    finally:
        for name in container:
            docker_engine.docker("rm", "--force", "--volumes", name, check=False)
        container.clear()
        docker_engine.docker("network", "rm", network, check=False)
