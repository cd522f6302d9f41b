"""The stacks a benchmark run measures: one per cell, or each kept up across its cells.

A family whose stacks take long to start (the entry editor's migrates, loads its corpus
and its compute service's models: about 12 s) sets `[stacks] keep = true`. A stack then
starts at its variant's first cell, serves every later cell with the same server settings,
workers and CPUs, and stops when the run moves on to another worker count or ends. The
cells still take turns variant by variant (Matrix.cells), so every variant's stack is up
while the others are measured: idle, on the same CPUs. A stack is stopped when a cell on
it fails, or found stopped when a server of it has exited; the variant's next cell then
starts a new one.

What kept stacks change: a cell's server has already served the variant's earlier cells
(each cell still warms up first), and its memory is the peak during the cell, which
includes what earlier cells left. `clear` names the volumes emptied after every cell, so
uploads do not pile up on disk or in a listing the next cell reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import TextIO

from servelab.bench.measure.cpus import Pinning
from servelab.bench.plan.matrix import Cell
from servelab.stack import Stack

# What a stack is started from: the runner's Stack(...) for a cell, its pinning and log sink.
Starter = Callable[[Cell, Pinning, TextIO], Stack]


@dataclass(frozen=True)
class _Key:
    variant: str
    workers: int
    settings: tuple[tuple[str, str], ...]
    pinning: Pinning


@dataclass
class _Kept:
    stack: Stack
    log: TextIO
    # The endpoints (keys) it has served a cell of.
    served: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Serving:
    stack: Stack
    # Whether this stack has served this cell before (an earlier round): warm already.
    warm: bool


@dataclass
class Stacks:
    """`with Stacks(...) as stacks:` then, per cell, `with stacks.serving(cell, ...) as s`."""

    start: Starter
    prepare: Callable[[Stack], None]
    work_dir: Path
    _: KW_ONLY
    keep: bool = False
    clear: tuple[str, ...] = ()
    _kept: dict[_Key, _Kept] = field(default_factory=dict)

    def __enter__(self) -> Stacks:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop(lambda key: True)

    @contextmanager
    def serving(self, cell: Cell, pinning: Pinning, slug: str) -> Iterator[Serving]:
        """The cell's stack, running: a new one stopped afterwards, or the kept one."""
        if not self.keep:
            with (
                (self.work_dir / f"{slug}.server.log").open("w") as log,
                self.start(cell, pinning, log) as stack,
            ):
                self.prepare(stack)
                yield Serving(stack, warm=False)
            return
        settings = tuple(sorted(cell.server_env.items()))
        key = _Key(cell.variant.name, cell.workers, settings, pinning)
        self.stop(lambda other: other.workers != cell.workers)
        kept = self._kept.get(key)
        if kept is not None and kept.stack.exited():
            self.stop(lambda other: other == key)
            kept = None
        kept = kept or self._started(key, cell, pinning)
        try:
            yield Serving(kept.stack, warm=cell.endpoint.key in kept.served)
        except BaseException:
            self.stop(lambda other: other == key)
            raise
        kept.served.add(cell.endpoint.key)
        for volume in self.clear:
            _empty(kept.stack.volume(volume))

    def _started(self, key: _Key, cell: Cell, pinning: Pinning) -> _Kept:
        log = (self.work_dir / f"{cell.variant.name}-w{cell.workers}.server.log").open("w")
        try:
            stack = self.start(cell, pinning, log)
            stack.start()
        except BaseException:
            log.close()
            raise
        kept = self._kept[key] = _Kept(stack, log)
        self.prepare(stack)
        return kept

    def stop(self, which: Callable[[_Key], bool]) -> None:
        """Stop the kept stacks whose key `which` picks."""
        for key in [key for key in self._kept if which(key)]:
            kept = self._kept.pop(key)
            try:
                kept.stack.stop()
            finally:
                kept.log.close()


def _empty(directory: Path) -> None:
    """Remove the files under `directory`, keeping the directories the server made there."""
    if directory.is_dir():
        for path in [path for path in directory.rglob("*") if not path.is_dir()]:
            path.unlink(missing_ok=True)
