"""The engine's share of the machine: how many engine processes (process mode) and intra-op
threads each server worker gets, when the settings leave them at 0 ("sized to the machine").

The CPUs this process may run on are divided among the server workers, because every worker
builds its own engines: on 16 CPUs, 4 workers that each started one engine process per CPU
ran 64 processes and served 33 requests/s against 60 for one worker (a 16-CPU GPU machine).
A mode that cannot use the machine as configured says so in one line at start-up.
"""

import logging
import os
from dataclasses import dataclass

from health_code_service.settings import Settings

logger = logging.getLogger(__name__)

# Modes whose worker runs one engine call at a time: intra-op threads are their only way to
# use more than one CPU for inference.
ONE_CALL_AT_A_TIME = ("async-blocking", "batched")


def server_workers() -> int:
    """How many server workers share this machine, as the deploy recipes set it."""
    return max(1, int(os.environ.get("WEB_CONCURRENCY") or 1))


def available_cpus() -> int:
    return len(os.sched_getaffinity(0))


@dataclass(frozen=True)
class Sizing:
    cpus: int
    workers: int
    engine_processes: int  # per worker; 0 outside the process mode
    engine_threads: int  # intra-op threads of each engine
    warnings: tuple[str, ...]

    def apply(self, settings: Settings) -> Settings:
        """`settings` with the engine counts filled in."""
        return settings.model_copy(
            update={"ocr_threads": self.engine_threads, "process_workers": self.engine_processes}
        )


def size(settings: Settings, cpus: int, workers: int) -> Sizing:
    """The share of `cpus` each of `workers` workers gives its engines in `settings`' mode."""
    share = max(1, cpus // (workers * settings.replicas))
    mode = settings.analyze_mode
    on_cpu = settings.ocr_device == "cpu"
    warnings = []
    if mode == "process":
        processes = settings.process_workers or share
        threads = settings.ocr_threads or 1
        running = workers * processes * threads
        what = f"{workers} worker(s) x {processes} engine process(es) x {threads} thread(s)"
    elif mode in ONE_CALL_AT_A_TIME:
        processes = 0
        threads = settings.ocr_threads or share
        running = workers * threads
        what = f"{workers} worker(s) x 1 engine call at a time x {threads} thread(s)"
    else:
        # threadpool: up to 40 requests per worker run the engine side by side, one thread
        # each is already as many as the CPUs.
        processes = 0
        threads = settings.ocr_threads or 1
        running = workers * threads
        what = f"{workers} worker(s) x {threads} thread(s) per request"
        if threads > 1:
            warnings.append(
                f"{mode} with OCR_THREADS={threads}: every request running at once starts "
                f"{threads} engine threads on {cpus} CPUs; OCR_THREADS=0 gives each one thread"
            )
    divided = mode == "process" or mode in ONE_CALL_AT_A_TIME
    if on_cpu and divided and running < cpus:
        warnings.append(
            f"{mode} on the CPU uses {running} of {cpus} CPUs for inference ({what}); "
            "set OCR_THREADS=0 and PROCESS_WORKERS=0 to divide the CPUs among the workers"
        )
    if on_cpu and divided and running > cpus:
        warnings.append(
            f"{mode} runs {running} engine threads on {cpus} CPUs ({what}): they contend "
            "for the CPUs; set OCR_THREADS=0 and PROCESS_WORKERS=0 to divide them"
        )
    if mode == "async-blocking" and workers < cpus:
        warnings.append(
            f"async-blocking serves one request at a time per worker: decoding and finding "
            f"the code use {workers} of {cpus} CPUs; use threadpool or more workers"
        )
    return Sizing(cpus, workers, processes, threads, tuple(warnings))


def sized(settings: Settings) -> Settings:
    """`settings` with any engine count left at 0 sized to this machine and its workers."""
    return size(settings, available_cpus(), server_workers()).apply(settings)


def report(sizing: Sizing) -> None:
    """One line per way the configuration cannot use the machine."""
    for warning in sizing.warnings:
        logger.warning("health-code: %s", warning)
