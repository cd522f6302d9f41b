"""The micro-batcher on a trivial function: when a batch closes, what each request gets."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator, Sequence

import pytest

from health_code_service import metrics
from health_code_service.serving.batcher import BatcherClosed, MicroBatcher


class Recorder:
    """Doubles numbers and records the batches it was given; fails on negative ones."""

    def __init__(self, hold: threading.Event | None = None) -> None:
        self.batches: list[list[int]] = []
        self.threads: set[str] = set()
        self.hold = hold

    def __call__(self, values: Sequence[int]) -> list[int | BaseException]:
        if self.hold is not None:
            self.hold.wait(5)
        self.batches.append(list(values))
        self.threads.add(threading.current_thread().name)
        return [ValueError(f"negative: {v}") if v < 0 else 2 * v for v in values]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def closing() -> Iterator[list[MicroBatcher[int, int]]]:
    made: list[MicroBatcher[int, int]] = []
    yield made
    for batcher in made:
        batcher.close()


def test_a_batch_closes_at_max_size_without_waiting(
    recorder: Recorder, closing: list[MicroBatcher[int, int]]
) -> None:
    batcher = MicroBatcher(recorder, max_size=4, max_wait_s=30)
    closing.append(batcher)
    started = time.monotonic()
    futures = [batcher.submit(n) for n in range(8)]
    assert [f.result(timeout=5) for f in futures] == [2 * n for n in range(8)]
    assert time.monotonic() - started < 5
    assert recorder.batches == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_a_batch_closes_at_max_wait_with_what_has_come(
    recorder: Recorder, closing: list[MicroBatcher[int, int]]
) -> None:
    batcher = MicroBatcher(recorder, max_size=8, max_wait_s=0.2)
    closing.append(batcher)
    started = time.monotonic()
    first = batcher.submit(1)
    time.sleep(0.05)
    second = batcher.submit(2)
    assert (first.result(timeout=5), second.result(timeout=5)) == (2, 4)
    waited = time.monotonic() - started
    assert 0.2 <= waited < 1.0
    assert recorder.batches == [[1, 2]]

    late = batcher.submit(3)
    assert late.result(timeout=5) == 6
    assert recorder.batches == [[1, 2], [3]]


def test_no_wait_makes_batches_of_what_is_queued(closing: list[MicroBatcher[int, int]]) -> None:
    hold = threading.Event()
    recorder = Recorder(hold)
    batcher = MicroBatcher(recorder, max_size=8, max_wait_s=0)
    closing.append(batcher)
    first = batcher.submit(1)
    time.sleep(0.1)
    # Queued while the first batch runs: the next batch takes them all at once.
    rest = [batcher.submit(n) for n in (2, 3, 4)]
    hold.set()
    assert [f.result(timeout=5) for f in [first, *rest]] == [2, 4, 6, 8]
    assert recorder.batches == [[1], [2, 3, 4]]


def test_items_that_waited_during_a_batch_do_not_wait_again(
    closing: list[MicroBatcher[int, int]],
) -> None:
    hold = threading.Event()
    recorder = Recorder(hold)
    batcher = MicroBatcher(recorder, max_size=8, max_wait_s=0.3)
    closing.append(batcher)
    first = batcher.submit(1)
    queued = batcher.submit(2)
    time.sleep(0.5)
    hold.set()
    first.result(timeout=5)
    released = time.monotonic()
    assert queued.result(timeout=5) == 4
    # The first batch ran once 0.3 s had passed; the next item had waited as long.
    assert time.monotonic() - released < 0.2


def test_a_failing_item_fails_only_its_own_request(
    recorder: Recorder, closing: list[MicroBatcher[int, int]]
) -> None:
    batcher = MicroBatcher(recorder, max_size=3, max_wait_s=30)
    closing.append(batcher)
    futures = [batcher.submit(n) for n in (5, -1, 7)]
    assert futures[0].result(timeout=5) == 10
    with pytest.raises(ValueError, match="negative: -1"):
        futures[1].result(timeout=5)
    assert futures[2].result(timeout=5) == 14
    assert recorder.batches == [[5, -1, 7]]


def test_a_batch_that_raises_fails_each_of_its_requests_and_the_next_batch_runs(
    closing: list[MicroBatcher[int, int]],
) -> None:
    calls: list[list[int]] = []

    def explode_once(values: Sequence[int]) -> list[int | BaseException]:
        calls.append(list(values))
        if len(calls) == 1:
            raise RuntimeError("engine failed")
        return list(values)

    batcher: MicroBatcher[int, int] = MicroBatcher(explode_once, max_size=2, max_wait_s=30)
    closing.append(batcher)
    failed = [batcher.submit(n) for n in (1, 2)]
    for future in failed:
        with pytest.raises(RuntimeError, match="engine failed"):
            future.result(timeout=5)
    assert [batcher.submit(n) for n in (3, 4)][1].result(timeout=5) == 4


def test_a_process_returning_too_few_outcomes_fails_the_batch(
    closing: list[MicroBatcher[int, int]],
) -> None:
    batcher: MicroBatcher[int, int] = MicroBatcher(lambda v: list(v)[:1], max_size=2, max_wait_s=1)
    closing.append(batcher)
    futures = [batcher.submit(n) for n in (1, 2)]
    for future in futures:
        with pytest.raises(RuntimeError, match="batch of 2 gave 1 outcomes"):
            future.result(timeout=5)


def test_one_dedicated_thread_runs_every_batch(
    recorder: Recorder, closing: list[MicroBatcher[int, int]]
) -> None:
    batcher = MicroBatcher(recorder, max_size=2, max_wait_s=0.01, name="engine")
    closing.append(batcher)

    async def many() -> list[int]:
        return list(await asyncio.gather(*(batcher.run(n) for n in range(10))))

    assert asyncio.run(many()) == [2 * n for n in range(10)]
    assert recorder.threads == {"engine"}
    assert all(len(batch) <= 2 for batch in recorder.batches)
    assert sorted(n for batch in recorder.batches for n in batch) == list(range(10))


def test_a_cancelled_wait_leaves_the_batch(closing: list[MicroBatcher[int, int]]) -> None:
    hold = threading.Event()
    recorder = Recorder(hold)
    batcher = MicroBatcher(recorder, max_size=8, max_wait_s=0)
    closing.append(batcher)
    busy = batcher.submit(1)
    time.sleep(0.1)

    async def give_up() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(batcher.run(2), timeout=0.05)

    asyncio.run(give_up())
    kept = batcher.submit(3)
    hold.set()
    assert (busy.result(timeout=5), kept.result(timeout=5)) == (2, 6)
    assert recorder.batches == [[1], [3]]


def test_close_runs_what_is_queued_then_refuses(recorder: Recorder) -> None:
    batcher = MicroBatcher(recorder, max_size=2, max_wait_s=30)
    futures = [batcher.submit(n) for n in range(3)]
    batcher.close()
    assert [f.result(timeout=0) for f in futures] == [0, 2, 4]
    with pytest.raises(BatcherClosed):
        batcher.submit(9)


def test_sizes_are_checked() -> None:
    with pytest.raises(ValueError, match="max_size"):
        MicroBatcher(lambda v: list(v), max_size=0, max_wait_s=0)


def test_batches_export_their_size_and_each_items_queue_wait(
    recorder: Recorder, closing: list[MicroBatcher[int, int]]
) -> None:
    sizes = metrics.BATCH_SIZE.collect()[0]
    before = {s.name: s.value for s in sizes.samples if s.name.endswith(("_count", "_sum"))}
    waits = metrics.QUEUE_WAIT.collect()[0]
    waited = next(s.value for s in waits.samples if s.name.endswith("_count"))
    batcher = MicroBatcher(recorder, max_size=4, max_wait_s=30)
    closing.append(batcher)
    assert [f.result(5) for f in [batcher.submit(n) for n in range(4)]] == [0, 2, 4, 6]
    after = {s.name: s.value for s in metrics.BATCH_SIZE.collect()[0].samples}
    assert after["health_code_batch_size_count"] == before["health_code_batch_size_count"] + 1
    assert after["health_code_batch_size_sum"] == before["health_code_batch_size_sum"] + 4
    now = next(
        s.value for s in metrics.QUEUE_WAIT.collect()[0].samples if s.name.endswith("_count")
    )
    assert now == waited + 4
