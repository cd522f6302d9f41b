"""Drawing helpers for phone screenshots: a canvas 1080 px wide, a status bar, text, QR codes."""

import random
from datetime import datetime

import numpy as np
import zxingcpp
from PIL import Image, ImageDraw

from health_code_service.synth.fonts import font

WIDTH = 1080
RGB = tuple[int, int, int]

QR_COLOURS: dict[str, RGB] = {"green": (0, 168, 84), "yellow": (250, 190, 0), "red": (228, 38, 38)}


def jitter(rng: random.Random, colour: RGB, amount: int = 12) -> RGB:
    r, g, b = (min(255, max(0, c + rng.randint(-amount, amount))) for c in colour)
    return r, g, b


class Screen:
    """One screenshot being drawn; `y` is a cursor that layouts move down the page."""

    def __init__(self, rng: random.Random, height: int, background: RGB) -> None:
        self.rng = rng
        self.image = Image.new("RGB", (WIDTH, height), background)
        self.draw = ImageDraw.Draw(self.image)
        self.y = 0

    @property
    def height(self) -> int:
        return self.image.height

    def status_bar(self, colour: RGB, text: RGB) -> None:
        """Clock, carrier, signal bars and battery, as a phone draws them on top."""
        bar = 96
        self.draw.rectangle((0, 0, WIDTH, bar), fill=colour)
        clock = f"{self.rng.randint(7, 22)}:{self.rng.randrange(60):02d}"
        self.draw.text((48, bar // 2), clock, font=font(40, "bold"), fill=text, anchor="lm")
        carrier = self.rng.choice(("中国移动", "中国联通", "中国电信", ""))
        self.draw.text((200, bar // 2), carrier, font=font(30), fill=text, anchor="lm")
        for i in range(4):
            x = 800 + i * 16
            self.draw.rectangle((x, bar // 2 + 12 - 8 * i, x + 10, bar // 2 + 14), fill=text)
        self.draw.rounded_rectangle((880, 34, 960, 62), radius=6, outline=text, width=3)
        level = self.rng.randint(10, 70)
        self.draw.rectangle((886, 40, 886 + level, 56), fill=text)
        self.draw.text(
            (980, bar // 2), f"{self.rng.randint(10, 99)}%", font=font(28), fill=text, anchor="lm"
        )
        self.y = bar

    def header(self, title: str, colour: RGB, height: int = 140) -> None:
        self.draw.rectangle((0, self.y, WIDTH, self.y + height), fill=colour)
        self.draw.text(
            (WIDTH // 2, self.y + height // 2),
            title,
            font=font(48, "bold"),
            fill=(255, 255, 255),
            anchor="mm",
        )
        self.draw.text(
            (60, self.y + height // 2), "‹", font=font(72), fill=(255, 255, 255), anchor="lm"
        )
        self.y += height

    def card(self, top: int, bottom: int, margin: int = 40, fill: RGB = (255, 255, 255)) -> None:
        self.draw.rounded_rectangle((margin, top, WIDTH - margin, bottom), radius=28, fill=fill)

    def text(
        self,
        xy: tuple[int, int],
        text: str,
        size: int,
        fill: RGB = (34, 34, 34),
        weight: str = "regular",
        anchor: str = "la",
    ) -> int:
        """Draw `text`; answer the y just below it."""
        self.draw.text(xy, text, font=font(size, weight), fill=fill, anchor=anchor)
        bottom = self.draw.textbbox(xy, text, font=font(size, weight), anchor=anchor)[3]
        return int(bottom)

    def centred(
        self, y: int, text: str, size: int, fill: RGB = (34, 34, 34), weight: str = "regular"
    ) -> int:
        return self.text((WIDTH // 2, y), text, size, fill, weight, anchor="ma")

    def wrapped(
        self, x: int, y: int, text: str, size: int, width: int, fill: RGB, gap: int = 14
    ) -> int:
        """Draw `text` broken into lines no wider than `width`; answer the y below the last."""
        line = ""
        for char in text:
            if font(size).getlength(line + char) > width:
                y = self.text((x, y), line, size, fill) + gap
                line = ""
            line += char
        if line:
            y = self.text((x, y), line, size, fill) + gap
        return y

    def qr(self, payload: str, centre_y: int, side: int, colour: RGB) -> int:
        """A QR code of `payload` in `colour`, centred at `centre_y`; answer its bottom."""
        code = zxingcpp.create_barcode(payload, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
        modules = np.asarray(code.to_image(scale=1, add_quiet_zones=False)) < 128
        cells = Image.fromarray(
            np.where(modules[..., None], np.array(colour, np.uint8), np.uint8(255)).astype(np.uint8)
        )
        cells = cells.resize((side, side), Image.Resampling.NEAREST)
        quiet = side // 12
        left, top = (WIDTH - side) // 2, centre_y - side // 2
        self.draw.rectangle(
            (left - quiet, top - quiet, left + side + quiet, top + side + quiet),
            fill=(255, 255, 255),
        )
        self.image.paste(cells, (left, top))
        return top + side + quiet


def time_text(rng: random.Random, moment: datetime, seconds: bool = True) -> str:
    clock = "%H:%M:%S" if seconds else "%H:%M"
    date = rng.choice(("%Y-%m-%d", "%Y/%m/%d", "%Y.%m.%d", "%Y年%m月%d日"))
    return moment.strftime(f"{date} {clock}")
