from __future__ import annotations

from servelab.bench.cpus import Pinning, plan


def test_server_gets_one_cpu_per_worker_and_k6_the_rest() -> None:
    assert plan([0, 1], 1) == Pinning(frozenset({1}), frozenset({0}))
    assert plan([3, 0, 2, 1], 2) == Pinning(frozenset({2, 3}), frozenset({0, 1}))
    assert plan([0, 1], 1).describe() == "server on CPU 1, k6 on CPU 0"


def test_no_pinning_when_k6_would_get_nothing() -> None:
    assert plan([0, 1], 2) == Pinning(None, None)
    assert plan([0], 1) == Pinning(None, None)
    assert "not pinned" in plan([0, 1], 3).describe()
