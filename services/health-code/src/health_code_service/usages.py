"""What the service reads from a screenshot: one usage per kind of screen, one typed result each."""

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class Usage(StrEnum):
    HEALTH_CODE = "health-code"
    TRIP_CODE = "trip-code"
    NUCLEIC_ACID = "nucleic-acid"


Colour = Literal["green", "yellow", "red"]
TestResult = Literal["negative", "positive"]


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


class HealthCodeResult(_Result):
    """A province health code (粤康码, 苏康码, 随申码, 健康宝, ...)."""

    usage: Literal["health-code"] = "health-code"
    colour: Colour = Field(description="Colour of the QR code, measured from its pixels.")
    name: str | None = Field(description="The holder's name as the screen masks it, e.g. 张*明.")
    updated_at: datetime | None = Field(description="The time the screen shows (update/now).")
    qr_text: str = Field(description="The decoded QR code.")


class TripCodeResult(_Result):
    """The telecom trip card (通信大数据行程卡)."""

    usage: Literal["trip-code"] = "trip-code"
    phone: str | None = Field(description="The masked phone number, e.g. 138****1234.")
    updated_at: datetime | None = Field(description="The card's update time (更新于).")
    cities: list[str] = Field(description="Cities visited, in the card's order, without marks.")
    star: bool = Field(description="True when a visited city is marked * (had a risk area).")


class NucleicAcidResult(_Result):
    """A nucleic-acid (核酸) test report."""

    usage: Literal["nucleic-acid"] = "nucleic-acid"
    name: str | None = Field(description="The person's name as the report masks it.")
    result: TestResult | None = Field(description="阴性 -> negative, 阳性 -> positive.")
    sampled_at: datetime | None = Field(description="Sampling time (采样时间).")


Result = Annotated[
    HealthCodeResult | TripCodeResult | NucleicAcidResult, Field(discriminator="usage")
]
