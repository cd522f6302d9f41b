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


def masked_name(rng: random.Random) -> str:
    surname = rng.choice(SURNAMES)
    given = "".join(rng.choice(GIVEN) for _ in range(rng.choice((1, 2, 2, 2))))
    if len(given) == 1:
        return rng.choice((f"{surname}*", f"*{given}"))
    return f"{surname}*{given[-1]}"


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
