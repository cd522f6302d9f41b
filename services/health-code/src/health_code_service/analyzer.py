"""Screenshot -> typed result: locate what the usage needs, read only that, parse the fields."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from health_code_service import fields
from health_code_service.engines import create_engine
from health_code_service.qr import QrCode, find_qr, qr_colour
from health_code_service.settings import Settings
from health_code_service.text import Line, Region, read_lines
from health_code_service.usages import Colour, Result, Usage

# Text is detected on a copy this wide (screens are drawn for ~1080 px; 448 keeps their
# smallest text about 12 px high, which the detector still finds).
DET_WIDTH = 320
# The name and time of a health code lie within these multiples of the code's side above
# and below it.
ABOVE_QR = 1.0
BELOW_QR = 0.5
# The phone's status bar, which holds nothing a usage reads.
STATUS_BAR = 0.035


class AnalysisError(Exception):
    """An image that decoded but holds nothing the usage can read."""

    def __init__(self, code: str, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message


@dataclass(frozen=True)
class _Plan:
    """What one image needs read: its regions, and what was found before reading text."""

    usage: Usage
    image: np.ndarray
    regions: tuple[Region, ...]
    qr: QrCode | None = None
    colour: Colour | None = None


class Analyzer:
    """Loads the configured engine once; `analyze` may be called from many threads at once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = create_engine(settings)

    def analyze(self, usage: Usage, image: np.ndarray) -> Result:
        outcome = self.analyze_batch([(usage, image)])[0]
        if isinstance(outcome, AnalysisError):
            raise outcome
        return outcome

    def analyze_batch(
        self, items: Sequence[tuple[Usage, np.ndarray]]
    ) -> list[Result | AnalysisError]:
        """Analyse several images with one detection and one recognition pass per input shape."""
        plans: list[_Plan | AnalysisError] = [self._plan(Usage(u), image) for u, image in items]
        ready = [plan for plan in plans if isinstance(plan, _Plan)]
        lines = iter(read_lines(self.engine, [(plan.image, plan.regions) for plan in ready]))
        return [
            plan if isinstance(plan, AnalysisError) else _finish(plan, next(lines))
            for plan in plans
        ]

    def _plan(self, usage: Usage, image: np.ndarray) -> _Plan | AnalysisError:
        height, width = image.shape[:2]
        scale = min(1.0, DET_WIDTH / width)
        if usage is not Usage.HEALTH_CODE:
            top = int(height * STATUS_BAR)
            return _Plan(usage, image, (Region(0, top, width, height, scale),))
        code = find_qr(image)
        if code is None:
            return AnalysisError("no_code_found", "no QR code found in the image")
        colour = qr_colour(image, code)
        if colour is None:
            return AnalysisError(
                "no_code_found", "the QR code is not green, yellow or red like a health code"
            )
        x0, y0, x1, y1 = code.bounds
        side = max(x1 - x0, y1 - y0)
        margin = side // 10
        regions = []
        above = (max(0, int(y0 - ABOVE_QR * side)), max(0, y0 - margin))
        below = (min(height, y1 + margin), min(height, int(y1 + BELOW_QR * side)))
        for top, bottom in (above, below):
            if bottom - top >= side // 8:
                regions.append(Region(0, top, width, bottom, scale))
        return _Plan(usage, image, tuple(regions), code, colour)


def _finish(plan: _Plan, lines: list[Line]) -> Result | AnalysisError:
    if plan.qr is not None and plan.colour is not None:
        return fields.health_code(lines, plan.qr.text, plan.colour)
    reader = fields.trip_code if plan.usage is Usage.TRIP_CODE else fields.nucleic_acid
    result = reader(lines)
    if result is None:
        return AnalysisError("no_code_found", f"no {plan.usage} screen found in the image")
    return result
