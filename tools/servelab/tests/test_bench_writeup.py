from __future__ import annotations

from pathlib import Path

from servelab.bench.writeup import load_write_up

ROOT = Path(__file__).resolve().parents[3]


def test_files_write_up_holds_every_published_run() -> None:
    write_up = load_write_up(ROOT / "loadtests" / "reference" / "files.toml")
    runs = [(run.server, run.workers) for run in write_up.runs]
    assert runs == [("uvicorn", 40), ("gunicorn", 40), ("uvicorn", 1), ("gunicorn", 1)]
    assert len(write_up.figures) == 13 + 4 + 5 + 4
    assert write_up.machine["cpu_cores"] == 40
    assert write_up.workers("gunicorn") == [1, 40]


def test_figures_are_the_printed_numbers() -> None:
    write_up = load_write_up(ROOT / "loadtests" / "reference" / "files.toml")
    figure = write_up.figure("uvicorn", 40, "download/file")
    assert figure is not None
    assert (figure.requests, figure.rps, figure.avg_ms, figure.p99_ms) == (
        15716,
        1556.09,
        51.29,
        115.47,
    )
    single = write_up.figure("gunicorn", 1, "upload/single")
    assert single is not None
    assert (single.rps, single.p50_ms, single.max_ms) == (249.20, 310.75, 536.05)
    assert write_up.figure("gunicorn", 1, "download/file") is None


def test_rates_are_keyed_by_our_variant_names() -> None:
    write_up = load_write_up(ROOT / "loadtests" / "reference" / "files.toml")
    rates = write_up.rates({"uv": "uvicorn"})
    assert rates[("uv", 1, "upload/single/sync")] == 246.24
    assert all(variant == "uv" for variant, _, _ in rates)
    assert len(rates) == 13 + 5
