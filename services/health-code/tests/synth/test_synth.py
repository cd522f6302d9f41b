"""The screenshot generator: reproducible, every layout drawn, truth shaped like the results."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import random
import re
from pathlib import Path

import pytest
from PIL import Image
from pydantic import TypeAdapter

from health_code_service.synth import SPLITS, content, fonts, generate, layouts_of
from health_code_service.synth import __main__ as synth_cli
from health_code_service.synth.layouts import HELD_OUT_FONT, HELD_OUT_LAYOUTS, LAYOUTS
from health_code_service.usages import Result, Usage

LAYOUT_CASES = [
    (split, usage, layout)
    for split in SPLITS
    for usage in Usage
    for layout in layouts_of(usage, split)
]


def test_the_same_seed_gives_the_same_bytes() -> None:
    assert generate(Usage.TRIP_CODE, 5) == generate(Usage.TRIP_CODE, 5)
    assert generate(Usage.TRIP_CODE, 5)[0] != generate(Usage.TRIP_CODE, 6)[0]


@pytest.mark.parametrize(("split", "usage", "layout"), LAYOUT_CASES)
def test_every_layout_draws_a_screenshot_with_result_shaped_truth(
    split: str, usage: Usage, layout: str
) -> None:
    jpeg, truth = generate(
        usage, 3, split=split, layout=layout, scale=0.5, rotation=1.0, quality=70
    )
    with Image.open(io.BytesIO(jpeg)) as image:
        assert image.format == "JPEG"
        assert image.width == 540
        assert 900 < image.height < 1300
    font = fonts.DEFAULT_FAMILY if split == "tune" else HELD_OUT_FONT
    assert truth["synth"] == {
        "split": split,
        "font": font,
        "layout": layout,
        "scale": 0.5,
        "rotation": 1.0,
        "quality": 70,
    }
    fields = {key: value for key, value in truth.items() if key != "synth"}
    result = TypeAdapter(Result).validate_python(fields)
    assert result.model_dump(mode="json") == fields


@pytest.mark.heavy  # draws 12 screenshots
def test_options_are_drawn_from_the_seed_across_their_ranges() -> None:
    truths = [generate(Usage.HEALTH_CODE, seed)[1] for seed in range(12)]
    assert {truth["colour"] for truth in truths} == {"green", "yellow", "red"}
    assert {truth["synth"]["layout"] for truth in truths} == set(LAYOUTS[Usage.HEALTH_CODE])
    assert all(0.5 <= truth["synth"]["scale"] <= 1.0 for truth in truths)
    assert all(60 <= truth["synth"]["quality"] <= 95 for truth in truths)


def test_cli_writes_the_image_its_truth_and_the_write_ups_request_body(tmp_path: Path) -> None:
    out, truth, body = tmp_path / "health.jpg", tmp_path / "truth.json", tmp_path / "health.json"
    synth_cli.main(
        [
            "--usage",
            "health-code",
            "--seed",
            "7",
            "--out",
            str(out),
            "--truth",
            str(truth),
            "--json-body",
            str(body),
        ]
    )
    jpeg, expected = generate(Usage.HEALTH_CODE, 7)
    assert out.read_bytes() == jpeg
    assert json.loads(truth.read_text(encoding="utf-8")) == expected
    assert base64.b64decode(json.loads(body.read_text())["base64"]) == jpeg


def test_cli_refuses_a_layout_of_another_usage_or_split(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        synth_cli.main(
            ["--usage", "trip-code", "--layout", "jiangsu", "--out", str(tmp_path / "x")]
        )
    with pytest.raises(SystemExit):
        synth_cli.main(["--layout", "beijing", "--out", str(tmp_path / "x")])


def test_cli_draws_the_held_out_split(tmp_path: Path) -> None:
    out = tmp_path / "held-out.jpg"
    synth_cli.main(["--split", "held-out", "--seed", "4", "--out", str(out)])
    assert out.read_bytes() == generate(Usage.HEALTH_CODE, 4, split="held-out")[0]


def test_the_held_out_split_is_other_layouts_in_another_font() -> None:
    assert HELD_OUT_FONT != fonts.DEFAULT_FAMILY
    for usage in Usage:
        held_out = set(HELD_OUT_LAYOUTS.get(usage, {}))
        assert not held_out & set(LAYOUTS[usage])
    assert HELD_OUT_LAYOUTS[Usage.HEALTH_CODE]
    tune, held_out = (
        generate(Usage.NUCLEIC_ACID, 2),
        generate(Usage.NUCLEIC_ACID, 2, split="held-out"),
    )
    assert tune[0] != held_out[0]
    assert (tune[1]["synth"]["font"], held_out[1]["synth"]["font"]) == (
        fonts.DEFAULT_FAMILY,
        HELD_OUT_FONT,
    )
    with pytest.raises(ValueError, match="split"):
        generate(Usage.HEALTH_CODE, 1, split="train")


def test_the_same_layout_in_another_font_draws_other_pixels() -> None:
    layout = "list"
    a = generate(Usage.NUCLEIC_ACID, 5, layout=layout)[0]
    b = generate(Usage.NUCLEIC_ACID, 5, split="held-out", layout=layout)[0]
    with Image.open(io.BytesIO(a)) as first, Image.open(io.BytesIO(b)) as second:
        assert first.size != second.size or first.tobytes() != second.tobytes()


def seeded(seed: int) -> random.Random:
    return random.Random(seed)  # noqa: S311 (test names, not secrets)


# The shape of each masking rule: shown characters, one to three masks, shown characters.
RULE_SHAPES = {
    "given": re.compile(r"[^*]{1,2}\*{1,3}"),
    "middle": re.compile(r"[^*]{1,2}\*{1,2}[^*]"),
    "first": re.compile(r"\*{1,2}[^*]{1,3}"),
}


@pytest.mark.parametrize("glyph", content.MASK_GLYPHS)
@pytest.mark.parametrize("rule", content.MASK_RULES)
def test_every_masking_rule_is_drawn_in_every_glyph(rule: str, glyph: str) -> None:
    names = [content.masked_name(seeded(seed), rule, glyph) for seed in range(200)]
    letters = set(content.SURNAMES + content.GIVEN + "".join(content.COMPOUND_SURNAMES))
    assert all(set(name) - letters <= {glyph} for name in names)
    answers = [content.unmask(name) for name in names]
    assert all(RULE_SHAPES[rule].fullmatch(answer) for answer in answers), answers
    if rule != "first":
        assert any(answer[:2] in content.COMPOUND_SURNAMES for answer in answers)
    counts = {answer.count("*") for answer in answers}
    assert counts == {"given": {1, 2, 3}, "middle": {1, 2}, "first": {1, 2}}[rule]


@pytest.mark.heavy  # draws 40 screenshots
def test_the_generator_draws_every_rule_and_glyph_across_seeds() -> None:
    names = [generate(Usage.HEALTH_CODE, seed, scale=0.5)[1]["name"] for seed in range(40)]
    assert any(name.startswith("*") for name in names)
    assert any(name.endswith("*") for name in names)
    assert any(name.index("*") > 0 and not name.endswith("*") for name in names)
    assert any(name[:2] in content.COMPOUND_SURNAMES for name in names)
    assert {name.count("*") for name in names} == {1, 2, 3}
    glyphs = [content.masked_name(seeded(seed)) for seed in range(40)]
    assert {glyph for glyph in content.MASK_GLYPHS if any(glyph in n for n in glyphs)} == set(
        content.MASK_GLYPHS
    )


@pytest.mark.parametrize(
    ("family", "package"), [("noto-sans-cjk", "fonts-noto-cjk"), (HELD_OUT_FONT, "fonts-wqy-")]
)
def test_a_missing_cjk_font_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, family: str, package: str
) -> None:
    monkeypatch.setattr(fonts.shutil, "which", lambda name: None)
    missing = dataclasses.replace(fonts.FAMILIES[family], known_dir=Path("/nonexistent"))
    monkeypatch.setitem(fonts.FAMILIES, family, missing)
    fonts.font_file.cache_clear()
    try:
        with pytest.raises(fonts.FontMissingError, match=package):
            fonts.font_file("regular", family)
    finally:
        fonts.font_file.cache_clear()
