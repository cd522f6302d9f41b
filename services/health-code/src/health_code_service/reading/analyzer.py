"""Screenshot -> typed result: locate what the usage needs, read only that, parse the fields.

`prepare` is the per-image CPU work before any network runs (the QR code, its colour, the
regions to read, the detector's inputs); `read` sends them to the networks, crops and
recognises the lines found, and parses the fields. The network calls go through a
`network.Network`: the engine in the calling thread by default, or a micro-batcher that
many request threads feed (the batched mode), so only those calls are batched.
"""

from dataclasses import dataclass

import numpy as np

from health_code_service.engines import Engine, create_engine
from health_code_service.reading import fields
from health_code_service.reading.qr import QrCode, find_qr, qr_colour
from health_code_service.reading.stages import DETECTION_INPUT, PARSING, QR, stage
from health_code_service.reading.text import Line, Page, Region, page, read_lines
from health_code_service.serving.network import Direct, Network
from health_code_service.settings import Settings
from health_code_service.usages import Colour, Result, Usage

# Text is detected on a copy this wide (screens are drawn for ~1080 px; 448 keeps their
# smallest text about 12 px high, which the detector still finds).
DET_WIDTH = 320
# ... and at most this high: the detector's input and working memory grow with its area, so
# a long narrow image (320 x 16,384) is detected on a copy no larger than a long screenshot's.
DET_MAX_HEIGHT = 2560
# The name and time of a health code lie within these multiples of the code's side above
# and below it.
ABOVE_QR = 1.0
BELOW_QR = 0.5
# The phone's status bar, which holds nothing a usage reads.
STATUS_BAR = 0.035
# Screens are drawn for about 1080 px across and read from 540 px up (health-code-eval's
# range): a JPEG at least twice this on its shorter side is decoded at a reduced scale that
# keeps this much (imaging.decode_image), a fraction of the decoding and of every step after.
READ_SIDE = 720


class AnalysisError(Exception):
    """An image that decoded but holds nothing the usage can read."""

    def __init__(self, code: str, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Prepared:
    """One image made ready for the networks, and what was found before reading text."""

    usage: Usage
    page: Page
    qr: QrCode | None = None
    colour: Colour | None = None


class Analyzer:
    """Loads the configured engine once (or takes one); every method may be called from many
    threads at once."""

    def __init__(self, settings: Settings, engine: Engine | None = None) -> None:
        self.engine = engine or create_engine(settings)
        self.network: Network = Direct(self.engine)

    def analyze(self, usage: Usage, image: np.ndarray, network: Network | None = None) -> Result:
        return self.read(self.prepare(usage, image), network)

    def prepare(self, usage: Usage, image: np.ndarray) -> Prepared:
        """The CPU work before the networks; AnalysisError when the image has no code."""
        usage = Usage(usage)
        height, width = image.shape[:2]
        scale = min(1.0, DET_WIDTH / width, DET_MAX_HEIGHT / height)
        if usage is not Usage.HEALTH_CODE:
            top = int(height * STATUS_BAR)
            with stage(DETECTION_INPUT):
                return Prepared(usage, page(image, [Region(0, top, width, height, scale)]))
        with stage(QR):
            code = find_qr(image)
            colour = None if code is None else qr_colour(image, code)
        if code is None:
            raise AnalysisError("no_code_found", "no QR code found in the image")
        if colour is None:
            raise AnalysisError(
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
        with stage(DETECTION_INPUT):
            return Prepared(usage, page(image, regions), code, colour)

    def read(self, prepared: Prepared, network: Network | None = None) -> Result:
        """Text read through `network` (the engine in this thread by default), then parsed."""
        (lines,) = read_lines(network or self.network, [prepared.page])
        with stage(PARSING):
            outcome = _finish(prepared, lines)
        if isinstance(outcome, AnalysisError):
            raise outcome
        return outcome


def _finish(prepared: Prepared, lines: list[Line]) -> Result | AnalysisError:
    if prepared.qr is not None and prepared.colour is not None:
        return fields.health_code(lines, prepared.qr.text, prepared.colour)
    usage = prepared.usage
    reader = fields.trip_code if usage is Usage.TRIP_CODE else fields.nucleic_acid
    result = reader(lines)
    if result is None:
        return AnalysisError("no_code_found", f"no {usage} screen found in the image")
    return result
