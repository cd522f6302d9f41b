"""Find and decode the QR code of a health code, and measure its colour from its pixels."""

from dataclasses import dataclass

import cv2
import numpy as np
import zxingcpp

from health_code_service.usages import Colour

# zxing needs about 2 px per module; health codes are 25-41 modules across a third or more
# of the screen width, so a copy about 480 px wide keeps 4-6 px per module and decodes fast.
# The copy is shrunk by a whole factor, each of its pixels the mean of a k x k block: OpenCV's
# fast path for that is 20 times cheaper than a fractional one.
SEARCH_WIDTH = 480
# The colour is measured on a copy of the code about this many pixels across.
COLOUR_SIDE = 96
MIN_SATURATION = 0.35
# Hue ranges in degrees.
HUES: tuple[tuple[Colour, float, float], ...] = (
    ("red", 0, 20),
    ("yellow", 25, 75),
    ("green", 80, 190),
    ("red", 320, 360),
)


@dataclass(frozen=True)
class QrCode:
    text: str
    corners: np.ndarray  # 4 x 2 float32 in image coordinates

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        x0, y0 = self.corners.min(axis=0)
        x1, y1 = self.corners.max(axis=0)
        return int(x0), int(y0), int(x1), int(y1)


def find_qr(image: np.ndarray) -> QrCode | None:
    """The largest QR code in `image` (RGB), or None."""
    small, factor = _reduced(image)
    # The darkest channel turns green, yellow and red modules dark on white alike (computed
    # channel against channel: numpy's reduction over a last axis of 3 is 30 times slower).
    darkest = np.minimum(np.minimum(small[:, :, 0], small[:, :, 1]), small[:, :, 2])
    found = zxingcpp.read_barcodes(
        darkest,
        formats=zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode),
        try_rotate=False,
        try_invert=False,
        try_downscale=False,
    )
    if not found:
        return None
    codes = [QrCode(code.text, _corners(code.position) * factor) for code in found]
    return max(codes, key=lambda code: cv2.contourArea(code.corners))


def _reduced(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`image` shrunk by a whole factor to about SEARCH_WIDTH wide, and the (x, y) factors
    back to its coordinates."""
    return shrunk(image, max(1, round(image.shape[1] / SEARCH_WIDTH)))


def shrunk(image: np.ndarray, factor: int) -> tuple[np.ndarray, np.ndarray]:
    """`image` shrunk `factor` times, each pixel the mean of a block (never to nothing: a
    strip 16,384 x 1 keeps its one row), and the (x, y) factors back to its coordinates."""
    height, width = image.shape[:2]
    kx, ky = max(1, min(factor, width)), max(1, min(factor, height))
    if kx == 1 and ky == 1:
        return image, np.ones(2, np.float32)
    # The whole blocks only (a view): a size that divides exactly takes the fast path.
    blocks = image[: height - height % ky, : width - width % kx]
    size = (blocks.shape[1] // kx, blocks.shape[0] // ky)
    small = cv2.resize(blocks, size, interpolation=cv2.INTER_AREA)
    return small, np.array([kx, ky], np.float32)


def _corners(position: zxingcpp.Position) -> np.ndarray:
    points = (position.top_left, position.top_right, position.bottom_right, position.bottom_left)
    return np.array([(p.x, p.y) for p in points], dtype=np.float32)


def qr_colour(image: np.ndarray, code: QrCode) -> Colour | None:
    """The colour of the code's dark modules, or None when they are not clearly coloured."""
    x0, y0, x1, y1 = (max(0, v) for v in code.bounds)
    patch = image[y0 : y1 + 1, x0 : x1 + 1]
    patch, factor = shrunk(patch, round(max(patch.shape[:2]) / COLOUR_SIDE))
    corners = (code.corners - (x0, y0)) / factor
    mask = np.zeros(patch.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    pixels = patch[mask > 0].astype(np.float32)
    if len(pixels) == 0:
        return None
    darkness = np.minimum(np.minimum(pixels[:, 0], pixels[:, 1]), pixels[:, 2])
    dark = pixels[darkness < (darkness.min() + darkness.max()) / 2]
    mean = dark.mean(axis=0).astype(np.uint8).reshape(1, 1, 3)
    hue, saturation, _ = cv2.cvtColor(mean, cv2.COLOR_RGB2HSV_FULL)[0, 0].astype(float)
    if saturation / 255 < MIN_SATURATION:
        return None
    degrees = hue * 360 / 256
    for colour, low, high in HUES:
        if low <= degrees < high:
            return colour
    return None
