from __future__ import annotations

from typing import Any

import pytest

from servelab.bench.load.shape import Load
from servelab.bench.measure.summary import ERROR_KINDS, SummaryError, measurement

TIMED = Load(vus=100, duration_s=4.0)


def _summary(**errors: int) -> dict[str, Any]:
    """The parts of a k6 summary (loadtests/lib/summary.js) that the runner reads."""
    counts = {**dict.fromkeys(ERROR_KINDS, 0), **errors}
    return {
        "metrics": {
            "http_reqs": {"values": {"count": 1300, "rate": 325.0}},
            "http_reqs{phase:measure}": {"values": {"count": 1000, "rate": 250.0}},
            "http_req_duration{phase:measure}": {
                "values": {
                    "avg": 40.5,
                    "min": 2.0,
                    "med": 30.0,
                    "p(50)": 30.0,
                    "p(75)": 45.0,
                    "p(90)": 60.0,
                    "p(99)": 90.0,
                    "max": 120.0,
                }
            },
            "http_req_failed{phase:measure}": {"values": {"rate": sum(counts.values()) / 1000}},
            "checks{phase:measure}": {"values": {"rate": 1.0}},
            **{
                f"errors_{kind}{{phase:measure}}": {"values": {"count": count}}
                for kind, count in counts.items()
            },
        }
    }


def test_measured_phase_in_wrk_terms() -> None:
    m = measurement(_summary(), TIMED)
    assert m.requests == 1000
    assert m.rps == 250.0
    assert (m.avg_ms, m.p50_ms, m.p75_ms, m.p90_ms, m.p99_ms, m.max_ms) == (
        40.5,
        30.0,
        45.0,
        60.0,
        90.0,
        120.0,
    )
    assert m.errors == dict.fromkeys(ERROR_KINDS, 0)
    assert m.elapsed_s == 4.0
    assert m.ok_rps == 250.0


def test_errors_by_kind_and_successful_rate() -> None:
    m = measurement(_summary(non_2xx=100, timeout=50), TIMED)
    assert m.errors["non_2xx"] == 100
    assert m.error_count == 150
    assert m.failed_rate == pytest.approx(0.15)
    assert m.ok_rps == pytest.approx(212.5)


def test_summary_without_the_measured_sub_metrics_is_refused() -> None:
    summary = _summary()
    del summary["metrics"]["http_reqs{phase:measure}"]
    with pytest.raises(SummaryError, match=r"http_reqs\{phase:measure\}"):
        measurement(summary, TIMED)


def test_a_counted_shape_measured_the_whole_run_like_heys_total() -> None:
    summary = {**_summary(), "state": {"testRunDurationMs": 1250.4}}
    hey = Load(vus=1000, shape="hey", iterations=1, max_duration_s=60)
    m = measurement(summary, hey)
    assert m.elapsed_s == 1.25
    assert m.rps == pytest.approx(1000 / 1.2504)
    assert m.metric("elapsed_s") == 1.25
    with pytest.raises(SummaryError, match="testRunDurationMs"):
        measurement(_summary(), hey)
