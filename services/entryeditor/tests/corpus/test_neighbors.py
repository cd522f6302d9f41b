"""GET /corpus/sentence/{id}/neighbors/ and the compute client behind it, against the real
compute server (`compute-server` on the test database), killed and restarted by process
group where the test is about an outage."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.test import override_settings

from compute_contract.computeidl.ttypes import UnknownSentence
from compute_service.healthcheck import check
from entryeditor_service import metrics
from entryeditor_service.compute.breaker import BreakerOpen, CircuitBreaker, State
from entryeditor_service.compute.client import ComputeClient, ComputeUnavailable, Endpoint
from servelab.stack import groups
from servelab.stack.ports import free_port
from servelab.testing import mariadb_url

if TYPE_CHECKING:
    from django.test import Client

COMPUTE_SERVER = str(Path(sys.executable).parent / "compute-server")
NEIGHBORS = "/corpus/sentence/{}/neighbors/"


class ComputeProcess:
    """compute-server on a fixed loopback port, which survives kill() and start()."""

    def __init__(self, database: str, model_dir: Path) -> None:
        self.port = free_port()
        self.env = {
            "PATH": os.environ["PATH"],
            "DATABASE_URL": mariadb_url(database),
            "COMPUTE_PORT": str(self.port),
            "COMPUTE_MODEL_DIR": str(model_dir),
            "COMPUTE_DB_POOL": "2",
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 60.0) -> None:
        self.process = groups.spawn(
            [COMPUTE_SERVER], env=self.env, cwd=Path.cwd(), stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + timeout_s
        while not check(self.port):
            assert self.process.poll() is None, "compute-server exited"
            assert time.monotonic() < deadline, "compute-server did not answer ping"
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL the whole process group: a crash, not a shutdown."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            groups.stop_group(self.process.pid, 10.0, self.process)
            self.process.wait()
        assert self.process is None or groups.members(self.process.pid) == []


@pytest.fixture(scope="module")
def compute(
    corpus: None, tmp_path_factory: pytest.TempPathFactory, starts_servers: None
) -> Iterator[ComputeProcess]:
    """The compute server on the test database; the app's COMPUTE_ADDR points at it."""
    from django.db import connection

    process = ComputeProcess(connection.settings_dict["NAME"], tmp_path_factory.mktemp("models"))
    process.start()
    settings = override_settings(
        COMPUTE_ADDR=f"127.0.0.1:{process.port}",
        COMPUTE_BREAKER_FAILURES=3,
        COMPUTE_BREAKER_RESET=0.5,
    )
    settings.enable()
    try:
        yield process
    finally:
        settings.disable()
        process.stop()


@pytest.fixture
def running(compute: ComputeProcess) -> ComputeProcess:
    """The compute server, started again if an earlier test left it down."""
    if compute.process is None or compute.process.poll() is not None:
        compute.start()
    return compute


def get(client: Client, sentence_id: int, query: str = "") -> tuple[int, dict, float]:
    started = time.perf_counter()
    response = client.get(NEIGHBORS.format(sentence_id) + query)
    elapsed = time.perf_counter() - started
    return response.status_code, json.loads(response.content), elapsed


# --- the endpoint ------------------------------------------------------------------------


def test_neighbors_of_a_sentence(client: Client, running: ComputeProcess) -> None:
    from entryeditor_service.corpus.models import Sentence

    status, body, _ = get(client, 1000)
    assert status == 200
    assert (body["sentence_id"], body["k"]) == (1000, 10)
    found = body["neighbors"]
    assert len(found) == 10
    assert 1000 not in [n["id"] for n in found]
    scores = [n["score"] for n in found]
    assert scores == sorted(scores, reverse=True)
    texts = dict(Sentence.objects.filter(id__in=[n["id"] for n in found]).values_list("id", "text"))
    assert {n["id"]: n["text"] for n in found} == texts


def test_k_picks_how_many(client: Client, running: ComputeProcess) -> None:
    status, body, _ = get(client, 7, "?k=3")
    assert status == 200
    assert len(body["neighbors"]) == 3


@pytest.mark.parametrize("query", ["?k=0", "?k=101", "?k=many", "?k=-2", "?count=3"])
def test_bad_query_is_a_400(client: Client, running: ComputeProcess, query: str) -> None:
    status, body, _ = get(client, 7, query)
    assert status == 400
    assert body["error"]["code"] == "invalid"


def test_unknown_sentence_is_a_404(client: Client, running: ComputeProcess) -> None:
    status, body, _ = get(client, 999_999)
    assert status == 404
    assert body["error"]["code"] == "not_found"


