"""Every COMPUTE_SERVER kind serves the same contract, concurrently, and stops on SIGTERM
alone without leaving a process or a database connection behind. The thread- and
process-pool servers give each connection a thread or process of its own until the client
closes it, so they get as many as there are clients."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
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


def test_settings_from_the_environment() -> None:
    settings = Settings.from_env(
        {"DATABASE_URL": "mysql://u@h:1/d", "COMPUTE_SERVER": "nonblocking", "COMPUTE_DB_POOL": "7"}
    )
    assert (settings.database_url, settings.server, settings.db_pool) == (
        "mysql://u@h:1/d",
        "nonblocking",
        7,
    )
    with pytest.raises(SettingsError, match="COMPUTE_SERVER"):
        Settings.from_env({"COMPUTE_SERVER": "gevent"})
    with pytest.raises(SettingsError, match="COMPUTE_DB_POOL"):
        Settings.from_env({"COMPUTE_DB_POOL": "0"})
    with pytest.raises(SettingsError, match="not a number"):
        Settings.from_env({"COMPUTE_PORT": "http"})


def test_loadgen_measures_a_running_server(server: Any) -> None:
    """The load generator the README's server-kind table comes from."""
    from compute_service.loadgen import run

    result = run(server.port, clients=2, processes=1, seconds=0.5, k=3)
    assert result.errors == []
    assert result.calls > 0
    assert 0 < result.p50_ms <= result.p99_ms
