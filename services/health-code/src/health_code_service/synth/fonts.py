"""The CJK fonts the generator draws with (Debian's fonts-noto-cjk, which bootstrap installs)."""

import shutil
import subprocess
from functools import cache
from pathlib import Path

from PIL import ImageFont

KNOWN_DIR = Path("/usr/share/fonts/opentype/noto")
FILES = {"regular": "NotoSansCJK-Regular.ttc", "bold": "NotoSansCJK-Bold.ttc"}
# Face index of "Noto Sans CJK SC" inside the .ttc collections (JP, KR, SC, TC, HK).
SC_INDEX = 2


class FontMissingError(RuntimeError):
    pass


@cache
def font_file(weight: str) -> Path:
    """The Noto Sans CJK file of `weight`, found by fontconfig or at Debian's known path."""
    if shutil.which("fc-match"):
        style = "Bold" if weight == "bold" else "Regular"
        found = subprocess.run(
            ["fc-match", "-f", "%{file}", f"Noto Sans CJK SC:style={style}"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if found.endswith(FILES[weight]):
            return Path(found)
    known = KNOWN_DIR / FILES[weight]
    if known.is_file():
        return known
    raise FontMissingError(
        f"the synthetic screenshots need the Noto Sans CJK font ({FILES[weight]}): "
        "install Debian's fonts-noto-cjk (scripts/bootstrap.sh does) and try again"
    )


@cache
def font(size: int, weight: str = "regular") -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_file(weight)), size=size, index=SC_INDEX)
