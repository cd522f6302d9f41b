"""The image budget: at most what it holds is decoded at once in a process, the rest waits or
gets a 503 with Retry-After, and every request's share comes back."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from pydantic import BaseModel

from health_code_service.errors import ApiError
from health_code_service.reading.analyzer import Analyzer
from health_code_service.serving.budget import BudgetExhausted, ImageBudget, image_cost
from health_code_service.serving.modes import Inline
from health_code_service.settings import Settings
from health_code_service.usages import Usage

# Long enough that a thread which should be admitted never times out on a busy machine;
# no assertion reads a clock.
PATIENT_S = 60.0


class Gate:
    """Threads that hold their share until the test opens the gate, counting how many are
    inside at once."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self._lock = threading.Lock()
        self.inside = 0
        self.most_inside = 0

    def enter(self) -> None:
        with self._lock:
            self.inside += 1
            self.most_inside = max(self.most_inside, self.inside)
        assert self.open.wait(PATIENT_S)
        with self._lock:
            self.inside -= 1


def eventually(predicate: Callable[[], bool]) -> None:
    """Wait for `predicate` to hold; fail rather than hang when it never does."""
    stop = threading.Event()
    for _ in range(int(PATIENT_S / 0.01)):
        if predicate():
            return
        stop.wait(0.01)
    pytest.fail("the threads never reached the state the test waits for")


@pytest.fixture
def threads() -> Iterator[list[threading.Thread]]:
    started: list[threading.Thread] = []
    yield started
    for thread in started:
        thread.join(PATIENT_S)


class Done(BaseModel):
    """What the gated analyzer answers."""


class _Gated(Analyzer):
    """An analyzer that holds each image until the gate opens."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate

    def analyze(self, *args: object, **kwargs: object) -> BaseModel:
        self.gate.enter()
        return Done()


def test_at_most_what_the_budget_holds_is_analyzed_at_once(
    threads: list[threading.Thread], grey_png: Callable[[int, int], bytes]
) -> None:
    """Ten requests at once, room for three images: three are decoded and analyzed, seven
    wait, and all ten are answered once the first are done."""
    image = grey_png(1000, 1000)
    cost = image_cost(1000, 1000)
    settings = Settings(image_budget_bytes=3 * cost, image_budget_wait_s=PATIENT_S)
    gate = Gate()
    inline = Inline(settings, analyzer=_Gated(gate))
    answered: list[BaseModel] = []
    threads.extend(
        threading.Thread(target=lambda: answered.append(inline.analyze(Usage.TRIP_CODE, image)))
        for _ in range(10)
    )
    for thread in threads:
        thread.start()
    try:
        eventually(lambda: inline.budget.waiting == 7 and gate.inside == 3)
        assert inline.budget.in_use == 3 * cost
    finally:
        gate.open.set()
    for thread in threads:
        thread.join(PATIENT_S)
    assert gate.most_inside == 3
    assert len(answered) == 10
    assert inline.budget.in_use == 0


def test_a_request_without_room_within_the_wait_is_refused() -> None:
    budget = ImageBudget(capacity=100, wait_s=0)
    with budget.hold(60), pytest.raises(BudgetExhausted) as caught, budget.hold(60):
        pytest.fail("admitted past the budget")
    assert (caught.value.status, caught.value.code, caught.value.retry_after) == (503, "busy", 1)
    assert budget.in_use == 0


def test_an_image_larger_than_the_budget_runs_alone() -> None:
    budget = ImageBudget(capacity=100, wait_s=0)
    with budget.hold(1000):
        assert budget.in_use == 100
        with pytest.raises(BudgetExhausted), budget.hold(1):
            pytest.fail("admitted beside an image that takes the whole budget")
    assert budget.in_use == 0


def test_a_share_comes_back_when_the_analysis_fails() -> None:
    budget = ImageBudget(capacity=100, wait_s=0)
    with pytest.raises(ValueError, match="engine"), budget.hold(100):
        raise ValueError("engine failed")
    assert budget.in_use == 0


class _Refusing(Analyzer):
    """An analyzer that must never be reached."""

    def __init__(self) -> None:
        pass

    def analyze(self, *args: object, **kwargs: object) -> BaseModel:
        raise AssertionError("decoded past a full budget")


def test_a_busy_process_answers_503_busy_with_retry_after(
    grey_png: Callable[[int, int], bytes],
) -> None:
    settings = Settings(image_budget_bytes=image_cost(1000, 1000), image_budget_wait_s=0)
    inline = Inline(settings, analyzer=_Refusing())
    with inline.budget.hold(1), pytest.raises(ApiError) as caught:
        inline.analyze(Usage.TRIP_CODE, grey_png(1000, 1000))
    assert (caught.value.status, caught.value.code) == (503, "busy")
    assert caught.value.headers == {"Retry-After": "1"}
