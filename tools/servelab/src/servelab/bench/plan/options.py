"""The command line's choices for `servelab bench`, and where a run's results go."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.errors import BenchError
from servelab.bench.load.remote import check_url, default_label, target_matrix
from servelab.bench.measure.cpus import Pinning, cpu_list, parse_cpus, parse_workers
from servelab.bench.plan.matrix import Matrix
from servelab.project import Project

_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class BenchOptions:
    """`--workers` and `--cpus` as given; `--target` (with `--variant` and
    `--payload-on-target`) runs the load alone; `--on-disk` keeps the servers' files on the
    project's disk rather than a tmpfs (bench.plan.scratch); `--label` and `--out` send the
    results elsewhere than docs/results/<family>.json."""

    workers: str | None = None
    cpus: str | None = None
    target: str | None = None
    variant: str | None = None
    payload_on_target: bool = False
    label: str | None = None
    out: Path | None = None
    on_disk: bool = False

    def check(self) -> None:
        if self.target is None and (self.variant is not None or self.payload_on_target):
            raise BenchError("--variant and --payload-on-target go with --target")
        if self.target is not None and self.on_disk:
            raise BenchError("--on-disk is for a local stack, not a --target")
        if self.label is not None and not _LABEL.fullmatch(self.label):
            raise BenchError(f"--label {self.label!r}: a letter or digit, then also . - _")

    @property
    def target_url(self) -> str | None:
        return check_url(self.target) if self.target is not None else None

    def pinning(self, available: Sequence[int]) -> Pinning | None:
        return parse_cpus(self.cpus, available) if self.cpus is not None else None

    def matrix(self, project: Project, matrix: Matrix, available: Sequence[int]) -> Matrix:
        """The matrix with --workers applied and, with --target, narrowed to one variant."""
        if self.workers is not None:
            matrix = matrix.with_workers(parse_workers(self.workers, available))
        if self.target is not None:
            matrix = target_matrix(project, matrix, self.variant, self.payload_on_target)
        return matrix

    def record(self, matrix: Matrix, pinning: Pinning | None) -> dict[str, str]:
        """What BenchRun.options keeps: the choices as given, the CPUs as used, and with
        --target the variant that ran."""
        given = {"target": self.target_url, "workers": self.workers, "cpus": self.cpus}
        recorded = {key: value for key, value in given.items() if value is not None}
        if self.on_disk:
            recorded["on_disk"] = "yes"
        if self.target is not None:
            recorded["variant"] = matrix.variants[0].name
        # Against a target only k6's CPUs apply: the server runs elsewhere.
        if pinning is not None and pinning.server is not None and self.target is None:
            recorded["cpus_server"] = cpu_list(pinning.server)
        if pinning is not None and pinning.client is not None:
            recorded["cpus_k6"] = cpu_list(pinning.client)
        return recorded

    def results_file(self, results_dir: Path, family: str) -> Path:
        """docs/results/<family>.json, or <family>.<label>.json (the label defaults to the
        target's host for a --target run, so a remote run never overwrites the local
        report), in --out where given."""
        label = self.label
        if label is None and self.target is not None:
            label = default_label(self.target)
        stem = f"{family}.{label}" if label else family
        return (self.out or results_dir) / f"{stem}.json"
