"""wrk's and ab's reports, as captured from the real tools against a local nginx."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.load.tool_output import Figures, ToolOutputError, parse_ab, parse_wrk

DATA = Path(__file__).parent / "data" / "tools"


def _read(name: str) -> str:
    return (DATA / name).read_text()


def test_wrk_requests_rate_and_percentiles_in_their_own_units() -> None:
    assert parse_wrk(_read("wrk-get.txt")) == Figures(
        requests=19076, rps=19043.44, p50_ms=pytest.approx(0.096), p99_ms=8.76, errors=0
    )


def test_wrk_counts_non_2xx_answers_as_errors() -> None:
    figures = parse_wrk(_read("wrk-non2xx.txt"))
    assert (figures.requests, figures.errors) == (8653, 8653)
    assert figures.p50_ms == pytest.approx(0.154)


def test_wrk_counts_socket_errors() -> None:
    """The line wrk prints when any socket failed (src/wrk.c)."""
    text = _read("wrk-get.txt").replace(
        "Requests/sec:", "  Socket errors: connect 1, read 2, write 0, timeout 4\nRequests/sec:"
    )
    assert parse_wrk(text).errors == 7


def test_ab_requests_rate_percentiles_and_failures() -> None:
    assert parse_ab(_read("ab-get.txt")).errors == 0
    figures = parse_ab(_read("ab-post-non2xx.txt"))
    assert figures == Figures(requests=40, rps=1940.62, p50_ms=0.0, p99_ms=10.0, errors=40)


def test_output_without_the_figures_is_an_error() -> None:
    with pytest.raises(ToolOutputError, match="wrk printed no"):
        parse_wrk("unable to connect to 127.0.0.1:9 Connection refused")
    with pytest.raises(ToolOutputError, match="ab printed no"):
        parse_ab("apr_socket_recv: Connection refused (111)")
