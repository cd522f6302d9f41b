"""Request bytes -> RGB pixels, refusing what is not a whole image of an acceptable size."""

import io
import re
import warnings

import numpy as np
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError


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


def decode_image(data: bytes, max_pixels: int) -> np.ndarray:
    """Decode `data` to an HxWx3 uint8 RGB array (EXIF orientation applied).

    The pixel count is read from the header and checked before any pixel is decoded, so a
    small file declaring a huge image costs nothing. Truncated or corrupt pixel data is an
    error, never an image padded with grey.
    """
    if not data:
        raise not_an_image("the body is empty")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
        except Image.DecompressionBombError as exc:
            # PIL's own limit (twice Image.MAX_IMAGE_PIXELS) fired while reading the header.
            declared = re.search(r"\((\d+) pixels\)", str(exc))
            raise _too_many_pixels(max_pixels, int(declared[1]) if declared else 0) from exc
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
            raise not_an_image() from exc
        with image:
            width, height = image.size
            if width * height > max_pixels:
                raise _too_many_pixels(max_pixels, width * height, f"{width}x{height}")
            if width == 0 or height == 0:
                raise not_an_image("the image has no pixels")
            return _pixels(image)


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


def _too_many_pixels(max_pixels: int, pixels: int, size: str = "") -> ImageError:
    what = f"{size} = {pixels} pixels" if size else f"{pixels} pixels" if pixels else "the image"
    return ImageError(
        "too_many_pixels", 413, f"{what} is more than the limit of {max_pixels} pixels"
    )
