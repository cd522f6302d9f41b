"""Random but plausible values shown on the screens: names, times, phones, cities, QR payloads."""

import random
from datetime import datetime, timedelta

SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡"
    "余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯"
    "龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
GIVEN = (
    "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍鹏辉建红晶文利斌宇浩凯健俊"
    "帆帅旭宁林波鑫欣怡雪梅琳晨阳婷倩佳慧峰颖琪博思远瑞彤萱轩然子涵雨嘉诗雅睿宏志国庆"
    "春燕"
)
CITIES = [
    "北京市",
    "上海市",
    "天津市",
    "重庆市",
    "广东省广州市",
    "广东省深圳市",
    "广东省东莞市",
    "广东省佛山市",
    "江苏省南京市",
    "江苏省苏州市",
    "浙江省杭州市",
    "浙江省宁波市",
    "湖北省武汉市",
    "湖南省长沙市",
    "四川省成都市",
    "陕西省西安市",
    "河南省郑州市",
    "山东省济南市",
    "山东省青岛市",
    "福建省厦门市",
    "福建省福州市",
    "安徽省合肥市",
    "江西省南昌市",
    "云南省昆明市",
    "辽宁省沈阳市",
    "吉林省长春市",
    "河北省石家庄市",
    "广西壮族自治区南宁市",
    "海南省海口市",
    "贵州省贵阳市",
]
LABS = [
    "金域医学检验所",
    "迪安诊断检验中心",
    "华大基因医学检验所",
    "市第一人民医院",
    "艾迪康医学检验中心",
]
MOBILE_PREFIXES = [
    "133",
    "135",
    "136",
    "138",
    "139",
    "150",
    "152",
    "158",
    "177",
    "186",
    "188",
    "199",
]


# Two-character surnames, which the apps mask like single ones (欧阳**, 上官*, 司马*明).
COMPOUND_SURNAMES = (
    "欧阳",
    "司马",
    "诸葛",
    "上官",
    "东方",
    "皇甫",
    "尉迟",
    "公孙",
    "慕容",
    "令狐",
    "夏侯",
    "长孙",
    "宇文",
    "司徒",
    "端木",
    "独孤",
)
# What the apps draw for a hidden character: mostly the ASCII asterisk, in a minority of
# apps the full-width one or the multiplication sign (weights in that order). The result
# always shows a hidden character as `*`.
MASK_GLYPHS = ("*", "＊", "×")
GLYPH_WEIGHTS = (8, 1, 1)
# How provinces and apps hide a name (each hides one to three characters):
#   given   the given name, one mask per character or three whatever its length (张*, 欧阳**)
#   middle  all but the surname and the last character (张*明, 欧阳*明, 张**明)
#   first   the surname, or the surname and the first given character (*明, *晓明, **明)
MASK_RULES = ("given", "middle", "first")


def masked_name(rng: random.Random, rule: str | None = None, glyph: str | None = None) -> str:
    """A name as some app masks it (`rule`, `glyph` drawn from `rng` when None), written with
    `glyph`; `unmask` turns it into the name the service answers."""
    rule = rule or rng.choice(MASK_RULES)
    glyph = glyph or rng.choices(MASK_GLYPHS, GLYPH_WEIGHTS)[0]
    compound = rng.random() < 0.25
    surname = rng.choice(COMPOUND_SURNAMES) if compound else rng.choice(SURNAMES)
    given = "".join(rng.choice(GIVEN) for _ in range(rng.choice((1, 2, 2, 3))))
    if rule == "given":
        hidden = 3 if rng.random() < 0.2 else len(given)
        return surname + glyph * hidden
    if rule == "middle":
        if len(given) == 1:
            given = rng.choice(GIVEN) + given
        return surname + glyph * (len(given) - 1) + given[-1]
    if rule == "first":
        if compound or len(given) == 1 or rng.random() < 0.5:
            return glyph * len(surname) + given
        return glyph * 2 + given[1:]
    raise ValueError(f"unknown mask rule {rule!r}: use one of {MASK_RULES}")


def unmask(name: str) -> str:
    """The name as the service answers it: every mask glyph written `*`."""
    return "".join("*" if char in MASK_GLYPHS else char for char in name)


def moment(rng: random.Random) -> datetime:
    start = datetime(2022, 1, 1)
    return start + timedelta(seconds=rng.randrange(365 * 24 * 3600))


def masked_phone(rng: random.Random) -> str:
    return f"{rng.choice(MOBILE_PREFIXES)}****{rng.randrange(10000):04d}"


def masked_id(rng: random.Random) -> str:
    region, tail = rng.randrange(110000, 659999), rng.randrange(1000)
    return f"{region}********{tail:03d}{rng.choice('0123456789X')}"


def qr_payload(rng: random.Random) -> str:
    token = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    kind = rng.choice(("hc", "jkm", "code"))
    return f"https://{kind}.example.cn/v/{token}"
