"""OCR_DEVICE, checked before any model loads: an engine that cannot use the device it was
given refuses to start, naming the device and the ones it could use, instead of failing
every request later (a CUDA device torch cannot see, an index past the last GPU, a typo)."""

import re
from dataclasses import dataclass
from typing import Literal

_DEVICE = re.compile(r"(?P<kind>cpu|cuda)(?::(?P<index>\d+))?")


class DeviceUnavailable(ValueError):
    """OCR_DEVICE names a device the configured engine cannot use on this machine."""


@dataclass(frozen=True)
class Device:
    kind: Literal["cpu", "cuda"]
    index: int = 0

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"cuda:{self.index}"


def parse_device(name: str, engine: str) -> Device:
    """`cpu`, `cuda` (the first GPU) or `cuda:N`; anything else is refused."""
    match = _DEVICE.fullmatch(name.strip().lower())
    if match is None or (match["kind"] == "cpu" and match["index"] not in (None, "0")):
        raise DeviceUnavailable(
            f"OCR_DEVICE={name!r} is not a device the {engine} engine knows: "
            "use cpu, cuda or cuda:N"
        )
    if match["kind"] == "cpu":
        return Device("cpu")
    return Device("cuda", int(match["index"] or 0))


def check_gpu(device: Device, engine: str, gpus: int, why_none: str) -> None:
    """Refuse a CUDA device past the `gpus` the engine's runtime sees (`why_none` says what
    the runtime lacks when it sees none)."""
    if device.kind != "cuda" or device.index < gpus:
        return
    usable = ", ".join(["cpu", *(f"cuda:{i}" for i in range(gpus))])
    seen = f"sees {gpus} CUDA device(s)" if gpus else f"sees no CUDA device ({why_none})"
    raise DeviceUnavailable(
        f"OCR_DEVICE={device} cannot be used by the {engine} engine: it {seen}; it can use {usable}"
    )
