"""PyTorch: the packaged ONNX models evaluated by torch, on the CPU or a CUDA device.

Built to keep a GPU fed when images of many sizes arrive together (batched mode):

- detection inputs are padded to a few shapes (`bucket`), so regions of different sizes
  share one forward pass; the evaluator masks the padding, so each map is what the region
  alone gives (to float rounding);
- recognition crops are padded to a few widths, as PaddleOCR pads a batch to its widest;
- every call is split into parts whose working tensors fit OCR_GPU_MEMORY_MB;
- optional float16 for the recogniser on CUDA (OCR_HALF_PRECISION).

Padding to buckets is on for CUDA devices only (see `bucketed`).
"""

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import torch

from health_code_service.engines.devices import DeviceUnavailable, check_gpu, parse_device
from health_code_service.engines.models import DET, REC, onnx_model
from health_code_service.engines.onnx_torch import OnnxModule

MiB = 1024 * 1024
# Detection inputs come in multiples of 32 (the detector's deepest stride; text.py makes
# them so); padded onto 4 rungs per doubling, so at most 25% of a padded input is padding.
DET_UNIT, DET_RUNGS = 32, 4
# Recognition crops come in multiples of 80 px (text.py's width bucket); 2 rungs per
# doubling: a crop is at most 50% padding, and 80..800 px crops fall into 7 widths, not 10.
REC_UNIT, REC_RUNGS = 80, 2
REC_HEIGHT = 48


