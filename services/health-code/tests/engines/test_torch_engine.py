"""The torch engine's GPU path, checked on the CPU: buckets, memory-bounded parts, float16.

Padding to buckets and splitting batches change how many forward passes run and on what
shapes, never what any image reads; each is forced on here (a CPU engine pads only when
told to) and compared with the plain path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# Every test here runs torch: `heavy`, left out of `make test-fast`.
pytestmark = pytest.mark.heavy

torch = pytest.importorskip("torch")

from health_code_service.engines.devices import DeviceUnavailable  # noqa: E402
from health_code_service.engines.models import DET, REC, onnx_model  # noqa: E402
from health_code_service.engines.onnx_torch import OnnxModule  # noqa: E402
from health_code_service.engines.torch_engine import (  # noqa: E402
    DET_RUNGS,
    DET_UNIT,
    REC_RUNGS,
    REC_UNIT,
    TorchEngine,
    bucket,
)
from health_code_service.reading.analyzer import Analyzer  # noqa: E402
from health_code_service.reading.imaging import ImageLimits, decode_image  # noqa: E402
from health_code_service.serving.network import Batched  # noqa: E402
from health_code_service.settings import Settings  # noqa: E402
from health_code_service.usages import Usage  # noqa: E402
from servelab.project import Project  # noqa: E402

SAMPLES = Project.find(Path(__file__).parent).root / "loadtests" / "data"
RNG = np.random.default_rng(7)


@pytest.fixture(scope="module")
def bucketed() -> TorchEngine:
    return TorchEngine(bucketed=True)


@pytest.fixture(scope="module")
def plain() -> TorchEngine:
    return TorchEngine(bucketed=False)


def _record_passes(monkeypatch: pytest.MonkeyPatch, module: OnnxModule) -> list[tuple[int, ...]]:
    """The input shape of every forward pass `module` makes from now on."""
    shapes: list[tuple[int, ...]] = []
    forward = module.forward

    def recording(x: torch.Tensor, sizes: Any = None) -> torch.Tensor:
        shapes.append(tuple(x.shape))
        return forward(x, sizes)

    monkeypatch.setattr(module, "forward", recording)
    return shapes


@pytest.mark.parametrize(
    ("unit", "rungs", "padding", "count"), [(DET_UNIT, DET_RUNGS, 0.25, 20), (80, 2, 0.5, 12)]
)
def test_buckets_are_few_and_pad_at_most_a_share(
    unit: int, rungs: int, padding: float, count: int
) -> None:
    sizes = [unit * n for n in range(1, 65)]
    buckets = [bucket(size, unit, rungs) for size in sizes]
    assert all(b >= size and b % unit == 0 for b, size in zip(buckets, sizes, strict=True))
    assert all((b - size) / b < padding for b, size in zip(buckets, sizes, strict=True))
    assert len(set(buckets)) == count  # for 64 sizes
    assert bucket(288, DET_UNIT, DET_RUNGS) == 320 and bucket(400, REC_UNIT, REC_RUNGS) == 480


def test_regions_of_different_sizes_share_a_pass_and_each_gets_its_own_map(
    bucketed: TorchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    shapes = [(288, 320), (320, 320), (320, 288), (96, 160)]
    inputs = [RNG.uniform(-1, 1, (3, h, w)).astype(np.float32) for h, w in shapes]
    alone = [bucketed.detect(x[None])[0] for x in inputs]

    passes = _record_passes(monkeypatch, bucketed._det)
    maps = bucketed.detect_many(inputs)
    assert sorted(passes) == [(1, 3, 96, 160), (3, 3, 320, 320)]
    for got, want in zip(maps, alone, strict=True):
        assert got.shape == want.shape
        assert np.allclose(got, want, atol=1e-5)


def test_crops_of_different_widths_share_a_pass_and_keep_their_own_length(
    bucketed: TorchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = [RNG.uniform(-1, 1, (3, 48, w)).astype(np.float32) for w in (400, 480, 80)]
    passes = _record_passes(monkeypatch, bucketed._rec)
    probs = bucketed.recognize_many(inputs)
    assert sorted(passes) == [(1, 3, 48, 80), (2, 3, 48, 480)]
    assert [p.shape[0] for p in probs] == [50, 60, 10]
    assert np.allclose(probs[2], bucketed.recognize(inputs[2][None])[0], atol=1e-5)


def test_a_memory_budget_splits_a_batch_into_parts_that_read_the_same(
    plain: TorchEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = TorchEngine(memory_mb=1)
    det_batch = RNG.uniform(-1, 1, (5, 3, 64, 96)).astype(np.float32)
    rec_batch = RNG.uniform(-1, 1, (9, 3, 48, 160)).astype(np.float32)
    # 96 bytes a pixel: 64 x 96 x 96 = 576 KiB an image, one per MiB; 192 x 48 x 160 = 1.4 MiB
    assert small.parts(det_batch.shape, 96.0) == 1

    det_passes = _record_passes(monkeypatch, small._det)
    rec_passes = _record_passes(monkeypatch, small._rec)
    assert np.allclose(small.detect(det_batch), plain.detect(det_batch), atol=1e-5)
    assert np.allclose(small.recognize(rec_batch), plain.recognize(rec_batch), atol=1e-5)
    assert [shape[0] for shape in det_passes] == [1] * 5
    assert [shape[0] for shape in rec_passes] == [1] * 9


@pytest.mark.parametrize(
    ("name", "shapes"),
    [
        (DET, [(1, 3, 64, 64), (2, 3, 320, 96), (1, 3, 704, 320)]),
        (REC, [(1, 3, 48, 80), (3, 3, 48, 320), (1, 3, 48, 1600)]),
    ],
)
def test_working_memory_grows_as_the_pixels(
    name: str, shapes: list[tuple[int, int, int, int]]
) -> None:
    """What the engine's budget relies on: bytes a pixel measured once hold at every size."""
    module = OnnxModule(onnx_model(name)).eval().to("meta")
    per_pixel = [
        module.peak_bytes(torch.empty(shape, device="meta")) / (shape[0] * shape[2] * shape[3])
        for shape in shapes
    ]
    assert max(per_pixel) <= min(per_pixel) * 1.02


