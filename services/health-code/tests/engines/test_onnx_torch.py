"""The torch engine's ONNX evaluator keeps the data on the input's device, on any machine.

A GPU is not needed to see a tensor built on the wrong device: on torch's `meta` device
(shapes and dtypes, no data) an operator that mixes devices raises, and so does one that
reads a device value back to the host (`.item()`, `.tolist()`), which on a GPU would be a
stall per operator. So both graphs must run end to end with their weights and input on
`meta`, exactly as they must on `cuda`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

# Every test here runs torch: `heavy`, left out of `make test-fast`.
pytestmark = pytest.mark.heavy

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from health_code_service.engines.models import DET, REC, characters, onnx_model  # noqa: E402
from health_code_service.engines.onnx_torch import OnnxModule  # noqa: E402


def _on_meta(name: str, shape: tuple[int, ...]) -> torch.Tensor:
    """The graph `name` evaluated with its weights and an input of `shape` on `meta`."""
    module = OnnxModule(onnx_model(name)).eval().to("meta")
    with torch.inference_mode():
        return module(torch.zeros(shape, device="meta"))


@pytest.mark.parametrize("shape", [(2, 3, 96, 320), (1, 3, 64, 64)])
def test_detection_runs_with_every_tensor_on_the_inputs_device(shape: tuple[int, ...]) -> None:
    out = _on_meta(DET, shape)
    assert out.device.type == "meta"
    assert tuple(out.shape) == (shape[0], 1, *shape[2:])


@pytest.mark.parametrize("shape", [(3, 3, 48, 160), (1, 3, 48, 80)])
def test_recognition_runs_with_every_tensor_on_the_inputs_device(shape: tuple[int, ...]) -> None:
    """The recogniser computes reshape targets from `Shape`: those stay host arithmetic,
    and the data they reshape stays where the input is."""
    out = _on_meta(REC, shape)
    assert out.device.type == "meta"
    assert tuple(out.shape) == (shape[0], shape[3] // 8, len(characters()))


def test_a_reshape_target_built_from_shape_and_constants_does_not_mix_devices(
    tmp_path: Path,
) -> None:
    """The fault seen on the GPU: `Shape` gave a host tensor, the constant it was
    concatenated with had moved to the device with the weights, and `Concat` raised."""
    graph = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Slice", ["shape", "zero", "two"], ["batch_channels"]),
            helper.make_node("Concat", ["batch_channels", "minus_one"], ["target"], axis=0),
            helper.make_node("Reshape", ["x", "target"], ["flat"]),
            helper.make_node("Mul", ["flat", "scale"], ["y"]),
        ],
        "flatten",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3, "hw"])],
        [
            numpy_helper.from_array(np.array([0], np.int64), "zero"),
            numpy_helper.from_array(np.array([2], np.int64), "two"),
            numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
            numpy_helper.from_array(np.full((1, 3, 1), 2.0, np.float32), "scale"),
        ],
    )
    path = tmp_path / "flatten.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)]), str(path))

    module = OnnxModule(path).to("meta")
    out = module(torch.zeros((2, 3, 4, 5), device="meta"))
    assert out.device.type == "meta" and tuple(out.shape) == (2, 3, 20)

    on_cpu = OnnxModule(path)(torch.ones((2, 3, 4, 5)))
    assert torch.equal(on_cpu, torch.full((2, 3, 20), 2.0))


def test_only_a_convolutional_graph_takes_items_padded_to_a_common_shape() -> None:
    """The recogniser's attention mixes every position of a line: a mask cannot keep the
    padding out of it, so it refuses padded items rather than read them differently."""
    det, rec = OnnxModule(onnx_model(DET)), OnnxModule(onnx_model(REC))
    assert det.paddable and not rec.paddable
    with pytest.raises(ValueError, match="no padding"):
        rec(torch.zeros((2, 3, 48, 160)), [(48, 160), (48, 80)])
