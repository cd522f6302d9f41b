"""How a request's image reaches the engine (ANALYZE_MODE), behind one call each:

- Inline (async-blocking, threadpool): decode and analyze in the calling thread. The
  route decides which thread that is: the event loop (`async def`) or a thread of
  anyio's pool (`def`).
- ProcessPool (process): decode and analyze in a pool of processes, one Analyzer each,
  built when the process starts; the request sends the encoded bytes, not pixels. A
  pool broken by a dying process is replaced, and the requests it held run again.
- Batched (batched): decode and analyze in anyio's thread pool, like threadpool, except
  that the network calls (detect, recognize) of every request thread join micro-batches
  that one dedicated thread runs on the engine, one batch at a time. Decoding, the QR
  code, resizing, crops and parsing run side by side in the request threads; only the
  engine is shared.
- Inline with one shared paddle engine (shared-threadpool): the write-up's `def`
  endpoint, kept only to be measured (shared_paddle.py); do not deploy.

Each turns the core's failures (ImageError, AnalysisError) into ApiError, so every mode
answers bad input alike.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from anyio import to_thread
from pydantic import BaseModel

from health_code_service.errors import ApiError, api_error
from health_code_service.reading.analyzer import READ_SIDE, AnalysisError, Analyzer
from health_code_service.reading.imaging import ImageError, ImageLimits, decode_image, image_size
from health_code_service.reading.stages import DECODE, stage
from health_code_service.serving.budget import BudgetExhausted, ImageBudget, image_cost
from health_code_service.serving.network import Batched as BatchedNetwork
from health_code_service.serving.network import Network
from health_code_service.serving.sizing import available_cpus, report, server_workers, size
from health_code_service.settings import Settings
from health_code_service.usages import Usage

logger = logging.getLogger(__name__)


def image_limits(settings: Settings) -> ImageLimits:
    return ImageLimits(settings.max_pixels, settings.max_image_side)


class Inline:
    """The engine in this process, called by whichever thread serves the request (through
    `network` when one is given). Each image holds its share of the process's image budget
    from before it is decoded until its answer is ready."""

    def __init__(
        self, settings: Settings, analyzer: Analyzer | None = None, network: Network | None = None
    ) -> None:
        self.limits = image_limits(settings)
        self.budget = ImageBudget(settings.image_budget_bytes, settings.image_budget_wait_s)
        self.analyzer = analyzer or Analyzer(settings)
        self.network = network

    def analyze(self, usage: Usage, data: bytes) -> BaseModel:
        try:
            with stage(DECODE):
                cost = image_cost(*image_size(data, self.limits))
            with self.budget.hold(cost):
                with stage(DECODE):
                    image = decode_image(data, self.limits, READ_SIDE)
                return self.analyzer.analyze(usage, image, self.network)
        except (ImageError, AnalysisError, BudgetExhausted) as error:
            raise api_error(error) from None

    def close(self) -> None:
        """Nothing to release: the analyzer goes with the process."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A core error as a child process returns it: plain fields always unpickle."""

    status: int
    code: str
    message: str


_child_analyzer: Analyzer | None = None


def _start_child(settings: Settings) -> None:
    global _child_analyzer
    _child_analyzer = Analyzer(settings)


def _child_ready() -> None:
    """Returns once the process's initializer has built its analyzer."""


def _analyze_in_child(usage: Usage, data: bytes, limits: ImageLimits) -> BaseModel | Failure:
    assert _child_analyzer is not None, "the pool's initializer builds the analyzer"
    try:
        return _child_analyzer.analyze(usage, decode_image(data, limits, READ_SIDE))
    except (ImageError, AnalysisError) as error:
        return Failure(error.status, error.code, error.message)


class ProcessPool:
    """A pool of engine processes. They are spawned, not forked: a fork of a server
    worker would copy its event loop and threads, and the engine's thread pools.

    A process that dies (killed, out of memory, a crash in native code) breaks the whole
    executor; the first request to see that replaces it with a new pool, and every request
    that was in flight runs once more there (analysis has no side effects). A request
    whose second try breaks the new pool too gets a 503."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.limits = image_limits(settings)
        self.size = settings.process_workers
        self._replacing = threading.Lock()
        self.pool = self._start()

    def _start(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(
            max_workers=self.size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_child,
            initargs=(self.settings,),
        )
        # Start every process (and its analyzer) now rather than on the first requests:
        # each call finds no idle process yet, so the pool spawns one for it.
        for started in [pool.submit(_child_ready) for _ in range(self.size)]:
            started.result()
        return pool

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """Start a new pool in place of `broken`, unless another request already has."""
        with self._replacing:
            if self.pool is broken:
                broken.shutdown(wait=False, cancel_futures=True)
                self.pool = self._start()

    async def analyze(self, usage: Usage, data: bytes) -> BaseModel:
        loop = asyncio.get_running_loop()
        for _ in range(2):
            pool = self.pool
            try:
                outcome = await loop.run_in_executor(
                    pool, _analyze_in_child, usage, data, self.limits
                )
            except BrokenProcessPool:
                await to_thread.run_sync(self._replace, pool)
                continue
            if isinstance(outcome, Failure):
                raise ApiError(outcome.status, outcome.code, outcome.message)
            return outcome
        raise ApiError(503, "engine_unavailable", "an engine process died twice on this request")

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class Batched:
    """Requests analyzed in anyio's threads, their network calls batched across threads."""

    def __init__(self, settings: Settings) -> None:
        analyzer = Analyzer(settings)
        self.network = BatchedNetwork(
            analyzer.engine,
            max_size=settings.batch_max_size,
            max_wait_s=settings.batch_max_wait_ms / 1000,
        )
        self.inline = Inline(settings, analyzer, self.network)

    async def analyze(self, usage: Usage, data: bytes) -> BaseModel:
        return await to_thread.run_sync(self.inline.analyze, usage, data)

    def close(self) -> None:
        self.network.close()


Mode = Inline | ProcessPool | Batched


def start_mode(settings: Settings) -> Mode:
    """The engine behind ANALYZE_MODE, sized to the machine and ready to take requests."""
    sizing = size(settings, available_cpus(), server_workers())
    report(sizing)
    settings = sizing.apply(settings)
    if settings.analyze_mode == "process":
        return ProcessPool(settings)
    if settings.analyze_mode == "batched":
        return Batched(settings)
    if settings.analyze_mode == "shared-threadpool":
        return _shared_paddle(settings)
    return Inline(settings)


def _shared_paddle(settings: Settings) -> Inline:
    if settings.ocr_engine != "paddle":
        raise ValueError(
            "ANALYZE_MODE=shared-threadpool shares a paddle engine: set OCR_ENGINE=paddle"
        )
    logger.warning(
        "health-code: ANALYZE_MODE=shared-threadpool shares one paddle engine across threads "
        "without a lock, to measure the write-up's failures; do not deploy it"
    )
    from health_code_service.serving.shared_paddle import SharedPaddleEngine

    engine = SharedPaddleEngine(settings.ocr_device, settings.ocr_threads)
    return Inline(settings, Analyzer(settings, engine))
