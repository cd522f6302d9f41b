"""Fault probes (servelab.reliability.faults): the proxy that cuts a dependency, and each
probe class run once, short, against a real stack."""

from __future__ import annotations

import os
import socket
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from servelab.cli import main
from servelab.project import Project
from servelab.reliability.faults import cli as faults_cli
from servelab.reliability.faults.aborts import probe_variant as probe_aborts
from servelab.reliability.faults.dependencies import MODES, probe_dependencies
from servelab.reliability.faults.disk_full import probe_variant as probe_disk_full
from servelab.reliability.faults.proxy import Proxy
from servelab.reliability.faults.sections import PROBES, dependency_targets, store_targets
from servelab.reliability.rows import Verdict
from servelab.spec.reliability import Schedule
from servelab.stack.attached import Address


class _Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        while data := self.request.recv(1024):
            self.request.sendall(data)


@pytest.fixture
def echo() -> Iterator[Address]:
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Echo) as server:
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield Address("127.0.0.1", server.server_address[1])
        server.shutdown()


def _round_trip(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(b"ping")
        return sock.recv(16)


def test_the_proxy_forwards_refuses_and_cuts_then_comes_back(echo: Address) -> None:
    with Proxy(echo) as proxy:
        assert _round_trip(proxy.port) == b"ping"
        held = socket.create_connection(("127.0.0.1", proxy.port), timeout=2)
        held.sendall(b"x")
        assert held.recv(1) == b"x"
        proxy.cut()
        # The established connection is reset, a new one refused: an outage, at once.
        with pytest.raises(OSError):
            held.sendall(b"y")
            if not held.recv(1):
                raise ConnectionResetError
        held.close()
        with pytest.raises(ConnectionRefusedError):
            _round_trip(proxy.port)
        proxy.restore()
        assert _round_trip(proxy.port) == b"ping"


def test_a_stalled_proxy_accepts_and_answers_nothing_until_restored(echo: Address) -> None:
    with Proxy(echo) as proxy:
        proxy.stall()
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=0.3) as sock:
            sock.sendall(b"ping")
            with pytest.raises(TimeoutError):
                sock.recv(16)
            proxy.restore()
            sock.settimeout(2)
            assert sock.recv(16) == b"ping"


def test_an_unknown_probe_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "nothing-like-it"]) == 2
    assert "no probe nothing-like-it" in capsys.readouterr().err


def test_without_root_every_probe_but_disk_full_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[str] = []

    def record(project: Project, name: str, write: object) -> Path:
        ran.append(name)
        return project.root / f"{name}.json"

    monkeypatch.setattr(faults_cli, "run_probe", record)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["probe"]) == 0
    assert ran == [name for name in PROBES if name != "disk-full"]
    assert "disk-full skipped: it mounts a tmpfs" in capsys.readouterr().err


# Its verdict holds the answers during an outage to a latency: `make test` runs it alone.
@pytest.mark.alone
def test_dependency_outages_answer_fast_503s_and_recover(
    project: Project, starts_servers: None
) -> None:
    [entryeditor] = dependency_targets(project)
    schedule = Schedule(rate=10, duration_s=6.0, cut_at_s=2.0, restore_at_s=4.0)
    short = entryeditor.model_copy(update={"stacks": entryeditor.stacks[:1], "schedule": schedule})
    probes, tables, _ = probe_dependencies(
        project, short, env={"WEB_CONCURRENCY": "2", "WEB_THREADS": "4"}
    )
    assert len(probes) == len(entryeditor.outages) * len(MODES) == len(tables)
    database = probes[0]  # cut
    assert database.figures["down_other"] == 0, database.observed
    assert database.figures["down_503"] == database.figures["down_503_retry_after"] > 0
    assert database.figures["spot_status"] == 503
    assert all(probe.verdict is Verdict.PASS for probe in probes), [p.observed for p in probes]


def test_a_full_disk_refuses_uploads_cleanly(project: Project, starts_servers: None) -> None:
    [files] = store_targets(project)
    probe = probe_disk_full(project, files, files.stacks[0])
    assert probe.figures["refused"] >= 4
    assert probe.figures["leftover_files"] == 0
    assert probe.verdict is Verdict.PASS, probe.observed


def test_aborted_transfers_leave_nothing(project: Project, starts_servers: None) -> None:
    [files] = store_targets(project)
    probes = probe_aborts(project, files, files.stacks[0])
    assert all(probe.figures.get("leftover_files", 0) == 0 for probe in probes)
    assert all(probe.verdict is Verdict.PASS for probe in probes), [p.observed for p in probes]
