"""The local runner's one-shot services and the database and cache servers it uses in place of
an image (x-local.server)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis as redis_client

from servelab.bench.measure.dbwatch import ConnectionWatch
from servelab.project import Project
from servelab.stack import Stack, StackError
from servelab.stack.groups import members
from servelab.stack.ports import free_port
from servelab.testing import mariadb, redis

# Every test here runs the local runner against a MariaDB and a Redis: the machine's, or
# where it has none the private ones the tests share.
pytestmark = pytest.mark.stack

SQL = shutil.which("mariadb") or shutil.which("mysql")


def sql(statement: str) -> str:
    assert SQL is not None
    server = mariadb()
    result = subprocess.run(
        [SQL, "-h", server.host, "-P", str(server.port), "-u", "root", "-N", "-e", statement],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port something listens on, standing in for the machine's Redis."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


@pytest.fixture
def database() -> Iterator[str]:
    name = f"ee_stack_unit_{uuid.uuid4().hex[:8]}"
    yield name
    sql(f"DROP DATABASE IF EXISTS `{name}`")


def test_a_one_shot_service_runs_to_completion_before_its_dependents(
    compose_dir: Callable[[str], Path],
) -> None:
    directory = compose_dir(
        """
        services:
          init:
            profiles: [app]
            build: .
            command: ["sh", "-c", "sleep 0.3; echo migrated > $${DATA}/done"]
            environment: {DATA: /data}
            volumes: [data:/data]
            x-local:
              environment: {DATA: "{volume:data}"}
          app:
            profiles: [app]
            build: .
            command: ["sh", "-c", "cat $${DATA}/done; exec sleep 600"]
            environment: {DATA: /data}
            volumes: [data:/data]
            depends_on:
              init: {condition: service_completed_successfully}
            x-local:
              environment: {DATA: "{volume:data}"}
        volumes:
          data:
        """
    )
    with Stack("app", only=["app"], project=Project(directory), log=None) as stack:
        assert list(stack.running) == ["init", "app"]
        assert stack.running["init"].process.returncode == 0
        assert stack.running["app"].process.poll() is None
        assert (stack.volume("data") / "done").read_text() == "migrated\n"
        # What a benchmark accounts CPU time to: the server, not the one-shot.
        assert stack.process_groups() == {"app": stack.running["app"].pgid}
        pgids = [running.pgid for running in stack.running.values()]
    assert all(members(pgid) == [] for pgid in pgids)


def test_a_failing_one_shot_service_fails_the_start_with_its_log(
    compose_dir: Callable[[str], Path],
) -> None:
    directory = compose_dir(
        """
        services:
          init:
            profiles: [app]
            build: .
            command: ["sh", "-c", "echo no database; exit 3"]
          app:
            profiles: [app]
            build: .
            command: ["sleep", "600"]
            depends_on:
              init: {condition: service_completed_successfully}
        """
    )
    stack = Stack("app", project=Project(directory), log=None)
    with pytest.raises(StackError, match=r"init exited with status 3[\s\S]*no database"):
        stack.start()
    assert "app" not in stack.running


def test_a_service_on_the_machines_server_starts_nothing_and_lends_its_port(
    compose_dir: Callable[[str], Path], listener: int
) -> None:
    directory = compose_dir(
        f"""
        services:
          cache:
            profiles: [app]
            image: redis:7
            healthcheck:
              test: ["CMD", "redis-cli", "ping"]
              interval: 1s
              retries: 3
            x-local:
              server: 127.0.0.1:{listener}
          app:
            profiles: [app]
            build: .
            command: ["sleep", "600"]
            environment: {{REDIS_URL: "redis://cache:6379/2"}}
            depends_on:
              cache: {{condition: service_healthy}}
            x-local:
              environment: {{REDIS_URL: "redis://127.0.0.1:{{port:cache}}/2"}}
        """
    )
    with Stack("app", project=Project(directory), log=None) as stack:
        assert list(stack.running) == ["app"]
        assert str(stack.attached["cache"]) == f"127.0.0.1:{listener}"
        assert stack.port("cache") == listener
        assert stack.running["app"].env["REDIS_URL"] == f"redis://127.0.0.1:{listener}/2"


def test_a_named_server_that_does_not_answer_is_a_clear_error(
    compose_dir: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    monkeypatch.setenv("SERVELAB_REDIS", f"127.0.0.1:{port}")
    directory = compose_dir(
        """
        services:
          cache:
            profiles: [app]
            image: redis:7
            healthcheck:
              test: ["CMD", "redis-cli", "ping"]
              interval: 200ms
              retries: 2
            x-local:
              server: 127.0.0.1:6379
        """
    )
    where = f"127\\.0\\.0\\.1:{port}"
    with pytest.raises(StackError, match=f"nothing accepts connections at {where}.*SERVELAB_REDIS"):
        Stack("app", project=Project(directory), log=None).start()


def test_only_known_images_map_to_the_machines_server(compose_dir: Callable[[str], Path]) -> None:
    directory = compose_dir(
        """
        services:
          queue:
            profiles: [app]
            image: rabbitmq:4
            x-local:
              server: 127.0.0.1:5672
        """
    )
    known = r"x-local\.server is for the images mariadb, mysql, redis"
    with pytest.raises(StackError, match=known):
        Stack("app", project=Project(directory), log=None).start()


def test_mariadb_gets_the_images_database_on_the_machines_server(
    compose_dir: Callable[[str], Path], database: str
) -> None:
    directory = compose_dir(
        f"""
        services:
          db:
            profiles: [app]
            image: mariadb:11
            environment:
              MARIADB_ALLOW_EMPTY_ROOT_PASSWORD: "1"
              MARIADB_DATABASE: ${{DB_NAME:-app}}
            x-local:
              server: {mariadb()}
        """
    )
    for _ in range(2):  # the second start finds the database there already
        with Stack("app", env={"DB_NAME": database}, project=Project(directory), log=None) as stack:
            assert stack.port("db") == mariadb().port
            assert sql(f"SHOW DATABASES LIKE '{database}'").split() == [database]


def test_the_connection_watch_counts_the_stacks_connections_to_its_database(
    compose_dir: Callable[[str], Path], database: str
) -> None:
    assert SQL is not None
    directory = compose_dir(
        f"""
        services:
          db:
            profiles: [app]
            image: mariadb:11
            environment:
              MARIADB_DATABASE: {database}
            x-local:
              server: {mariadb()}
        """
    )
    with Stack("app", project=Project(directory), log=None) as stack:
        assert stack.databases == {"db": database}
        server = mariadb()
        client = [SQL, "-h", server.host, "-P", str(server.port), "-u", "root", database]
        client += ["-e", "SELECT SLEEP(1.5)"]
        with ConnectionWatch(stack, interval_s=0.1) as watch:
            held = [subprocess.Popen(client, stdout=subprocess.DEVNULL) for _ in range(3)]
            for process in held:
                process.wait(timeout=30)
        assert watch.peak == 3


def test_the_recipes_users_are_made_on_the_machines_servers_with_the_stacks_passwords(
    compose_dir: Callable[[str], Path], database: str
) -> None:
    """MARIADB_USER with the password in the file MARIADB_PASSWORD_FILE names, and the users
    of the file redis-server's --aclfile names, both files written by a one-shot into a
    volume the servers mount: the runner reads them from the stack's volume directory."""
    cache = redis()
    directory = compose_dir(
        f"""
        services:
          secrets:
            profiles: [app]
            build: .
            command: ["sh", "write-credentials.sh"]
            environment: {{DB: "${{DB_NAME:-app}}"}}
            volumes: [creds:/run/creds]
            x-local:
              environment: {{DIR: "{{volume:creds}}"}}
          db:
            profiles: [app]
            image: mariadb:11
            environment:
              MARIADB_DATABASE: ${{DB_NAME:-app}}
              MARIADB_USER: ${{DB_NAME:-app}}
              MARIADB_PASSWORD_FILE: /run/creds/pw
            volumes: ["creds:/run/creds:ro"]
            depends_on: {{secrets: {{condition: service_completed_successfully}}}}
            x-local:
              server: {mariadb()}
          cache:
            profiles: [app]
            image: redis:7
            command: ["redis-server", "--aclfile", "/run/creds/acl", "--save", ""]
            volumes: ["creds:/run/creds:ro"]
            depends_on: {{secrets: {{condition: service_completed_successfully}}}}
            x-local:
              server: {cache}
        volumes:
          creds:
        """
    )
    (directory / "write-credentials.sh").write_text(
        'printf "p-%s" $$ > "$DIR/pw"\n'
        'printf "user default off\\nuser %s on >p-%s ~k:* +@all\\n" "$DB" $$ > "$DIR/acl"\n'
    )
    try:
        with Stack("app", env={"DB_NAME": database}, project=Project(directory), log=None) as stack:
            password = (stack.volume("creds") / "pw").read_text()
            assert SQL is not None
            server = stack.attached["db"]
            argv = [SQL, "-h", server.host, "-P", str(server.port), "-u", database, "-N"]
            login = subprocess.run(
                [*argv, "-e", "SHOW GRANTS"],
                env={**os.environ, "MYSQL_PWD": password},
                capture_output=True,
                text=True,
                check=True,
            )
            assert f"GRANT ALL PRIVILEGES ON `{database}`.* TO `{database}`@`%`" in login.stdout
            user = redis_client.Redis(
                host=cache.host, port=cache.port, username=database, password=password
            )
            assert user.set("k:1", "v")
            with pytest.raises(redis_client.exceptions.NoPermissionError):
                user.get("other:1")
            user.close()
        # The private servers the tests may share are not the recipe's to lock.
        assert redis_client.Redis(host=cache.host, port=cache.port).ping()
    finally:
        sql(f"DROP USER IF EXISTS '{database}'@'%'")
        admin = redis_client.Redis(host=cache.host, port=cache.port)
        admin.acl_deluser(database)
        admin.delete("k:1")
        admin.close()
