"""Every installed engine evaluates the same networks: same shapes, same numbers, batch or not."""

from __future__ import annotations

import numpy as np
import pytest

from health_code_service.engines import Engine, create_engine
from health_code_service.engines.models import characters
from health_code_service.settings import Settings

RNG = np.random.default_rng(42)
DET_BATCH = RNG.uniform(-1, 1, (2, 3, 128, 160)).astype(np.float32)
REC_BATCH = RNG.uniform(-1, 1, (3, 3, 48, 160)).astype(np.float32)


@pytest.fixture
def ocr(analyzer) -> Engine:
    return analyzer.engine


@pytest.fixture(scope="module")
def reference() -> Engine:
    return create_engine(Settings())


def test_detection_gives_one_probability_map_per_image(ocr: Engine) -> None:
    maps = ocr.detect(DET_BATCH)
    assert maps.shape == (2, 128, 160)
    assert maps.min() >= 0.0 and maps.max() <= 1.0


def test_recognition_gives_character_probabilities(ocr: Engine) -> None:
    probs = ocr.recognize(REC_BATCH)
    assert probs.shape == (3, 160 // 8, len(characters()))
    assert np.allclose(probs.sum(axis=-1), 1.0, atol=1e-3)


def test_engines_agree_with_onnxruntime(ocr: Engine, reference: Engine) -> None:
    assert np.allclose(ocr.detect(DET_BATCH), reference.detect(DET_BATCH), atol=1e-3)
    mine, theirs = ocr.recognize(REC_BATCH), reference.recognize(REC_BATCH)
    assert np.allclose(mine, theirs, atol=1e-3)
    assert np.array_equal(mine.argmax(-1), theirs.argmax(-1))


def test_a_batch_gives_what_single_calls_give(ocr: Engine) -> None:
    batched = ocr.recognize(REC_BATCH)
    for i in range(len(REC_BATCH)):
        assert np.allclose(batched[i], ocr.recognize(REC_BATCH[i : i + 1])[0], atol=1e-4)
    maps = ocr.detect(DET_BATCH)
    assert np.allclose(maps[1], ocr.detect(DET_BATCH[1:2])[0], atol=1e-4)


def test_the_character_table_has_blank_first_and_space_last() -> None:
    table = characters()
    assert table[0] == "" and table[-1] == " "
    assert {"阴", "阳", "性", "*", "：", "0", "9"} <= set(table)
