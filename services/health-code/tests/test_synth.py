"""The screenshot generator: reproducible, every layout drawn, truth shaped like the results."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image
from pydantic import TypeAdapter

from health_code_service.synth import __main__ as synth_cli
from health_code_service.synth import fonts, generate
from health_code_service.synth.layouts import LAYOUTS
from health_code_service.usages import Result, Usage

LAYOUT_CASES = [(usage, layout) for usage, layouts in LAYOUTS.items() for layout in layouts]


def test_the_same_seed_gives_the_same_bytes() -> None:
    assert generate(Usage.TRIP_CODE, 5) == generate(Usage.TRIP_CODE, 5)
    assert generate(Usage.TRIP_CODE, 5)[0] != generate(Usage.TRIP_CODE, 6)[0]


@pytest.mark.parametrize(("usage", "layout"), LAYOUT_CASES)
def test_every_layout_draws_a_screenshot_with_result_shaped_truth(
    usage: Usage, layout: str
) -> None:
    jpeg, truth = generate(usage, 3, layout=layout, scale=0.5, rotation=1.0, quality=70)
    with Image.open(io.BytesIO(jpeg)) as image:
        assert image.format == "JPEG"
        assert image.width == 540
        assert 900 < image.height < 1300
    assert truth["synth"] == {"layout": layout, "scale": 0.5, "rotation": 1.0, "quality": 70}
    fields = {key: value for key, value in truth.items() if key != "synth"}
    result = TypeAdapter(Result).validate_python(fields)
    assert result.model_dump(mode="json") == fields


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


def test_cli_refuses_a_layout_of_another_usage(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        synth_cli.main(
            ["--usage", "trip-code", "--layout", "jiangsu", "--out", str(tmp_path / "x")]
        )


def test_a_missing_cjk_font_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fonts.shutil, "which", lambda name: None)
    monkeypatch.setattr(fonts, "KNOWN_DIR", Path("/nonexistent"))
    fonts.font_file.cache_clear()
    try:
        with pytest.raises(fonts.FontMissingError, match="fonts-noto-cjk"):
            fonts.font_file("regular")
    finally:
        fonts.font_file.cache_clear()
