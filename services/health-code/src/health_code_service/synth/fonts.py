"""The CJK fonts the generator draws with, both from Debian (scripts/bootstrap.sh installs them):
Noto Sans CJK SC (fonts-noto-cjk), which every layout is tuned on, and WenQuanYi Micro Hei
(fonts-wqy-microhei), a sans-serif of another design kept for the held-out split.

The family of the screen being drawn is a context variable that `drawing_in` sets, so the
layouts draw in whichever family the split asks for without passing it through every call.
"""

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import ImageFont


@dataclass(frozen=True)
class Family:
    fontconfig: str  # the name fc-match knows it by
    files: dict[str, str]  # weight -> file name
    known_dir: Path  # where Debian's package puts the files
    index: int  # face inside the .ttc collection
    package: str  # the Debian package that ships it


FAMILIES = {
    # Face 2 of the Noto collections is SC (they hold JP, KR, SC, TC, HK).
    "noto-sans-cjk": Family(
        "Noto Sans CJK SC",
        {"regular": "NotoSansCJK-Regular.ttc", "bold": "NotoSansCJK-Bold.ttc"},
        Path("/usr/share/fonts/opentype/noto"),
        2,
        "fonts-noto-cjk",
    ),
    # Micro Hei has no bold face: bold text is drawn in its regular one.
    "wqy-microhei": Family(
        "WenQuanYi Micro Hei",
        {"regular": "wqy-microhei.ttc", "bold": "wqy-microhei.ttc"},
        Path("/usr/share/fonts/truetype/wqy"),
        0,
        "fonts-wqy-microhei",
    ),
}
DEFAULT_FAMILY = "noto-sans-cjk"

_drawing: ContextVar[str] = ContextVar("font_family", default=DEFAULT_FAMILY)


class FontMissingError(RuntimeError):
    pass


@contextmanager
def drawing_in(family: str) -> Iterator[None]:
    """Draw text in `family` (a key of FAMILIES) until the block ends."""
    if family not in FAMILIES:
        raise ValueError(f"unknown font family {family!r}: use one of {sorted(FAMILIES)}")
    token = _drawing.set(family)
    try:
        yield
    finally:
        _drawing.reset(token)


@cache
def font_file(weight: str, family: str = DEFAULT_FAMILY) -> Path:
    """The file of `family` in `weight`, found by fontconfig or at Debian's known path."""
    spec = FAMILIES[family]
    if shutil.which("fc-match"):
        style = "Bold" if weight == "bold" else "Regular"
        found = subprocess.run(
            ["fc-match", "-f", "%{file}", f"{spec.fontconfig}:style={style}"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if found.endswith(spec.files[weight]):
            return Path(found)
    known = spec.known_dir / spec.files[weight]
    if known.is_file():
        return known
    raise FontMissingError(
        f"the synthetic screenshots need the {spec.fontconfig} font ({spec.files[weight]}): "
        f"install Debian's {spec.package} (scripts/bootstrap.sh does) and try again"
    )


@cache
def _load(size: int, weight: str, family: str) -> ImageFont.FreeTypeFont:
    path = font_file(weight, family)
    return ImageFont.truetype(str(path), size=size, index=FAMILIES[family].index)


def font(size: int, weight: str = "regular") -> ImageFont.FreeTypeFont:
    """The font of the family being drawn in (`drawing_in`), at `size` px and `weight`."""
    return _load(size, weight, _drawing.get())