def bucket(size: int, unit: int, rungs: int) -> int:
    """`size` rounded up onto multiples of `unit` spaced `rungs` to a doubling (a power of 2):
    with 4, 1..4 units stay as they are, then 5, 6, 7, 8, 10, 12, 14, 16, 20, ..."""
    units = -(-size // unit)
    step = max(1, (1 << (units.bit_length() - 1)) // rungs)
    return -(-units // step) * step * unit


def torch_device(name: str) -> torch.device:
    """The torch device OCR_DEVICE names, if torch here can use it (else DeviceUnavailable)."""
    device = parse_device(name, "torch")
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if torch.version.cuda is None:
        why_none = f"torch {torch.__version__} is a build without CUDA"
    else:
        why_none = (
            f"torch {torch.__version__} is built for CUDA {torch.version.cuda}, no GPU answers"
        )
    check_gpu(device, "torch", gpus, why_none)
    return torch.device("cpu") if device.kind == "cpu" else torch.device("cuda", device.index)


class TorchEngine:
    name = "torch"

    def __init__(
        self,
        device: str = "cpu",
        threads: int = 1,
        memory_mb: int = 2048,
        half_precision: bool = False,
        bucketed: bool | None = None,
    ) -> None:
        self.device = torch_device(device)
        # On a GPU a forward pass costs about the same for a few more pixels, and fewer,
        # larger passes keep it busy; on the CPU every padded pixel is paid for (12 test
        # screenshots in one batch: 1.5 to 2x the time bucketed), so there shapes stay exact.
        self.bucketed = self.device.type == "cuda" if bucketed is None else bucketed
        if half_precision and self.device.type != "cuda":
            raise DeviceUnavailable(
                f"OCR_HALF_PRECISION is for CUDA devices, not OCR_DEVICE={self.device}"
            )
        # cuDNN's autotuning (torch.backends.cudnn.benchmark) stays off: it tunes every
        # (batch size, height, width) anew, with workspaces of its own, and neither its gain
        # nor its memory could be measured without a GPU.
        if self.device.type == "cpu":
            torch.set_num_threads(threads)
        # Only the recogniser runs in float16: with every tensor rounded to float16 (emulated
        # on the CPU) it read the same text on all 12 test screenshots, while the detector's
        # map moved enough to lose the name and time on every one (0 of 12).
        rec_dtype = torch.float16 if half_precision else torch.float32
        self.memory_bytes = memory_mb * MiB
        self._det = OnnxModule(onnx_model(DET)).to(self.device, torch.float32).eval()
        self._rec = OnnxModule(onnx_model(REC)).to(self.device, rec_dtype).eval()
        # The working tensors of both graphs grow as their input's pixels (96 and 192 bytes a
        # pixel in float32; tested), measured once here by a pass that also warms the device.
        self._det_bytes = self._bytes_per_pixel(self._det, (1, 3, 4 * DET_UNIT, 4 * DET_UNIT))
        self._rec_bytes = self._bytes_per_pixel(self._rec, (1, 3, REC_HEIGHT, 4 * REC_UNIT))

    def _bytes_per_pixel(self, module: OnnxModule, shape: tuple[int, int, int, int]) -> float:
        probe = torch.zeros(shape, dtype=module.dtype, device=self.device)
        return module.peak_bytes(probe) / (shape[0] * shape[2] * shape[3])

    def parts(self, shape: Sequence[int], per_pixel: float) -> int:
        """How many items of an input `shape` (N, C, H, W) one forward pass may take."""
        return max(1, int(self.memory_bytes // (per_pixel * shape[2] * shape[3])))

    def _run(
        self,
        module: OnnxModule,
        batch: np.ndarray,
        per_pixel: float,
        sizes: Sequence[tuple[int, int]] | None = None,
    ) -> np.ndarray:
        step = self.parts(batch.shape, per_pixel)
        outputs = []
        with torch.inference_mode():
            for start in range(0, len(batch), step):
                part = self._to_device(batch[start : start + step], module.dtype)
                out = module(part, None if sizes is None else sizes[start : start + step])
                outputs.append(out.float().cpu().numpy())
        return np.concatenate(outputs)

    def _to_device(self, array: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
        tensor = torch.from_numpy(array)
        if self.device.type == "cuda":
            # from pinned memory the copy is queued behind the work already on the GPU
            # instead of waiting for it to finish
            tensor = tensor.pin_memory()
        return tensor.to(self.device, dtype, non_blocking=True)

    def detect(self, batch: np.ndarray) -> np.ndarray:
        return self._run(self._det, batch, self._det_bytes)[:, 0]

    def recognize(self, batch: np.ndarray) -> np.ndarray:
        return self._run(self._rec, batch, self._rec_bytes)

    def detect_many(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Probability maps for (3, H, W) inputs of any sizes, one pass per bucketed shape."""
        groups: dict[tuple[int, int], list[int]] = defaultdict(list)
        for index, tensor in enumerate(inputs):
            height, width = tensor.shape[1:]
            if not self.bucketed or height % DET_UNIT or width % DET_UNIT:
                # (the mask is exact only on the detector's stride grid: no padding off it)
                groups[(height, width)].append(index)
            else:
                groups[
                    (bucket(height, DET_UNIT, DET_RUNGS), bucket(width, DET_UNIT, DET_RUNGS))
                ].append(index)
        results: list[np.ndarray] = [np.empty(0)] * len(inputs)
        for (height, width), indices in groups.items():
            batch = np.zeros((len(indices), 3, height, width), dtype=np.float32)
            sizes = []
            for row, index in enumerate(indices):
                own_height, own_width = inputs[index].shape[1:]
                batch[row, :, :own_height, :own_width] = inputs[index]
                sizes.append((own_height, own_width))
            maps = self._run(self._det, batch, self._det_bytes, sizes)[:, 0]
            for row, index in enumerate(indices):
                own_height, own_width = sizes[row]
                results[index] = maps[row, :own_height, :own_width].copy()
        return results

    def recognize_many(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Character probabilities for (3, 48, W) crops of any widths, one pass per bucketed
        width, each cut back to its own W/8 steps."""
        groups: dict[int, list[int]] = defaultdict(list)
        for index, tensor in enumerate(inputs):
            width = tensor.shape[2]
            groups[bucket(width, REC_UNIT, REC_RUNGS) if self.bucketed else width].append(index)
        results: list[np.ndarray] = [np.empty(0)] * len(inputs)
        for width, indices in groups.items():
            # zero is the normalised grey text.py already pads crops with
            batch = np.zeros((len(indices), 3, REC_HEIGHT, width), dtype=np.float32)
            for row, index in enumerate(indices):
                batch[row, :, :, : inputs[index].shape[2]] = inputs[index]
            probs = self._run(self._rec, batch, self._rec_bytes)
            for row, index in enumerate(indices):
                results[index] = probs[row, : inputs[index].shape[2] // 8].copy()
        return results
