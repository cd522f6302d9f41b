"""Every COMPUTE_SERVER kind serves the same contract, concurrently, and stops on SIGTERM
alone without leaving a process or a database connection behind. The thread- and
process-pool servers give each connection a thread or process of its own until the client
closes it, so they get as many as there are clients."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from compute_service.settings import Settings, SettingsError


@pytest.mark.parametrize("kind", ["threadpool", "processpool", "nonblocking", "forking"])
def test_server_kind(
    kind: str, corpus: Any, model_dir: Any, serve_compute: Any, connect_to: Any
) -> None:
    with serve_compute(corpus, model_dir, server=kind, threads="4", processes="4") as server:
        clients = [connect_to(server.port) for _ in range(4)]

        def calls(index: int) -> list[int]:
            client = clients[index]
            assert client.ping() == "pong"
            return [n.sentence_id for n in client.neighbors(100 + index, 3)]

        with ThreadPoolExecutor(4) as executor:
            answers = list(executor.map(calls, range(4)))
        assert [len(answer) for answer in answers] == [3, 3, 3, 3]
    assert corpus.connections() == 0


@pytest.fixture
def environ(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An environment without DATABASE_URL or COMPUTE_* settings; set them on the result."""
    for name in os.environ:
        if name.startswith("COMPUTE_") or name == "DATABASE_URL":
            monkeypatch.delenv(name)
    return monkeypatch


def test_settings_defaults(environ: pytest.MonkeyPatch) -> None:
    settings = Settings.from_env()
    assert settings.database_url == "mysql://root@127.0.0.1:3306/entryeditor"
    assert (settings.host, settings.port, settings.server) == ("127.0.0.1", 9090, "nonblocking")
    assert (settings.threads, settings.processes, settings.db_pool) == (4, 2, 4)
    assert (settings.db_wait_s, settings.db_timeout_s) == (2.0, 5.0)
    assert settings.model_dir == Path(".servelab/compute-models")
    assert (settings.max_k, settings.max_batch) == (100, 256)
    assert (settings.dimensions, settings.window, settings.min_count) == (100, 5, 2)
    assert (settings.epochs, settings.seed) == (5, 1)


def test_settings_from_the_environment(environ: pytest.MonkeyPatch) -> None:
    environ.setenv("DATABASE_URL", "mysql://u@h:1/d")
    environ.setenv("COMPUTE_SERVER", "threadpool")
    environ.setenv("COMPUTE_DB_POOL", "7")
    environ.setenv("COMPUTE_MODEL_DIR", "/var/lib/compute")
    settings = Settings.from_env()
    assert (settings.database_url, settings.server, settings.db_pool) == (
        "mysql://u@h:1/d",
        "threadpool",
        7,
    )
    assert settings.model_dir == Path("/var/lib/compute")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("COMPUTE_SERVER", "gevent", "COMPUTE_SERVER='gevent'"),
        ("COMPUTE_DB_POOL", "0", "COMPUTE_DB_POOL='0': .* greater than or equal to 1"),
        ("COMPUTE_PORT", "http", "COMPUTE_PORT='http': not a number"),
        ("COMPUTE_DB_WAIT_S", "soon", "COMPUTE_DB_WAIT_S='soon': not a number"),
    ],
)
def test_settings_reject_unusable_values(
    environ: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    environ.setenv(name, value)
    with pytest.raises(SettingsError, match=message):
        Settings.from_env()


def test_loadgen_measures_a_running_server(server: Any) -> None:
    """The load generator the README's server-kind table comes from."""
    from compute_service.loadgen import run

    result = run(server.port, clients=2, processes=1, seconds=0.5, k=3)
    assert result.errors == []
    assert result.calls > 0
    assert 0 < result.p50_ms <= result.p99_ms
