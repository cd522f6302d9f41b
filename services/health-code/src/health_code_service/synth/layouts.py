"""Screen layouts per usage. Each draws one screenshot and answers its ground truth."""

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from PIL import Image

from health_code_service.synth import content
from health_code_service.synth.canvas import QR_COLOURS, RGB, WIDTH, Screen, jitter, time_text
from health_code_service.usages import Usage

Truth = dict[str, Any]
Layout = Callable[[random.Random, str], tuple[Image.Image, Truth]]

GREY: RGB = (120, 120, 120)
DARK: RGB = (34, 34, 34)
COLOUR_WORDS = {"green": "绿码", "yellow": "黄码", "red": "红码"}


def _shown(rng: random.Random, seconds: bool = True) -> tuple[datetime, Truth]:
    moment = content.moment(rng)
    if not seconds:
        moment = moment.replace(second=0)
    return moment, {"updated_at": moment.isoformat()}


def _health_truth(colour: str, name: str, payload: str, shown: Truth) -> Truth:
    return {"colour": colour, "name": content.unmask(name), "qr_text": payload, **shown}


def health_guangdong(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """Name on top of the card, QR in the middle, the time just below it (粤康码-like)."""
    screen = Screen(rng, rng.choice((2340, 2400)), (242, 244, 247))
    screen.status_bar(jitter(rng, (38, 132, 90)), (255, 255, 255))
    screen.header("粤康码", jitter(rng, (38, 132, 90)))
    screen.card(screen.y + 30, 1960)
    name, payload = content.masked_name(rng), content.qr_payload(rng)
    y = screen.text((100, screen.y + 80), name, 64, DARK, "bold")
    screen.text((100, y + 24), content.masked_id(rng), 34, GREY)
    screen.text((WIDTH - 100, screen.y + 96), "切换", 36, (38, 132, 90), anchor="ra")
    bottom = screen.qr(payload, 1000, rng.randint(520, 600), jitter(rng, QR_COLOURS[colour], 8))
    moment, truth = _shown(rng)
    y = screen.centred(bottom + 40, time_text(rng, moment), 44, DARK)
    screen.centred(
        y + 40,
        f"{COLOUR_WORDS[colour]}：凭码通行" if colour == "green" else COLOUR_WORDS[colour],
        40,
        jitter(rng, QR_COLOURS[colour], 4),
        "bold",
    )
    for i, tile in enumerate(("核酸检测", "疫苗接种", "行程卡")):
        screen.text((150 + i * 300, 1820), tile, 36, DARK)
    return screen.image, _health_truth(colour, name, payload, truth)


def health_jiangsu(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """Labelled name and update time above the QR (苏康码-like)."""
    screen = Screen(rng, rng.choice((2340, 2280)), (233, 241, 252))
    screen.status_bar((233, 241, 252), DARK)
    screen.header("苏康码", jitter(rng, (24, 112, 220)))
    screen.card(screen.y + 30, 1900)
    name, payload = content.masked_name(rng), content.qr_payload(rng)
    seconds = rng.random() < 0.7
    moment, truth = _shown(rng, seconds)
    y = screen.text((100, screen.y + 90), f"姓名：{name}", 48, DARK)
    screen.text((100, y + 30), f"更新时间：{time_text(rng, moment, seconds)}", 38, GREY)
    bottom = screen.qr(payload, 1080, rng.randint(540, 620), jitter(rng, QR_COLOURS[colour], 8))
    screen.centred(bottom + 50, "请出示此码，配合检查", 36, GREY)
    screen.centred(1960, "本服务由江苏政务服务提供", 30, GREY)
    return screen.image, _health_truth(colour, name, payload, truth)


def health_shanghai(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """A live clock above the QR (date and time on their own lines), name below (随申码-like)."""
    background = jitter(rng, (250, 250, 250), 4)
    screen = Screen(rng, rng.choice((2340, 2160)), background)
    screen.status_bar(background, DARK)
    screen.centred(screen.y + 40, "随申码", 60, DARK, "bold")
    moment, truth = _shown(rng)
    y = screen.centred(360, moment.strftime("%Y-%m-%d"), 44, DARK)
    screen.centred(y + 20, moment.strftime("%H:%M:%S"), 72, DARK, "bold")
    name, payload = content.masked_name(rng), content.qr_payload(rng)
    bottom = screen.qr(payload, 920, rng.randint(500, 580), jitter(rng, QR_COLOURS[colour], 8))
    screen.centred(bottom + 40, name, 52, DARK)
    screen.centred(1900, "上海市大数据中心", 32, GREY)
    return screen.image, _health_truth(colour, name, payload, truth)


def health_beijing(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """Held out, never tuned on: a running clock on top, the name and the masked ID on one
    row just above the code, the status word below it (健康宝-like)."""
    background = jitter(rng, (252, 252, 252), 3)
    screen = Screen(rng, rng.choice((2340, 2400)), background)
    screen.status_bar(background, DARK)
    screen.header("北京健康宝", jitter(rng, (232, 96, 44)))
    name, payload = content.masked_name(rng), content.qr_payload(rng)
    moment, truth = _shown(rng)
    side = rng.randint(500, 580)
    centre = screen.y + 260 + side
    top = centre - side // 2
    screen.centred(top - side + 80, time_text(rng, moment), 50, DARK, "bold")
    row = top - side // 3
    screen.text((100, row), name, 50, DARK, "bold", anchor="lm")
    screen.text((WIDTH - 100, row), content.masked_id(rng), 34, GREY, anchor="rm")
    bottom = screen.qr(payload, centre, side, jitter(rng, QR_COLOURS[colour], 8))
    words = {"green": "未见异常", "yellow": "弹窗", "red": "风险"}
    y = screen.centred(bottom + 50, words[colour], 64, jitter(rng, QR_COLOURS[colour], 4), "bold")
    screen.centred(y + 40, "请主动出示，配合检查", 36, GREY)
    return screen.image, _health_truth(colour, name, payload, truth)


def _cities(rng: random.Random) -> tuple[list[str], list[bool]]:
    cities = rng.sample(content.CITIES, rng.randint(1, 5))
    starred = [rng.random() < 0.25 for _ in cities]
    return cities, starred


def _cities_text(cities: list[str], starred: list[bool], separator: str) -> str:
    return separator.join(
        city + ("*" if star else "") for city, star in zip(cities, starred, strict=True)
    )


def _trip_truth(phone: str, moment: datetime, cities: list[str], starred: list[bool]) -> Truth:
    return {
        "phone": phone,
        "updated_at": moment.isoformat(),
        "cities": cities,
        "star": any(starred),
    }


def _arrow(screen: Screen, centre_y: int, colour: RGB) -> int:
    cx, r = WIDTH // 2, 150
    screen.draw.ellipse((cx - r, centre_y - r, cx + r, centre_y + r), fill=colour)
    screen.draw.polygon(
        [
            (cx - 70, centre_y + 60),
            (cx, centre_y - 90),
            (cx + 70, centre_y + 60),
            (cx, centre_y + 20),
        ],
        fill=(255, 255, 255),
    )
    return centre_y + r


def trip_classic(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """Header, phone and update time, the arrow, then the visited cities and the footnote."""
    screen = Screen(rng, rng.choice((2340, 2400)), (255, 255, 255))
    screen.status_bar(jitter(rng, (60, 110, 230)), (255, 255, 255))
    screen.header("通信大数据行程卡", jitter(rng, (60, 110, 230)))
    y = screen.centred(screen.y + 50, "疫情防控，人人有责", 40, GREY)
    phone = content.masked_phone(rng)
    moment = content.moment(rng)
    y = screen.centred(y + 60, f"{phone}的动态行程卡", 46, DARK, "bold")
    y = screen.centred(
        y + 30,
        f"更新于：{moment.strftime(rng.choice(('%Y.%m.%d', '%Y-%m-%d')))} {moment:%H:%M:%S}",
        38,
        GREY,
    )
    y = _arrow(screen, y + 230, jitter(rng, QR_COLOURS[colour], 6))
    cities, starred = _cities(rng)
    y = screen.text((80, y + 100), f"您于前{rng.choice((7, 14))}天内到达或途经：", 40, DARK) + 20
    y = screen.wrapped(80, y, _cities_text(cities, starred, "，"), 40, WIDTH - 160, DARK)
    y = screen.wrapped(
        80,
        max(y + 120, 1900),
        "注：* 表示当前该城市存在中风险或高风险地区，并不表示用户实际到访过这些中高风险地区。",
        30,
        WIDTH - 160,
        GREY,
    )
    return screen.image, _trip_truth(phone, moment, cities, starred)


def trip_compact(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """Cities in one run of text right after the label, on a grey card; no header bar."""
    screen = Screen(rng, rng.choice((2340, 1920)), (244, 245, 247))
    screen.status_bar((244, 245, 247), DARK)
    screen.centred(screen.y + 30, "通信行程卡", 50, DARK, "bold")
    screen.card(260, 1500)
    phone = content.masked_phone(rng)
    moment = content.moment(rng)
    y = screen.centred(320, f"{phone} 的动态行程卡", 44, DARK)
    y = screen.centred(y + 26, f"更新于：{moment:%Y.%m.%d %H:%M:%S}", 36, GREY)
    y = _arrow(screen, y + 220, jitter(rng, QR_COLOURS[colour], 6))
    cities, starred = _cities(rng)
    text = f"您于前14天内到达或途经：{_cities_text(cities, starred, '、')}"
    screen.wrapped(90, y + 90, text, 38, WIDTH - 180, DARK)
    screen.wrapped(
        90,
        1560,
        "注：* 表示当前该城市存在中风险或高风险地区，并不表示用户实际到访过这些中高风险地区。",
        28,
        WIDTH - 180,
        GREY,
    )
    return screen.image, _trip_truth(phone, moment, cities, starred)


RESULT_WORDS = {"negative": "阴性", "positive": "阳性"}
RESULT_COLOURS: dict[str, RGB] = {"negative": (0, 160, 80), "positive": (220, 40, 40)}


def _report(rng: random.Random) -> tuple[str, str, datetime, datetime, Truth]:
    name = content.masked_name(rng)
    result = "negative" if rng.random() < 0.8 else "positive"
    sampled = content.moment(rng)
    tested = sampled + timedelta(seconds=rng.randrange(3 * 3600, 30 * 3600))
    truth = {"name": content.unmask(name), "result": result, "sampled_at": sampled.isoformat()}
    return name, result, sampled, tested, truth


def nucleic_list(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """One `label：value` line per field."""
    screen = Screen(rng, rng.choice((2340, 2160)), (245, 246, 248))
    screen.status_bar(jitter(rng, (30, 144, 255)), (255, 255, 255))
    screen.header("核酸检测结果", jitter(rng, (30, 144, 255)))
    screen.card(screen.y + 40, 1500)
    name, result, sampled, tested, truth = _report(rng)
    rows = [
        ("姓名", name, DARK),
        ("证件号码", content.masked_id(rng), DARK),
        ("检测结果", RESULT_WORDS[result], RESULT_COLOURS[result]),
        ("采样时间", time_text(rng, sampled), DARK),
        ("检测时间", time_text(rng, tested), DARK),
        ("检测机构", rng.choice(content.LABS), DARK),
    ]
    y = screen.y + 100
    for label, value, fill in rows:
        screen.text((100, y), f"{label}：", 40, GREY)
        y = screen.text((100 + 40 * (len(label) + 1), y), value, 40, fill) + 50
    return screen.image, truth


def nucleic_table(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """Labels on the left, values aligned right, one row each, a big result on top."""
    screen = Screen(rng, rng.choice((2340, 2400)), (255, 255, 255))
    screen.status_bar((255, 255, 255), DARK)
    screen.header("核酸检测报告", jitter(rng, (0, 150, 136)))
    name, result, sampled, tested, truth = _report(rng)
    y = screen.centred(screen.y + 60, RESULT_WORDS[result], 96, RESULT_COLOURS[result], "bold")
    rows = [
        ("姓名", name),
        ("证件号", content.masked_id(rng)),
        ("检测机构", rng.choice(content.LABS)),
        ("采样时间", time_text(rng, sampled)),
        ("报告时间", time_text(rng, tested)),
    ]
    y += 80
    for label, value in rows:
        screen.text((80, y), label, 38, GREY)
        screen.text((WIDTH - 80, y), value, 38, DARK, anchor="ra")
        screen.draw.line((80, y + 80, WIDTH - 80, y + 80), fill=(230, 230, 230), width=2)
        y += 110
    return screen.image, truth


def nucleic_stacked(rng: random.Random, colour: str) -> tuple[Image.Image, Truth]:
    """Each label above its value; the result in a coloured badge."""
    screen = Screen(rng, rng.choice((2340, 2160)), (247, 248, 250))
    screen.status_bar((247, 248, 250), DARK)
    screen.centred(screen.y + 30, "核酸检测", 50, DARK, "bold")
    name, result, sampled, tested, truth = _report(rng)
    screen.card(260, 1700)
    y = screen.text((100, 320), name, 56, DARK, "bold")
    screen.draw.rounded_rectangle((700, 320, 960, 400), radius=20, fill=RESULT_COLOURS[result])
    screen.text((830, 360), RESULT_WORDS[result], 44, (255, 255, 255), "bold", anchor="mm")
    y += 80
    for label, value in (
        ("检测时间", time_text(rng, tested)),
        ("采样时间", time_text(rng, sampled)),
        ("检测机构", rng.choice(content.LABS)),
    ):
        y = screen.text((100, y), label, 34, GREY) + 16
        y = screen.text((100, y), value, 42, DARK) + 60
    return screen.image, truth


LAYOUTS: dict[Usage, dict[str, Layout]] = {
    Usage.HEALTH_CODE: {
        "guangdong": health_guangdong,
        "jiangsu": health_jiangsu,
        "shanghai": health_shanghai,
    },
    Usage.TRIP_CODE: {"classic": trip_classic, "compact": trip_compact},
    Usage.NUCLEIC_ACID: {"list": nucleic_list, "table": nucleic_table, "stacked": nucleic_stacked},
}

# The held-out split (`generate(..., split="held-out")`): layouts and a font that no
# threshold or rule of the analyzer was ever tuned on. A usage without a held-out layout of
# its own draws its usual layouts in the held-out font.
HELD_OUT_LAYOUTS: dict[Usage, dict[str, Layout]] = {
    Usage.HEALTH_CODE: {"beijing": health_beijing},
}
HELD_OUT_FONT = "wqy-microhei"
