"""An engine given a device it cannot use refuses to start, and says what it could use.

What each runtime sees (CUDA or not, how many GPUs) is set here, so the refusals are
checked the same way on a machine with a GPU and on one without.
"""

from __future__ import annotations

from importlib.util import find_spec

import onnxruntime
import pytest

from health_code_service.engines import create_engine, ort_engine
from health_code_service.engines.devices import Device, DeviceUnavailable, parse_device
from health_code_service.settings import Settings

needs_torch = pytest.mark.skipif(not find_spec("torch"), reason="the torch extra is not installed")
needs_paddle = pytest.mark.skipif(
    not find_spec("paddle"), reason="the paddle extra is not installed"
)


@pytest.mark.parametrize(
    ("name", "device"),
    [("cpu", Device("cpu")), ("cuda", Device("cuda", 0)), ("CUDA:2", Device("cuda", 2))],
)
def test_the_device_names_engines_take(name: str, device: Device) -> None:
    assert parse_device(name, "torch") == device


@pytest.mark.parametrize(
    "engine",
    [
        "onnxruntime",
        pytest.param("torch", marks=pytest.mark.heavy),
        pytest.param("paddle", marks=pytest.mark.heavy),
    ],
)
@pytest.mark.parametrize("name", ["gpu", "cuda:", "cuda:one", "cpu:1", "mps", ""])
def test_a_name_that_is_no_device_is_refused_before_any_model_loads(engine: str, name: str) -> None:
    if engine != "onnxruntime" and not find_spec(engine):
        pytest.skip(f"the {engine} extra is not installed")
    with pytest.raises(DeviceUnavailable, match=r"use cpu, cuda or cuda:N") as raised:
        create_engine(Settings(ocr_engine=engine, ocr_device=name))
    assert repr(name) in str(raised.value)


@pytest.mark.heavy  # imports torch
@needs_torch
def test_torch_without_cuda_refuses_cuda_and_names_the_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import torch

    from health_code_service.engines.torch_engine import torch_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceUnavailable) as raised:
        torch_device("cuda")
    message = str(raised.value)
    assert "OCR_DEVICE=cuda:0" in message and "sees no CUDA device" in message
    assert message.endswith("it can use cpu")
    assert torch_device("cpu") == torch.device("cpu")


@pytest.mark.heavy  # imports torch
@needs_torch
def test_torch_refuses_a_gpu_index_past_the_last_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from health_code_service.engines.torch_engine import torch_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert torch_device("cuda:1") == torch.device("cuda", 1)
    with pytest.raises(DeviceUnavailable, match=r"sees 2 CUDA device\(s\); it can use cpu, "):
        torch_device("cuda:3")


@pytest.mark.heavy  # imports paddle
@needs_paddle
def test_the_cpu_build_of_paddle_refuses_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    import paddle

    from health_code_service.engines.paddle_engine import paddle_device

    monkeypatch.setattr(paddle, "is_compiled_with_cuda", lambda: False)
    with pytest.raises(DeviceUnavailable, match="paddlepaddle-gpu"):
        paddle_device("cuda:0")
    assert paddle_device("cpu") == Device("cpu")


CUDA_AND_CPU = ["CUDAExecutionProvider", "CPUExecutionProvider"]


def test_onnxruntime_on_the_cpu_uses_the_cpu_provider_only() -> None:
    assert ort_engine.providers(Device("cpu"), CUDA_AND_CPU, 1 << 30) == ["CPUExecutionProvider"]


def test_onnxruntime_on_cuda_selects_the_cuda_provider_on_that_gpu_within_the_budget() -> None:
    chosen = ort_engine.providers(Device("cuda", 1), CUDA_AND_CPU, 512 << 20)
    assert chosen[1:] == ["CPUExecutionProvider"]
    name, options = chosen[0]
    assert name == "CUDAExecutionProvider"
    assert options["device_id"] == 1 and options["gpu_mem_limit"] == 512 << 20
    assert options["arena_extend_strategy"] == "kSameAsRequested"


def test_onnxruntime_without_the_cuda_provider_refuses_cuda(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: ["CPUExecutionProvider"])
    with pytest.raises(DeviceUnavailable) as raised:
        create_engine(Settings(ocr_engine="onnxruntime", ocr_device="cuda"))
    message = str(raised.value)
    assert "OCR_DEVICE=cuda:0" in message and "has no CUDAExecutionProvider" in message
    assert "onnxruntime-gpu" in message and message.endswith("it can use cpu")


@pytest.mark.skipif(
    "CUDAExecutionProvider" in onnxruntime.get_available_providers(),
    reason="here onnxruntime really has CUDA, so it would not fall back",
)
@pytest.mark.filterwarnings("ignore:Specified provider 'CUDAExecutionProvider'")
def test_onnxruntime_falling_back_to_the_cpu_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """onnxruntime only warns when the CUDA provider cannot start and runs on the CPU: made
    to ask for CUDA on this CPU build, the engine sees the fallback and refuses."""
    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: CUDA_AND_CPU)
    monkeypatch.setattr(onnxruntime, "preload_dlls", lambda: None)
    with pytest.raises(DeviceUnavailable, match="could not start CUDAExecutionProvider"):
        create_engine(Settings(ocr_engine="onnxruntime", ocr_device="cuda"))
