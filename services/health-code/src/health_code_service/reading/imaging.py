"""Request bytes -> RGB pixels, refusing what is not a whole image of an acceptable size."""

import io
import math
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

# The longest side any step after decoding takes (zxing stops at 65,535; the detector's
# input is bounded by its own caps): long screenshots of a phone stay well within it.
MAX_SIDE = 16_384


class ImageError(Exception):
    """Bytes that are not a usable image; `status` is the HTTP status to answer with."""

    def __init__(self, code: str, status: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message


def not_an_image(
    message: str = "the body is not a JPEG, PNG, WebP, GIF or BMP image",
) -> ImageError:
    return ImageError("not_an_image", 415, message)


@dataclass(frozen=True, slots=True)
class ImageLimits:
    """What an image may declare: its area, and each side on its own (a 1 x 24,000,000
    image is under any sane area limit, yet no step after decoding takes it)."""

    max_pixels: int
    max_side: int = MAX_SIDE


def image_size(data: bytes, limits: ImageLimits) -> tuple[int, int]:
    """The (width, height) the header declares, checked against `limits`; no pixel decoded."""
    with _opened(data, limits) as image:
        return image.size


def decode_image(data: bytes, limits: ImageLimits, min_side: int = 0) -> np.ndarray:
    """Decode `data` to an HxWx3 uint8 RGB array (EXIF orientation applied).

    The size is read from the header and checked (each side, then the area) before any
    pixel is decoded, so a small file declaring a huge image costs nothing. Truncated or
    corrupt pixel data is an error, never an image padded with grey. A JPEG whose shorter
    side is at least twice `min_side` is decoded at the smallest of its scales (1/2, 1/4,
    1/8: libjpeg's, a fraction of the work) that keeps that side at least `min_side`.
    """
    with _opened(data, limits) as image:
        width, height = image.size
        if min_side and min(width, height) >= 2 * min_side:
            ratio = min_side / min(width, height)
            image.draft(None, (math.ceil(width * ratio), math.ceil(height * ratio)))
        return _pixels(image)


@contextmanager
def _opened(data: bytes, limits: ImageLimits) -> Iterator[ImageFile.ImageFile]:
    """The image, its header read and its size within `limits` (Image.open is lazy)."""
    if not data:
        raise not_an_image("the body is empty")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
        except Image.DecompressionBombError as exc:
            # PIL's own limit (twice Image.MAX_IMAGE_PIXELS) fired while reading the header.
            declared = re.search(r"\((\d+) pixels\)", str(exc))
            raise _too_many_pixels(limits, int(declared[1]) if declared else 0) from exc
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
            raise not_an_image() from exc
        with image:
            width, height = image.size
            if max(width, height) > limits.max_side:
                raise ImageError(
                    "image_side_too_long",
                    413,
                    f"{width}x{height} has a side over the limit of {limits.max_side} pixels",
                )
            if width * height > limits.max_pixels:
                raise _too_many_pixels(limits, width * height, f"{width}x{height}")
            if width == 0 or height == 0:
                raise not_an_image("the image has no pixels")
            yield image


def _pixels(image: ImageFile.ImageFile | Image.Image) -> np.ndarray:
    try:
        # ImageFile.LOAD_TRUNCATED_IMAGES stays False: a short file raises instead of padding.
        image.load()
        ImageOps.exif_transpose(image, in_place=True)
        rgb = image if image.mode == "RGB" else image.convert("RGB")
        return np.asarray(rgb, dtype=np.uint8)
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError(
            "truncated_image", 422, f"the image data is truncated or corrupt ({exc})"
        ) from exc


def _too_many_pixels(limits: ImageLimits, pixels: int, size: str = "") -> ImageError:
    what = f"{size} = {pixels} pixels" if size else f"{pixels} pixels" if pixels else "the image"
    return ImageError(
        "too_many_pixels", 413, f"{what} is more than the limit of {limits.max_pixels} pixels"
    )
