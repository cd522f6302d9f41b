"""Masked names as provinces and apps write them, and as the recogniser reads them back."""

from __future__ import annotations

import pytest

from health_code_service.reading.parsing import find_name, normalise


def name_in(*texts: str) -> str | None:
    return find_name([normalise(text) for text in texts])


@pytest.mark.parametrize(
    ("shown", "answer"),
    [
        # the given name hidden, one mask per character or three whatever its length
        ("张*", "张*"),
        ("张**", "张**"),
        ("张***", "张***"),
        # compound surnames
        ("欧阳**", "欧阳**"),
        ("司马**", "司马**"),
        ("诸葛**", "诸葛**"),
        ("上官*", "上官*"),
        ("欧阳***", "欧阳***"),
        # all but the surname and the last character
        ("张*明", "张*明"),
        ("张**明", "张**明"),
        ("司马*明", "司马*明"),
        # the first character (the surname) hidden, or the first two
        ("*明", "*明"),
        ("**明", "**明"),
        ("*晓明", "*晓明"),
    ],
)
def test_every_masking_rule_is_a_name(shown: str, answer: str) -> None:
    assert name_in(shown) == answer
    assert name_in(f"姓名：{shown}") == answer
    assert name_in(f"姓名:{shown} 110105********123X") == answer


@pytest.mark.parametrize(
    ("shown", "answer"),
    [
        ("张＊明", "张*明"),  # full-width asterisk
        ("欧阳＊＊", "欧阳**"),
        ("张×明", "张*明"),  # multiplication sign
        ("诸葛××", "诸葛**"),
        ("欧阳xx", "欧阳**"),  # the sign read as a Latin x
        ("*X明", "**明"),
        ("上官＊", "上官*"),
    ],
)
def test_every_mask_glyph_answers_as_an_asterisk(shown: str, answer: str) -> None:
    assert name_in(shown) == answer


def test_spaces_the_recogniser_puts_before_masks_are_dropped() -> None:
    assert name_in("欧阳 * *") == "欧阳**"
    assert name_in("姓名： 司马 *明") == "司马*明"


def test_a_button_after_the_name_stays_apart() -> None:
    assert name_in("陶** 切换") == "陶**"
    assert name_in("肖* 切换") == "肖*"


@pytest.mark.parametrize(
    "text",
    [
        "张三",  # nothing masked
        "**",  # nothing shown
        "张****",  # four masks: no rule hides that many
        "110105********123X",  # an ID number
        "2022-05-12 14:22:31",
        "请出示此码,配合检查",
    ],
)
def test_what_is_no_masked_name(text: str) -> None:
    assert name_in(text) is None


def test_the_first_name_found_wins() -> None:
    assert name_in("北京健康宝", "欧阳** 110105********123X", "张*明") == "欧阳**"
