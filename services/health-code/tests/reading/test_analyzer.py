"""Analyzer: the ground truth from generated screenshots, alike on every engine, deterministic
under concurrency and whatever the batch (network calls batched across threads), and a clear
error for an image without a code."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zxingcpp
from PIL import Image, ImageDraw

from health_code_service.reading.analyzer import DET_MAX_HEIGHT, DET_WIDTH, AnalysisError, Analyzer
from health_code_service.reading.imaging import MAX_SIDE, ImageLimits, decode_image
from health_code_service.serving.network import Batched as BatchedNetwork
from health_code_service.synth import content, generate, layouts_of
from health_code_service.synth.layouts import LAYOUTS
from health_code_service.usages import Usage

Screenshot = Callable[..., tuple[np.ndarray, dict[str, Any]]]
SEEDS = (0, 1)
CASES = [(usage, layout) for usage, layouts in LAYOUTS.items() for layout in layouts]


def answer(analyzer: Analyzer, usage: Usage, image: np.ndarray) -> dict[str, Any]:
    return analyzer.analyze(usage, image).model_dump(mode="json")


@pytest.mark.parametrize(("usage", "layout"), CASES)
def test_every_layout_gives_the_ground_truth(
    default_analyzer: Analyzer, screenshot: Screenshot, usage: Usage, layout: str
) -> None:
    for seed in SEEDS:
        image, truth = screenshot(usage, seed, layout=layout)
        assert answer(default_analyzer, usage, image) == truth


@pytest.mark.heavy  # reads every name layout of two usages, both splits, for each rule
@pytest.mark.parametrize("rule", content.MASK_RULES)
def test_every_masking_rule_is_read_in_every_name_layout(
    default_analyzer: Analyzer, monkeypatch: pytest.MonkeyPatch, rule: str
) -> None:
    """Drawn with the ASCII asterisk; the recogniser's misreadings of the other glyphs (the
    full-width one as 水) are measured by `health-code-eval`, not asserted here."""
    drawn = content.masked_name
    monkeypatch.setattr(content, "masked_name", lambda rng: drawn(rng, rule=rule, glyph="*"))
    for split in ("tune", "held-out"):
        for usage in (Usage.HEALTH_CODE, Usage.NUCLEIC_ACID):
            for layout in layouts_of(usage, split):
                jpeg, truth = generate(usage, 0, split=split, layout=layout, scale=0.75)
                found = default_analyzer.analyze(
                    usage, decode_image(jpeg, ImageLimits(25_000_000))
                ).name
                assert found == truth["name"], (split, layout, truth["name"])


@pytest.mark.heavy  # reads every held-out layout of each usage at two seeds
@pytest.mark.parametrize("usage", list(Usage))
def test_the_held_out_split_gives_the_ground_truth(
    default_analyzer: Analyzer, usage: Usage
) -> None:
    for seed in SEEDS:
        for layout in layouts_of(usage, "held-out"):
            jpeg, truth = generate(usage, seed, split="held-out", layout=layout)
            image = decode_image(jpeg, ImageLimits(25_000_000))
            fields = {key: value for key, value in truth.items() if key != "synth"}
            assert answer(default_analyzer, usage, image) == fields


@pytest.mark.heavy  # reads one screenshot of every layout, with each engine
def test_every_engine_reads_the_same_fields(analyzer: Analyzer, screenshot: Screenshot) -> None:
    for usage, layout in CASES:
        image, truth = screenshot(usage, SEEDS[0], layout=layout)
        assert answer(analyzer, usage, image) == truth


@pytest.mark.parametrize("scale", [0.5, 1.0])
def test_small_and_large_screens_alike(
    default_analyzer: Analyzer, screenshot: Screenshot, scale: float
) -> None:
    for usage in Usage:
        image, truth = screenshot(usage, 11, scale=scale)
        assert answer(default_analyzer, usage, image) == truth


@pytest.mark.parametrize("colour", ["green", "yellow", "red"])
def test_colour_is_measured_from_the_code(
    default_analyzer: Analyzer, screenshot: Screenshot, colour: str
) -> None:
    image, _ = screenshot(Usage.HEALTH_CODE, 4, colour=colour)
    assert default_analyzer.analyze(Usage.HEALTH_CODE, image).colour == colour


@pytest.mark.heavy  # 23 analyses, 20 of them at once
def test_20_threads_at_once_get_the_answers_of_one_thread(
    analyzer: Analyzer, screenshot: Screenshot
) -> None:
    images = [(usage, screenshot(usage, 5, scale=0.5)[0]) for usage in Usage]
    alone = [answer(analyzer, usage, image) for usage, image in images]
    calls = [images[i % len(images)] for i in range(20)]
    with ThreadPoolExecutor(max_workers=20) as pool:
        together = list(pool.map(lambda item: answer(analyzer, *item), calls))
    assert together == [alone[i % len(images)] for i in range(20)]


class CountingEngine:
    """An engine that records how many inputs each detector call stacked."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.name = engine.name
        self.detect_sizes: list[int] = []

    def detect(self, batch: np.ndarray) -> np.ndarray:
        self.detect_sizes.append(len(batch))
        return self.engine.detect(batch)

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return self.engine.recognize(batch)