def test_compute_outage_is_a_fast_503_and_recovers_by_itself(
    client: Client, running: ComputeProcess
) -> None:
    assert get(client, 10)[0] == 200
    running.kill()
    answers = [client.get(NEIGHBORS.format(10)) for _ in range(3)]
    for _ in range(5):
        started = time.perf_counter()
        response = client.get(NEIGHBORS.format(10))
        elapsed = time.perf_counter() - started
        answers.append(response)
        # The breaker is open: no connection attempt at all.
        assert elapsed < 0.1
    for response in answers:
        assert response.status_code == 503
        assert int(response["Retry-After"]) >= 1
        assert json.loads(response.content)["error"]["code"] == "compute_unavailable"

    running.start()
    back = time.monotonic()
    while True:
        status, _, elapsed = get(client, 10)
        assert elapsed < 1.0
        if status == 200:
            break
        assert status == 503
        assert time.monotonic() - back < 5.0, "no recovery within 5 s of compute's return"
        time.sleep(0.05)


# --- the client ----------------------------------------------------------------------------


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    listener.close()


def test_a_server_that_never_answers_costs_one_read_timeout(silent_server: int) -> None:
    client = ComputeClient(Endpoint("127.0.0.1", silent_server), timeout_s=0.3)
    started = time.perf_counter()
    with pytest.raises(ComputeUnavailable):
        client.neighbors(1, 5)
    elapsed = time.perf_counter() - started
    # One read timeout, not retried (a timeout is not a connection error).
    assert 0.25 < elapsed < 0.55
    client.close()


def test_nothing_listening_fails_at_once() -> None:
    client = ComputeClient(Endpoint("127.0.0.1", free_port()))
    started = time.perf_counter()
    with pytest.raises(ComputeUnavailable):
        client.ping()
    assert time.perf_counter() - started < 0.3


def test_pooled_connections_survive_a_compute_restart(running: ComputeProcess) -> None:
    """A read retried on a fresh connection: the restart is invisible to the caller."""
    client = ComputeClient(Endpoint("127.0.0.1", running.port), pool_size=2)
    assert len(client.neighbors(5, 3)) == 3
    running.stop()
    running.start()
    assert len(client.neighbors(5, 3)) == 3
    assert client.breaker.state is State.CLOSED
    client.close()


def test_typed_errors_pass_through_and_keep_the_breaker_closed(running: ComputeProcess) -> None:
    client = ComputeClient(
        Endpoint("127.0.0.1", running.port), breaker=CircuitBreaker(failures=1, reset_s=10)
    )
    for _ in range(3):
        with pytest.raises(UnknownSentence):
            client.neighbors(999_999, 3)
    assert client.breaker.state is State.CLOSED
    client.close()


def test_one_client_serves_many_threads(running: ComputeProcess) -> None:
    # Four connections shared by 16 threads: each waits for a free one, patiently here (on
    # a loaded machine the default 0.8 s is a test of speed, not of sharing).
    client = ComputeClient(Endpoint("127.0.0.1", running.port), pool_size=4, timeout_s=30)

    def calls(index: int) -> int:
        return sum(len(client.neighbors(1 + (index * 20 + n) % 1900, 5)) for n in range(20))

    with ThreadPoolExecutor(16) as executor:
        assert sum(executor.map(calls, range(16))) == 16 * 20 * 5
    client.close()


# --- the breaker ----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_breaker_opens_after_failures_in_a_row_and_probes_once() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failures=3, reset_s=2.0, clock=clock)
    for _ in range(2):
        breaker.before_call()
        breaker.failure()
    breaker.before_call()
    breaker.success()  # a success resets the count
    for _ in range(3):
        breaker.before_call()
        breaker.failure()
    assert breaker.state is State.OPEN
    clock.now = 1.5
    with pytest.raises(BreakerOpen) as refused:
        breaker.before_call()
    assert refused.value.retry_after == pytest.approx(0.5)
    clock.now = 2.0
    breaker.before_call()  # the probe
    with pytest.raises(BreakerOpen):
        breaker.before_call()  # only one at a time
    breaker.failure()  # the probe failed: open again, for a full period
    assert breaker.state is State.OPEN
    clock.now = 4.0
    breaker.before_call()
    breaker.success()
    assert breaker.state is State.CLOSED
    breaker.before_call()


def test_compute_calls_are_timed_by_outcome_and_the_breaker_state_exported() -> None:
    before = _sample("entryeditor_compute_call_seconds_count", method="ping", outcome="unavailable")
    client = ComputeClient(Endpoint("127.0.0.1", free_port()), breaker=CircuitBreaker(failures=1))
    for _ in range(2):  # the first fails and opens the breaker, the second is refused by it
        with pytest.raises(ComputeUnavailable):
            client.ping()
    after = _sample("entryeditor_compute_call_seconds_count", method="ping", outcome="unavailable")
    assert after == before + 2
    assert _sample("entryeditor_compute_breaker_open") == 1


def _sample(name: str, **labels: str) -> float:
    """A sample's value in this process's registry (0 before anything was recorded)."""
    for metric in (metrics.COMPUTE_CALLS, metrics.BREAKER_OPEN):
        for sample in metric.collect()[0].samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return 0.0
