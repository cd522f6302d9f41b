"""Per-usage readers: the located code and the recognised lines -> the usage's result."""

import re
from collections.abc import Sequence

from health_code_service.reading.parsing import find_name, find_phone, find_time, labelled, rows
from health_code_service.reading.text import Line
from health_code_service.usages import Colour, HealthCodeResult, NucleicAcidResult, TripCodeResult

CITY_SEPARATORS = re.compile(r"[,，、;；]")
CITY = re.compile(r"[\u4e00-\u9fff]{2,}")


def health_code(lines: Sequence[Line], qr_text: str, colour: Colour) -> HealthCodeResult:
    texts = rows(lines)
    return HealthCodeResult(
        colour=colour, name=find_name(texts), updated_at=find_time(texts), qr_text=qr_text
    )


def trip_code(lines: Sequence[Line]) -> TripCodeResult | None:
    """None when the lines hold neither a phone number nor a list of visited cities."""
    texts = rows(lines)
    phone = find_phone(texts)
    visited: list[str] = []
    for text in labelled(texts, "途经"):
        if text.startswith("注"):
            break
        visited.append(text)
    joined = "".join(visited).replace(" ", "")
    cities = [
        match.group(0)
        for part in CITY_SEPARATORS.split(joined)
        if (match := CITY.search(part.replace("*", "")))
    ]
    if phone is None and not cities:
        return None
    updated = labelled(texts, "更新") or texts
    return TripCodeResult(
        phone=phone, updated_at=find_time(updated), cities=cities, star="*" in joined
    )


def nucleic_acid(lines: Sequence[Line]) -> NucleicAcidResult | None:
    """None when the lines hold no test result, name or sampling time."""
    texts = rows(lines)
    everything = "".join(texts)
    result = "positive" if "阳性" in everything else "negative" if "阴性" in everything else None
    name = find_name(texts)
    sampled_at = find_time(labelled(texts, "采样"))
    if result is None and name is None and sampled_at is None:
        return None
    return NucleicAcidResult(name=name, result=result, sampled_at=sampled_at)