@pytest.mark.heavy  # 16 analyses, 12 batched across threads
def test_batched_network_calls_give_each_thread_its_single_answer(
    analyzer: Analyzer, screenshot: Screenshot
) -> None:
    images = [(usage, screenshot(usage, 7, scale=0.5)[0]) for usage in Usage]
    images.append((Usage.HEALTH_CODE, screenshot(Usage.HEALTH_CODE, 8, scale=0.5)[0]))
    alone = [answer(analyzer, usage, image) for usage, image in images]
    engine = CountingEngine(analyzer.engine)
    network = BatchedNetwork(engine, max_size=16, max_wait_s=0.2)
    calls = [images[i % len(images)] for i in range(12)]
    try:
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            together = list(
                pool.map(
                    lambda item: analyzer.analyze(*item, network).model_dump(mode="json"), calls
                )
            )
    finally:
        network.close()
    assert together == [alone[i % len(images)] for i in range(12)]
    # A request detects in at most two regions: a larger stack joined several requests.
    assert max(engine.detect_sizes) > 2


def test_prepare_then_read_is_analyze(default_analyzer: Analyzer, screenshot: Screenshot) -> None:
    for usage in Usage:
        image, truth = screenshot(usage, 9, scale=0.5)
        prepared = default_analyzer.prepare(usage, image)
        assert prepared.page.inputs and len(prepared.page.inputs) == len(prepared.page.regions)
        assert default_analyzer.read(prepared).model_dump(mode="json") == truth


@pytest.mark.parametrize("usage", list(Usage))
def test_the_committed_samples_get_their_answers_directly_and_batched(
    default_analyzer: Analyzer, usage: Usage, project_root: Path
) -> None:
    data = project_root / "loadtests" / "data"
    image = decode_image((data / f"{usage}.jpg").read_bytes(), ImageLimits(25_000_000))
    expected = json.loads((data / f"{usage}.answer.json").read_text(encoding="utf-8"))
    assert answer(default_analyzer, usage, image) == expected
    network = BatchedNetwork(default_analyzer.engine, max_size=8, max_wait_s=0.001)
    try:
        assert default_analyzer.analyze(usage, image, network).model_dump(mode="json") == expected
    finally:
        network.close()


def _photo_without_code() -> np.ndarray:
    image = Image.new("RGB", (600, 900), (200, 220, 240))
    draw = ImageDraw.Draw(image)
    for i in range(12):
        draw.ellipse((20 + i * 40, 100 + i * 50, 120 + i * 40, 200 + i * 50), fill=(i * 20, 90, 60))
    return np.asarray(image)


@pytest.mark.parametrize("usage", list(Usage))
def test_an_image_without_a_code_is_no_code_found(analyzer: Analyzer, usage: Usage) -> None:
    with pytest.raises(AnalysisError) as caught:
        analyzer.analyze(usage, _photo_without_code())
    assert (caught.value.code, caught.value.status) == ("no_code_found", 422)
    assert caught.value.message


def test_a_black_qr_code_is_not_a_health_code(default_analyzer: Analyzer) -> None:
    code = zxingcpp.create_barcode("https://example.cn/menu", zxingcpp.BarcodeFormat.QRCode)
    image = Image.new("RGB", (600, 900), "white")
    image.paste(Image.fromarray(np.asarray(code.to_image(scale=12))).convert("RGB"), (100, 250))
    with pytest.raises(AnalysisError, match="green, yellow or red") as caught:
        default_analyzer.analyze(Usage.HEALTH_CODE, np.asarray(image))
    assert caught.value.code == "no_code_found"


STRIPS = [(MAX_SIDE, 1), (1, MAX_SIDE), (320, MAX_SIDE), (MAX_SIDE, 3)]


@pytest.mark.parametrize("usage", list(Usage))
@pytest.mark.parametrize("size", STRIPS, ids=[f"{w}x{h}" for w, h in STRIPS])
def test_a_strip_within_the_limits_is_no_code_found(
    default_analyzer: Analyzer, usage: Usage, size: tuple[int, int]
) -> None:
    """However long and thin the image, every step takes it and says what it found."""
    width, height = size
    strip = np.full((height, width, 3), 128, np.uint8)
    with pytest.raises(AnalysisError) as caught:
        default_analyzer.analyze(usage, strip)
    assert (caught.value.code, caught.value.status) == ("no_code_found", 422)


@pytest.mark.parametrize("usage", [Usage.TRIP_CODE, Usage.NUCLEIC_ACID])
@pytest.mark.parametrize("size", STRIPS, ids=[f"{w}x{h}" for w, h in STRIPS])
def test_the_detector_input_is_bounded_whatever_the_shape(
    default_analyzer: Analyzer, usage: Usage, size: tuple[int, int]
) -> None:
    width, height = size
    prepared = default_analyzer.prepare(usage, np.zeros((height, width, 3), np.uint8))
    for tensor in prepared.page.inputs:
        _, rows, columns = tensor.shape
        assert rows <= DET_MAX_HEIGHT + 32
        assert columns <= DET_WIDTH + 32
