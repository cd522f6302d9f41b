"""prometheus_client's multiprocess mode: one directory of memory-mapped files per
server start, shared by its worker processes.

Every process writes its own files (`counter_<pid>.db`, ...) and /metrics, in whichever
worker answers, merges them all, so a counter counts every worker's requests. Two things
are left to the server:

- The directory must start empty: files of a previous run would be counted again. The
  recipes point PROMETHEUS_MULTIPROC_DIR at a tmpfs path in containers (fresh each start)
  and the local runner at a new directory each start; gunicorn's `on_starting` empties it
  as well (`prepare_directory`).
- A dead worker's live gauges (in-flight requests) must be dropped, or its last value
  stays in the sum. gunicorn calls `mark_process_dead` from `child_exit`; uvicorn
  --workers, granian, uWSGI and Tornado have no such hook, so every exposition first
  drops the live gauges of processes that no longer exist (`reap_dead_processes`).
  Counters and histograms of dead workers are kept (their requests did happen), added into
  one file per kind (`counter_exited.db`) by each worker as it starts and by every
  exposition (`fold_exited_processes`): a server whose workers are replaced (max-requests,
  a memory limit) keeps one set of files per running worker, not one per worker it ever ran.

Every value a metric records names its process's file by the process id, which
prometheus_client asks the kernel for on each write (to notice a fork): five system calls
a request, 0.4 µs each on the 2-CPU development VM, a quarter of what recording cost. Here
the id is read once and again in each forked child: `os.register_at_fork` for Python's own
fork (gunicorn, Tornado, multiprocessing), and uWSGI's post-fork hook, as uWSGI forks its
workers from C without running Python's (unless `py-call-osafterfork` is set). This module
must be imported before any metric is defined, as it already must be (`ensure_directory`).
"""

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prometheus_client import multiprocess, values
from prometheus_client.mmap_dict import MmapedDict

ENV = "PROMETHEUS_MULTIPROC_DIR"
# gauge_livesum_1234.db: the live gauges of process 1234.
_LIVE_GAUGE_FILE = re.compile(r"gauge_live\w+?_(\d+)\.db")
# counter_1234.db: values that add up across processes (counters, histograms, summaries).
_SUMMED_FILE = re.compile(r"(counter|histogram|summary)_(\d+)\.db")
# counter_exited.db: the sums of every process that has exited.
EXITED = "exited"


_pid = os.getpid()


def _forked() -> None:
    global _pid
    _pid = os.getpid()


def process_identifier() -> int:
    """This process's id, as of its start or its last fork."""
    return _pid


os.register_at_fork(after_in_child=_forked)
try:
    # Importable only inside a uWSGI process; chains its post-fork hooks (uwsgidecorators'
    # own chain, so that an app's @postfork functions and this one all run).
    from uwsgidecorators import postfork  # type: ignore[import-untyped]
except ImportError:
    pass
else:
    postfork(_forked)
# In multiprocess mode (prometheus_client chose it as it was imported), values made from now
# on know their process without asking the kernel on each write.
if values.ValueClass is not values.MutexValue:
    values.ValueClass = values.MultiProcessValue(process_identifier=process_identifier)  # type: ignore[no-untyped-call]


def directory() -> Path | None:
    """The multiprocess directory, or None when this server runs one process."""
    value = os.environ.get(ENV)
    return Path(value) if value else None


def ensure_directory() -> None:
    """Create the directory if it is set and missing (a worker may be first to need it), and
    fold in the files of the workers this one may replace."""
    path = directory()
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        with locked(path):
            fold_exited_processes(path)


def prepare_directory(path: Path) -> None:
    """Create `path` and remove the files a previous run left in it (server start only)."""
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink(missing_ok=True)


def mark_process_dead(pid: int) -> None:
    """Drop the live gauges of worker `pid` (gunicorn's child_exit hook calls this)."""
    path = directory()
    if path is not None:
        multiprocess.mark_process_dead(pid, str(path))  # type: ignore[no-untyped-call]


def reap_dead_processes(path: Path) -> None:
    """Drop the live gauges of every process that has exited."""
    for entry in path.glob("gauge_live*.db"):
        match = _LIVE_GAUGE_FILE.fullmatch(entry.name)
        if match and not _alive(int(match.group(1))):
            pid = int(match.group(1))
            multiprocess.mark_process_dead(pid, str(path))  # type: ignore[no-untyped-call]


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the directory's lock: folding files and reading them exclude each other, so a
    reader never sees a process's values twice or not at all."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def fold_exited_processes(path: Path) -> None:
    """Drop the live gauges of every process that has exited, and add its counters,
    histograms and summaries into the `<kind>_exited.db` files. Call it holding `locked`."""
    reap_dead_processes(path)
    for entry in path.glob("*.db"):
        match = _SUMMED_FILE.fullmatch(entry.name)
        if match is None or _alive(int(match.group(2))):
            continue
        totals = MmapedDict(str(path / f"{match.group(1)}_{EXITED}.db"))  # type: ignore[no-untyped-call]
        try:
            for key, value, timestamp, _ in MmapedDict.read_all_values_from_file(str(entry)):  # type: ignore[no-untyped-call]
                earlier, _ = totals.read_value(key)  # type: ignore[no-untyped-call]
                totals.write_value(key, earlier + value, timestamp)  # type: ignore[no-untyped-call]
        finally:
            totals.close()  # type: ignore[no-untyped-call]
        entry.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        return True
    return True
