"""What `servelab soak FAMILY` loads: the family's [soak] (servelab.spec.reliability.Soak: one
bench variant and one endpoint), and the rate, half the variant's measured capacity
(docs/results/<family>.json's best cell for that variant and endpoint, in successful
answers per second)."""

from __future__ import annotations

import json

from servelab.project import Project
from servelab.spec.family import SpecError
from servelab.spec.reliability import Soak, chosen


class SoakError(RuntimeError):
    """No such family, or no capacity to take half of."""


def measured_capacity(project: Project, target: Soak) -> float | None:
    """The most successful requests/s any saved cell of the target's variant and endpoint
    measured, in this run's results or else the committed reference's (a constant-rate
    cell past capacity sheds the rest: its failed share is not capacity)."""
    saved = f"{target.family}.json"
    path = project.results / saved
    if not path.is_file():
        path = project.reference / saved
    if not path.is_file():
        return None
    cells = json.loads(path.read_text()).get("cells", [])
    good = [
        float(measured.get("rps", 0.0)) * (1.0 - float(measured.get("failed_rate", 0.0)))
        for cell in cells
        if cell.get("variant") == target.variant
        and str(cell.get("endpoint", "")).startswith(target.cell_endpoint)
        for measured in [cell.get("measurement") or {}]
    ]
    return max(good, default=0.0) or None


def soaks(project: Project, families: list[str] | None = None) -> dict[str, Soak]:
    """The [soak] of each family named (default: every family that has one)."""
    try:
        return chosen(project, lambda spec: spec.soak, "soak", families or [])
    except SpecError as error:
        raise SoakError(str(error)) from error
