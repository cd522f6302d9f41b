"""Synthetic screenshots with ground truth, for tests, the accuracy evaluation and load tests.

`generate(usage, seed)` draws one screen of `usage` in one of its layouts, passes it through
what happens to real screenshots (scaling, a slight rotation, JPEG compression) and answers
the JPEG bytes with the fields the service should read from them.

Two splits: `tune`, the layouts in Noto Sans CJK that the analyzer's thresholds and rules
were developed on, and `held-out`, layouts and a font they never were (`health-code-eval`
reports it apart), which shows how the analyzer does on screens it has not seen.
"""

import io
import random
from typing import Any

from PIL import Image

from health_code_service.synth.fonts import DEFAULT_FAMILY, drawing_in
from health_code_service.synth.layouts import (
    HELD_OUT_FONT,
    HELD_OUT_LAYOUTS,
    LAYOUTS,
    Layout,
    Truth,
)
from health_code_service.usages import Usage

COLOURS = ("green", "yellow", "red")
SPLITS = ("tune", "held-out")


def layouts_of(usage: Usage, split: str = "tune") -> dict[str, Layout]:
    """The layouts `split` draws `usage` in."""
    if split == "tune":
        return LAYOUTS[Usage(usage)]
    if split == "held-out":
        return HELD_OUT_LAYOUTS.get(Usage(usage)) or LAYOUTS[Usage(usage)]
    raise ValueError(f"unknown split {split!r}: use one of {SPLITS}")


def generate(
    usage: Usage,
    seed: int,
    *,
    split: str = "tune",
    layout: str | None = None,
    colour: str | None = None,
    scale: float | None = None,
    rotation: float | None = None,
    quality: int | None = None,
) -> tuple[bytes, Truth]:
    """One JPEG screenshot of `usage` and its truth; the same arguments give the same bytes.

    Options left at None are drawn from `seed`: the layout (one of `split`'s), the code's
    colour, the scale of the 1080 px wide screen (0.5-1.0), a rotation of up to 1.5 degrees
    and the JPEG quality (60-95). The held-out split draws other images for the same seeds.
    """
    layouts = layouts_of(usage, split)
    family = DEFAULT_FAMILY if split == "tune" else HELD_OUT_FONT
    prefix = "" if split == "tune" else f"{split}:"
    rng = random.Random(f"{prefix}{usage}:{seed}")  # noqa: S311 (pictures, not secrets)
    layout = layout or rng.choice(sorted(layouts))
    if layout not in layouts:
        raise ValueError(f"{usage} has no layout {layout!r} in the {split} split")
    colour = colour or rng.choice(COLOURS)
    scale = scale if scale is not None else rng.uniform(0.5, 1.0)
    rotation = rotation if rotation is not None else rng.uniform(-1.5, 1.5)
    quality = quality if quality is not None else rng.randint(60, 95)
    with drawing_in(family):
        image, truth = layouts[layout](rng, colour)
    image = _degrade(image, scale, rotation)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    details: dict[str, Any] = {
        "split": split,
        "font": family,
        "layout": layout,
        "scale": round(scale, 3),
        "rotation": round(rotation, 3),
        "quality": quality,
    }
    return out.getvalue(), {"usage": str(usage), **truth, "synth": details}


def _degrade(image: Image.Image, scale: float, rotation: float) -> Image.Image:
    size = (round(image.width * scale), round(image.height * scale))
    image = image.resize(size, Image.Resampling.LANCZOS)
    if rotation:
        corner = image.getpixel((image.width // 2, image.height - 1))
        image = image.rotate(rotation, Image.Resampling.BICUBIC, expand=False, fillcolor=corner)
    return image
