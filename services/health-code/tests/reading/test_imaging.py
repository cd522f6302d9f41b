"""decode_image: whole images in, everything else refused with the right code and status."""

from __future__ import annotations

import io
import struct
import time
import zlib
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from health_code_service.reading.imaging import (
    MAX_SIDE,
    ImageError,
    ImageLimits,
    decode_image,
    image_size,
)
from health_code_service.synth import generate
from health_code_service.usages import Usage

LIMIT = ImageLimits(25_000_000)
GreyPng = Callable[[int, int], bytes]


def encoded(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def refused(data: bytes, limits: ImageLimits = LIMIT) -> ImageError:
    with pytest.raises(ImageError) as caught:
        decode_image(data, limits)
    return caught.value


def test_jpeg_decodes_to_rgb_pixels() -> None:
    jpeg, _ = generate(Usage.HEALTH_CODE, 1, scale=0.5)
    pixels = decode_image(jpeg, LIMIT)
    with Image.open(io.BytesIO(jpeg)) as image:
        assert pixels.shape == (image.height, image.width, 3)
        assert np.array_equal(pixels, np.asarray(image.convert("RGB")))
    assert pixels.dtype == np.uint8


@pytest.mark.parametrize(
    ("size", "min_side", "decoded"),
    [
        ((1600, 3000), 720, (800, 1500)),
        ((1600, 3000), 400, (400, 750)),
        ((1600, 3000), 200, (200, 375)),  # libjpeg's smallest scale is 1/8
        ((1400, 3000), 720, (1400, 3000)),  # half would be under 720: whole
        ((1600, 3000), 0, (1600, 3000)),
    ],
)
def test_a_large_jpeg_decodes_at_the_scale_asked_for(
    size: tuple[int, int], min_side: int, decoded: tuple[int, int]
) -> None:
    data = encoded(Image.new("RGB", size, (200, 30, 30)), "JPEG")
    pixels = decode_image(data, LIMIT, min_side)
    assert pixels.shape == (decoded[1], decoded[0], 3)
    assert abs(int(pixels[10, 10, 0]) - 200) < 8


def test_the_shorter_side_is_kept_whatever_the_orientation() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # stored 3000 x 1600: upright 1600 wide, 3000 high
    data = encoded(Image.new("RGB", (3000, 1600), "white"), "JPEG", exif=exif)
    assert decode_image(data, LIMIT, 720).shape == (1500, 800, 3)


def test_other_formats_decode_whole() -> None:
    data = encoded(Image.new("RGB", (1600, 3000), "white"), "PNG")
    assert decode_image(data, LIMIT, 720).shape == (3000, 1600, 3)


@pytest.mark.parametrize("mode", ["RGBA", "L", "P"])
def test_png_of_any_mode_becomes_rgb(mode: str) -> None:
    image = Image.new("RGB", (40, 30), (10, 200, 30)).convert(mode)
    pixels = decode_image(encoded(image, "PNG"), LIMIT)
    assert pixels.shape == (30, 40, 3)


def test_exif_orientation_is_applied() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees: the upright image is 30 wide, 40 high
    data = encoded(Image.new("RGB", (40, 30), "white"), "JPEG", exif=exif)
    assert decode_image(data, LIMIT).shape == (40, 30, 3)


@pytest.mark.parametrize(
    "data", [b"", b"hello", b'{"base64": "abc"}', b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff"]
)
def test_non_images_are_415(data: bytes) -> None:
    error = refused(data)
    assert (error.code, error.status) == ("not_an_image", 415)
    assert error.message


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_truncated_images_are_422(fmt: str) -> None:
    noise = np.random.default_rng(0).integers(0, 255, (200, 300, 3), dtype=np.uint8)
    data = encoded(Image.fromarray(noise), fmt)
    error = refused(data[: len(data) * 2 // 3])
    assert (error.code, error.status) == ("truncated_image", 422)


def _png_declaring(width: int, height: int) -> bytes:
    """A small PNG whose header claims width x height (a decompression bomb's header)."""
    data = encoded(Image.new("L", (8, 8)), "PNG")
    ihdr = struct.pack(">II", width, height) + data[24:29]
    chunk = b"IHDR" + ihdr
    return (
        data[:8] + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)) + data[33:]
    )


@pytest.mark.parametrize("size", [(100_000, 100_000), (6000, 5000)])
def test_pixel_bombs_are_413_before_decoding(size: tuple[int, int]) -> None:
    data = _png_declaring(*size)
    started = time.perf_counter()
    error = refused(data)
    assert time.perf_counter() - started < 0.5
    assert (error.code, error.status) == ("too_many_pixels", 413)
    assert str(size[0] * size[1]) in error.message


def test_the_pixel_limit_is_the_callers() -> None:
    data = encoded(Image.new("RGB", (100, 100)), "PNG")
    assert decode_image(data, ImageLimits(10_000)).shape == (100, 100, 3)
    assert refused(data, ImageLimits(9_999)).code == "too_many_pixels"


@pytest.mark.parametrize("size", [(1, 24_000_000), (24_000_000, 1), (MAX_SIDE + 1, 2)])
def test_a_side_over_the_limit_is_413_though_the_area_is_within_it(
    grey_png: GreyPng, size: tuple[int, int]
) -> None:
    data = grey_png(*size)
    assert len(data) < 100_000
    error = refused(data)
    assert (error.code, error.status) == ("image_side_too_long", 413)
    assert f"{size[0]}x{size[1]}" in error.message
    assert str(MAX_SIDE) in error.message


def test_the_size_is_read_from_the_header_alone(grey_png: GreyPng) -> None:
    assert image_size(grey_png(3, 7), LIMIT) == (3, 7)
    with pytest.raises(ImageError) as caught:
        image_size(_png_declaring(1, 24_000_000), LIMIT)
    assert caught.value.code == "image_side_too_long"