def test_half_precision_is_refused_off_cuda() -> None:
    with pytest.raises(DeviceUnavailable, match="OCR_HALF_PRECISION is for CUDA devices"):
        TorchEngine(half_precision=True)


def _float16_storage(module: OnnxModule) -> OnnxModule:
    """`module` with every weight and every computed tensor rounded to float16 and the
    arithmetic in float32, as cuDNN computes float16 convolutions: what a CUDA device in
    half precision keeps, emulated on the CPU (whose float16 kernels also accumulate in
    float16, which a GPU does not)."""
    with torch.no_grad():
        for weight in module.buffers():
            if weight.is_floating_point():
                weight.copy_(weight.half().float())

    def rounded(op: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
        def run(*args: Any) -> torch.Tensor:
            out = op(*args)
            return out.half().float() if out.is_floating_point() else out

        return run

    for step in module._steps:
        object.__setattr__(step, "op", rounded(step.op))
    return module


def read_in_one_batch(
    analyzer: Analyzer, engine: TorchEngine, items: Sequence[tuple[Usage, np.ndarray]]
) -> list[Any]:
    """Every item analysed in a thread of its own through one micro-batcher that waits for
    all of them, as the batched mode serves them: their network inputs share batches."""
    network = Batched(engine, max_size=len(items), max_wait_s=5.0)
    try:
        with ThreadPoolExecutor(max_workers=len(items)) as pool:
            return list(pool.map(lambda item: analyzer.analyze(*item, network=network), items))
    finally:
        network.close()


def test_the_recogniser_in_float16_reads_what_float32_reads(plain: TorchEngine) -> None:
    analyzer = Analyzer(Settings(ocr_engine="torch"))
    items = [
        (
            Usage(usage),
            decode_image((SAMPLES / f"{usage}.jpg").read_bytes(), ImageLimits(25_000_000)),
        )
        for usage in ("health-code", "trip-code", "nucleic-acid")
    ]
    want = read_in_one_batch(analyzer, plain, items)
    half = TorchEngine(bucketed=False)
    half._rec = _float16_storage(half._rec)
    assert read_in_one_batch(analyzer, half, items) == want


def test_bucketed_batches_read_what_exact_shapes_read(
    bucketed: TorchEngine, plain: TorchEngine, screenshot: Callable[..., Any]
) -> None:
    """The committed samples and generated screenshots of every usage, all in one batch:
    their regions and crops pad to shared shapes, and every field reads the same."""
    analyzer = Analyzer(Settings(ocr_engine="torch"))
    items = [
        (
            Usage(usage),
            decode_image((SAMPLES / f"{usage}.jpg").read_bytes(), ImageLimits(25_000_000)),
        )
        for usage in ("health-code", "trip-code", "nucleic-acid")
    ]
    items += [(usage, screenshot(usage, 3)[0]) for usage in Usage]
    want = read_in_one_batch(analyzer, plain, items)
    assert read_in_one_batch(analyzer, bucketed, items) == want
