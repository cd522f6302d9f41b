"""The soak's verdicts (servelab.reliability.soak.run.judge) on recorded sample series: after
the warm-up (the first fifth of the samples), the median of the last third of the samples
against that of the first third, each measure within its stated tolerance (RSS: 10 % or
16 MiB, whichever is more; descriptors 5; CLOSE_WAIT sockets, DB connections, temp files
2). The series are shaped after the saved soaks (docs/results/reliability/soak-*.json): a
server near 90 MiB sampled every 3 s for a minute."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from servelab.reliability.rows import Row, Verdict
from servelab.reliability.soak.run import judge
from servelab.reliability.soak.sampling import Sample
from servelab.spec.reliability import Soak

FILES = Soak(
    family="files",
    variant="uvicorn",
    profile="uvicorn",
    service="files-uvicorn",
    endpoint="/files/{id}",
    cell_endpoint="GET /files/{id}",
)
ENTRYEDITOR = Soak(
    family="entryeditor",
    variant="uwsgi",
    profile="uwsgi",
    service="entryeditor-nginx",
    servers=("entryeditor-nginx", "entryeditor-uwsgi", "entryeditor-compute"),
    endpoint="/entryeditor/entryeditor/47",
    cell_endpoint="detail",
    database=True,
)
# What a healthy server held once warm.
STEADY = Sample(
    at_s=0.0, rss_mib=90.0, fds=24, sockets=6, close_wait=0, db_connections=4, temp_files=3
)


def series(count: int = 20, /, **measures: Sequence[float]) -> list[Sample]:
    """`count` samples of STEADY, every 3 s, with the measures given taking the given
    values one sample after another."""
    samples = []
    for n in range(count):
        changed = {name: values[n] for name, values in measures.items()}
        samples.append(replace(STEADY, at_s=3.0 * n, **changed))  # type: ignore[arg-type]
    return samples


def rows(probes: Sequence[Row]) -> dict[str, Row]:
    """The rows by measure: `soak 60 s: memory (RSS)` -> `memory (RSS)`."""
    return {probe.probe.split(": ", 1)[1]: probe for probe in probes}


def verdicts(target: Soak, samples: Sequence[Sample]) -> dict[str, Verdict]:
    return {name: probe.verdict for name, probe in rows(judge(target, samples, 60)).items()}


def rss(values: Sequence[float]) -> list[Sample]:
    return series(len(values), rss_mib=values)


# --- flat -------------------------------------------------------------------------------


def test_a_flat_soak_passes_every_measure() -> None:
    assert set(verdicts(FILES, series()).values()) == {Verdict.PASS}


def test_db_connections_are_judged_only_where_the_target_has_a_database() -> None:
    assert "DB connections" not in verdicts(FILES, series())
    assert list(verdicts(ENTRYEDITOR, series())) == [
        "memory (RSS)",
        "file descriptors (not sockets)",
        "sockets left in CLOSE_WAIT",
        "DB connections",
        "temp files",
    ]


def test_a_row_names_the_soaks_length_and_its_target() -> None:
    probe = judge(ENTRYEDITOR, series(), 600)[0]

    assert probe.probe == "soak 600 s: memory (RSS)"
    assert probe.target == (
        "entryeditor uwsgi (entryeditor-nginx, entryeditor-uwsgi, entryeditor-compute)"
    )
    assert probe.expected == "flat after warm-up: growth within 10 % or 16 MiB, whichever is more"


# --- what is judged: after the warm-up, thirds by median --------------------------------


def test_the_warm_up_is_left_out_however_much_it_grows() -> None:
    # 20 samples: the first 4 are the warm-up (caches and pools filling), then flat.
    values = [40.0, 60.0, 75.0, 85.0, *[90.0] * 16]

    probe = rows(judge(FILES, rss(values), 60))["memory (RSS)"]

    assert probe.verdict is Verdict.PASS
    assert probe.figures["samples"] == 16
    assert (probe.figures["baseline"], probe.figures["final"], probe.figures["growth"]) == (
        90.0,
        90.0,
        0.0,
    )
    assert probe.figures["max"] == 90.0


def test_growth_is_the_median_of_the_last_third_over_the_median_of_the_first() -> None:
    # After the warm-up (2 of 10), 8 samples: thirds of 2; medians of [100, 102] and [130, 140].
    values = [50.0, 70.0, 100.0, 102.0, 110.0, 115.0, 120.0, 125.0, 130.0, 140.0]

    probe = rows(judge(FILES, rss(values), 30))["memory (RSS)"]

    assert (probe.figures["baseline"], probe.figures["final"]) == (101.0, 135.0)
    assert probe.figures["growth"] == 34.0
    assert probe.verdict is Verdict.FAIL
    assert "101 MiB early, 135 MiB late (growth +34)" in probe.observed


def test_a_steady_leak_fails_memory() -> None:
    # 2 MiB a sample (every 3 s): the thirds' medians 28 MiB apart, past 16 MiB.
    values = [90.0 + 2 * n for n in range(24)]

    probe = rows(judge(FILES, rss(values), 72))["memory (RSS)"]

    assert probe.verdict is Verdict.FAIL
    assert probe.figures["growth"] > 16


def test_a_leak_that_starts_late_in_the_soak_still_fails() -> None:
    values = [90.0] * 14 + [120.0] * 6

    assert verdicts(FILES, rss(values))["memory (RSS)"] is Verdict.FAIL


def test_noise_and_single_spikes_around_a_flat_line_pass() -> None:
    # A garbage collector's sawtooth, and one spike in each third: the medians hold.
    wobble = [88.0, 93.0, 89.0, 92.0]
    values = [wobble[n % 4] for n in range(20)]
    values[6] = values[18] = 140.0

    probe = rows(judge(FILES, rss(values), 60))["memory (RSS)"]

    assert probe.verdict is Verdict.PASS
    assert probe.figures["max"] == 140.0


def test_memory_that_shrinks_passes() -> None:
    values = [150.0 - 2 * n for n in range(20)]

    probe = rows(judge(FILES, rss(values), 60))["memory (RSS)"]

    assert probe.verdict is Verdict.PASS
    assert probe.figures["growth"] < 0


# --- the tolerances, at their boundaries -------------------------------------------------


@pytest.mark.parametrize(
    ("late_mib", "verdict"),
    [(106.0, Verdict.PASS), (116.0, Verdict.PASS), (116.1, Verdict.FAIL)],
)
def test_a_small_servers_memory_may_grow_16_mib(late_mib: float, verdict: Verdict) -> None:
    # A baseline of 100 MiB: 10 % is 10 MiB, less than 16.
    values = [100.0] * 10 + [late_mib] * 10

    assert verdicts(FILES, rss(values))["memory (RSS)"] is verdict


@pytest.mark.parametrize(
    ("late_mib", "verdict"),
    [(525.0, Verdict.PASS), (550.0, Verdict.PASS), (550.5, Verdict.FAIL)],
)
def test_a_large_servers_memory_may_grow_a_tenth(late_mib: float, verdict: Verdict) -> None:
    # The entry editor's three servers near 500 MiB: 10 % is 50 MiB, more than 16.
    values = [500.0] * 10 + [late_mib] * 10

    assert verdicts(ENTRYEDITOR, rss(values))["memory (RSS)"] is verdict


@pytest.mark.parametrize(("growth", "verdict"), [(5, Verdict.PASS), (6, Verdict.FAIL)])
def test_descriptors_may_grow_by_five(growth: int, verdict: Verdict) -> None:
    fds = [24] * 10 + [24 + growth] * 10

    assert verdicts(FILES, series(fds=fds))["file descriptors (not sockets)"] is verdict


@pytest.mark.parametrize(
    ("measure", "name"),
    [
        ("close_wait", "sockets left in CLOSE_WAIT"),
        ("db_connections", "DB connections"),
        ("temp_files", "temp files"),
    ],
)
@pytest.mark.parametrize(("growth", "verdict"), [(2, Verdict.PASS), (3, Verdict.FAIL)])
def test_sockets_connections_and_temp_files_may_grow_by_two(
    measure: str, name: str, growth: int, verdict: Verdict
) -> None:
    base = getattr(STEADY, measure)
    values = [base] * 10 + [base + growth] * 10

    assert verdicts(ENTRYEDITOR, series(**{measure: values}))[name] is verdict


def test_sockets_that_follow_the_clients_connections_are_not_judged() -> None:
    # k6 opens more connections when answers slow down: the socket count may double.
    sockets = [6] * 10 + [12] * 10

    assert set(verdicts(FILES, series(sockets=sockets)).values()) == {Verdict.PASS}


def test_a_leak_of_one_measure_fails_that_row_alone() -> None:
    samples = series(close_wait=[0] * 10 + [9] * 10)

    judged = verdicts(ENTRYEDITOR, samples)

    assert [name for name, verdict in judged.items() if verdict is Verdict.FAIL] == [
        "sockets left in CLOSE_WAIT"
    ]


# --- short series -----------------------------------------------------------------------


@pytest.mark.parametrize(("count", "judged"), [(1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (10, 8)])
def test_the_warm_up_is_at_least_one_sample_and_takes_a_fifth(count: int, judged: int) -> None:
    probe = rows(judge(FILES, series(count), 5))["memory (RSS)"]

    assert probe.figures["samples"] == judged


@pytest.mark.parametrize("count", [0, 1, 2])
def test_too_few_samples_to_compare_fail_every_measure_and_say_so(count: int) -> None:
    judged = judge(ENTRYEDITOR, series(count), 3)

    assert len(judged) == 5
    for probe in judged:
        assert probe.verdict is Verdict.FAIL
        assert probe.observed.startswith(f"too few samples to judge: {count} in all")


def test_three_samples_are_enough_to_compare_and_can_fail() -> None:
    assert verdicts(FILES, rss([90.0, 90.0, 90.0]))["memory (RSS)"] is Verdict.PASS
    assert verdicts(FILES, rss([90.0, 90.0, 200.0]))["memory (RSS)"] is Verdict.FAIL


def test_a_short_soak_compares_its_first_and_last_judged_samples() -> None:
    # 4 samples: 1 warm-up, then 3 judged in thirds of one sample each.
    values = [50.0, 90.0, 95.0, 110.0]

    probe = rows(judge(FILES, rss(values), 12))["memory (RSS)"]

    assert (probe.figures["baseline"], probe.figures["final"]) == (90.0, 110.0)
    assert probe.verdict is Verdict.FAIL
