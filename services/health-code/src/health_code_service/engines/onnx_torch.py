"""The packaged ONNX graphs as torch modules.

onnx2torch would do this, but it imports torchvision, whose PyPI wheels are CUDA builds that
do not load next to the CPU build of torch. The two PP-OCR graphs use 27 plain operators
(opset 12), which map one to one onto torch functions; this module is that mapping.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

Op = Callable[..., torch.Tensor]
Attrs = dict[str, Any]


def _ints(value: torch.Tensor) -> list[int]:
    return [int(v) for v in value.tolist()]


def _conv(attrs: Attrs) -> Op:
    pads = attrs.get("pads", [0, 0, 0, 0])
    strides, dilations, groups = (
        attrs.get("strides", 1),
        attrs.get("dilations", 1),
        attrs.get("group", 1),
    )
    if pads[0] == pads[2] and pads[1] == pads[3]:
        padding = (pads[0], pads[1])
        return lambda x, w, b=None: F.conv2d(x, w, b, strides, padding, dilations, groups)
    edges = (pads[1], pads[3], pads[0], pads[2])
    return lambda x, w, b=None: F.conv2d(F.pad(x, edges), w, b, strides, 0, dilations, groups)


def _conv_transpose(attrs: Attrs) -> Op:
    pads = attrs.get("pads", [0, 0, 0, 0])
    if pads[0] != pads[2] or pads[1] != pads[3]:
        raise NotImplementedError("ConvTranspose with uneven pads")
    stride, groups, dilation = (
        attrs.get("strides", 1),
        attrs.get("group", 1),
        attrs.get("dilations", 1),
    )
    padding, extra = (pads[0], pads[1]), tuple(attrs.get("output_padding", (0, 0)))
    return lambda x, w, b=None: F.conv_transpose2d(
        x, w, b, stride, padding, extra, groups, dilation
    )


def _batch_norm(attrs: Attrs) -> Op:
    eps = attrs.get("epsilon", 1e-5)
    return lambda x, scale, bias, mean, var: F.batch_norm(
        x, mean, var, scale, bias, False, 0.0, eps
    )


def _hard_sigmoid(attrs: Attrs) -> Op:
    alpha, beta = attrs.get("alpha", 0.2), attrs.get("beta", 0.5)
    return lambda x: torch.clamp(x * alpha + beta, 0.0, 1.0)


def _clip(attrs: Attrs) -> Op:
    def clip(
        x: torch.Tensor, low: torch.Tensor | None = None, high: torch.Tensor | None = None
    ) -> torch.Tensor:
        return torch.clamp(
            x, None if low is None else float(low), None if high is None else float(high)
        )

    return clip


def _resize(attrs: Attrs) -> Op:
    if (
        attrs.get("mode", b"nearest") != b"nearest"
        or attrs.get("coordinate_transformation_mode") != b"asymmetric"
    ):
        raise NotImplementedError("Resize other than nearest/asymmetric")

    def resize(x: torch.Tensor, roi: torch.Tensor | None, scales: torch.Tensor) -> torch.Tensor:
        size = [
            int(dim * float(s)) for dim, s in zip(x.shape[2:], scales.tolist()[2:], strict=True)
        ]
        return F.interpolate(x, size=size, mode="nearest")

    return resize


def _average_pool(attrs: Attrs) -> Op:
    pads = attrs.get("pads", [0, 0, 0, 0])
    kernel, strides = attrs["kernel_shape"], attrs.get("strides", attrs["kernel_shape"])
    ceil, include = bool(attrs.get("ceil_mode", 0)), bool(attrs.get("count_include_pad", 0))
    return lambda x: F.avg_pool2d(x, kernel, strides, (pads[0], pads[1]), ceil, include)


def _reshape(attrs: Attrs) -> Op:
    def reshape(x: torch.Tensor, shape: torch.Tensor) -> torch.Tensor:
        dims = [x.shape[i] if d == 0 else d for i, d in enumerate(_ints(shape))]
        return x.reshape(dims)

    return reshape


def _slice(attrs: Attrs) -> Op:
    def slice_(
        x: torch.Tensor,
        starts: torch.Tensor,
        ends: torch.Tensor,
        axes: torch.Tensor | None = None,
        steps: torch.Tensor | None = None,
    ) -> torch.Tensor:
        index: list[slice] = [slice(None)] * x.dim()
        axes_ = _ints(axes) if axes is not None else list(range(len(starts)))
        steps_ = _ints(steps) if steps is not None else [1] * len(axes_)
        for axis, start, end, step in zip(axes_, _ints(starts), _ints(ends), steps_, strict=True):
            index[axis] = slice(start, min(end, x.shape[axis]), step)
        return x[tuple(index)]

    return slice_


_DTYPES = {1: torch.float32, 6: torch.int32, 7: torch.int64, 9: torch.bool, 11: torch.float64}

OPS: dict[str, Callable[[Attrs], Op]] = {
    "Add": lambda a: torch.add,
    "Sub": lambda a: torch.sub,
    "Mul": lambda a: torch.mul,
    "Div": lambda a: torch.div,
    "Pow": lambda a: torch.pow,
    "Sqrt": lambda a: torch.sqrt,
    "Relu": lambda a: F.relu,
    "Sigmoid": lambda a: torch.sigmoid,
    "MatMul": lambda a: torch.matmul,
    "Conv": _conv,
    "ConvTranspose": _conv_transpose,
    "BatchNormalization": _batch_norm,
    "HardSigmoid": _hard_sigmoid,
    "Clip": _clip,
    "Resize": _resize,
    "AveragePool": _average_pool,
    "GlobalAveragePool": lambda a: lambda x: x.mean(dim=(2, 3), keepdim=True),
    "Concat": lambda a: lambda *xs: torch.cat(xs, dim=a["axis"]),
    "Cast": lambda a: lambda x: x.to(_DTYPES[a["to"]]),
    # Softmax-12 flattens from `axis` on; the PP-OCR graphs only use it on the last axis.
    "Softmax": lambda a: lambda x: torch.softmax(x, dim=-1),
    "ReduceMean": lambda a: (
        lambda x: x.mean(dim=tuple(a["axes"]), keepdim=bool(a.get("keepdims", 1)))
    ),
    "Reshape": _reshape,
    # Metadata of its input, wherever that lives: a host value (see OnnxModule).
    "Shape": lambda a: lambda x: torch.tensor(x.shape, dtype=torch.int64),
    "Slice": _slice,
    "Squeeze": lambda a: lambda x: x.squeeze(tuple(a["axes"])),
    "Transpose": lambda a: lambda x: x.permute(a["perm"]),
}


# Inputs that parameterise an operator rather than carry data: read as Python numbers on the
# host (a bound, a scale, a shape), so they never live on the device and reading them never
# waits for it.
PARAMETERS: dict[str, frozenset[int]] = {
    "Clip": frozenset({1, 2}),
    "Resize": frozenset({1, 2}),
    "Reshape": frozenset({1}),
    "Slice": frozenset({1, 2, 3, 4}),
}


# Operators that mix neighbouring positions of a feature map, and how a padded batch must
# treat them to give each item what it would give alone: "input" zeroes the padding first
# (what a convolution's own zero padding sees at an unpadded item's edge), "mean" averages
# over the item's own positions only.
MIXING: dict[str, Literal["input", "mean"]] = {
    "Conv": "input",
    "ConvTranspose": "input",
    "AveragePool": "input",
    "GlobalAveragePool": "mean",
}
# Operators after which a padded position never reaches an item's own output except
# through a MIXING operator: a graph of these (a fully convolutional one, like the detector)
# can take items padded to a common shape (Concat: of channels). Reshape, MatMul, Softmax
# (the recogniser's attention) mix positions in ways a mask cannot undo.
POSITIONWISE = frozenset(
    {
        "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Relu", "Sigmoid", "HardSigmoid", "Clip",
        "BatchNormalization", "Concat", "Cast", "Resize",
    }
)  # fmt: skip


@dataclass(frozen=True)
class _Input:
    """Where a step reads one input: a computed value, a constant on the host, a constant on
    the device (a buffer), or a host value a data operator needs on the device."""

    name: str
    source: Literal["value", "host", "buffer", "to_device"]


@dataclass(frozen=True)
class _Step:
    op: Op
    inputs: tuple[_Input | None, ...]
    output: str
    mixing: Literal["input", "mean"] | None
    # computed values no later step reads: dropped right after this one, so the memory a
    # forward pass holds is its largest live set, not the sum of every intermediate.
    dead: tuple[str, ...] = ()


# A node as read from the graph: operator, inputs, output, ONNX type, how it mixes positions.
_Parsed = tuple[Op, tuple[_Input | None, ...], str, str, Literal["input", "mean"] | None]


class _Masks:
    """Which positions of each feature map belong to each item of a padded batch.

    The items' sizes reach the device in one copy that does not wait for it (from pinned
    memory on CUDA); each feature map's mask is then computed there.
    """

    def __init__(self, x: torch.Tensor, sizes: Sequence[tuple[int, int]]) -> None:
        self._padded = (int(x.shape[2]), int(x.shape[3]))
        self._sizes = [(int(h), int(w)) for h, w in sizes]
        on_host = torch.tensor(self._sizes, dtype=torch.int64)
        if x.device.type == "cuda":
            on_host = on_host.pin_memory()
        self._on_device = on_host.to(x.device, non_blocking=True)
        self._cache: dict[tuple[int, int, torch.dtype], torch.Tensor] = {}

    def __call__(self, value: torch.Tensor) -> torch.Tensor:
        """(N, 1, h, w) in `value`'s dtype: 1 on the item's own positions, 0 on padding."""
        h, w = (int(n) for n in value.shape[2:])
        key = (h, w, value.dtype)
        if key not in self._cache:
            for axis, extent in ((0, h), (1, w)):
                if any(size[axis] * extent % self._padded[axis] for size in self._sizes):
                    raise ValueError(
                        f"item sizes {self._sizes} do not divide evenly onto a {extent}-wide "
                        f"feature map of a {self._padded[axis]}-wide input: pad items to "
                        "multiples of the stride"
                    )
            rows = self._on_device[:, 0] * h // self._padded[0]
            cols = self._on_device[:, 1] * w // self._padded[1]
            device = value.device
            keep_rows = torch.arange(h, device=device)[None, :] < rows[:, None]
            keep_cols = torch.arange(w, device=device)[None, :] < cols[:, None]
            both = keep_rows[:, None, :, None] & keep_cols[:, None, None, :]
            self._cache[key] = both.to(value.dtype)
        return self._cache[key]


class OnnxModule(torch.nn.Module):
    """Evaluates a single-input, single-output ONNX graph node by node with torch functions.

    Values live in two places, as in onnxruntime: the data (the input, everything computed
    from it, the weights) on the input's device, and shape arithmetic (`Shape` and what is
    computed from shapes and constants alone) on the host, where parameters such as a
    `Reshape` target are read without a device round trip. Operators whose inputs are all
    constants are evaluated once, at load.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        graph = onnx.load(str(path)).graph
        self._host: dict[str, torch.Tensor] = {}
        self._buffers_by_name: dict[str, str] = {}
        steps: list[_Parsed] = []
        for tensor in graph.initializer:
            self._host[tensor.name] = torch.from_numpy(numpy_helper.to_array(tensor).copy())
        host_values: set[str] = set()
        for node in graph.node:
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            if node.op_type == "Constant":
                array = numpy_helper.to_array(attrs["value"]).copy()
                self._host[node.output[0]] = torch.from_numpy(array)
                continue
            if node.op_type not in OPS:
                raise NotImplementedError(f"{path.name}: ONNX operator {node.op_type}")
            op = OPS[node.op_type](attrs)
            names = [name for name in node.input if name]
            if all(name in self._host for name in names):
                self._host[node.output[0]] = op(*(self._host[n] if n else None for n in node.input))
                continue
            on_host = node.op_type == "Shape" or all(
                name in self._host or name in host_values for name in names
            )
            inputs = tuple(
                self._input(path, node.op_type, position, name, host_values, on_host)
                if name
                else None
                for position, name in enumerate(node.input)
            )
            mixing = MIXING.get(node.op_type)
            if node.op_type == "Conv" and not any(attrs.get("pads", ())):
                weight = self._host.get(node.input[1])
                if weight is not None and tuple(weight.shape[2:]) == (1, 1):
                    mixing = None  # a 1x1 convolution mixes channels, not positions
            op_type = node.op_type
            if op_type == "Concat" and attrs["axis"] not in (1, -3):
                op_type = "Concat of positions"  # joins feature maps side by side: no padding
            steps.append((op, inputs, node.output[0], op_type, mixing))
            if on_host:
                host_values.add(node.output[0])
        self._input_name = graph.input[0].name
        self._output = graph.output[0].name
        self.paddable = all(
            op_type in POSITIONWISE or op_type in MIXING for *_, op_type, _ in steps
        )
        self._steps = self._plan(steps)

    def _plan(self, steps: list[_Parsed]) -> list[_Step]:
        last_read: dict[str, int] = {}
        for index, (_, inputs, output, _, _) in enumerate(steps):
            last_read.setdefault(output, index)
            for source in inputs:
                if source is not None and source.source in ("value", "to_device"):
                    last_read[source.name] = index
        dying: dict[int, list[str]] = {}
        for name, index in last_read.items():
            if name != self._output:
                dying.setdefault(index, []).append(name)
        return [
            _Step(op, inputs, output, mixing, tuple(dying.get(index, ())))
            for index, (op, inputs, output, _, mixing) in enumerate(steps)
        ]

    def _input(
        self,
        path: Path,
        op_type: str,
        position: int,
        name: str,
        host_values: set[str],
        on_host: bool,
    ) -> _Input:
        parameter = position in PARAMETERS.get(op_type, ())
        if name in self._host:
            if on_host or parameter:
                return _Input(name, "host")
            if name not in self._buffers_by_name:
                key = f"constant_{len(self._buffers_by_name)}"
                self.register_buffer(key, self._host[name].clone(), persistent=False)
                self._buffers_by_name[name] = key
            return _Input(name, "buffer")
        if parameter and name not in host_values:
            raise NotImplementedError(f"{path.name}: {op_type} parameter {name} computed from data")
        if name in host_values and not (on_host or parameter):
            return _Input(name, "to_device")
        return _Input(name, "value")

    def _read(
        self,
        source: _Input | None,
        values: dict[str, torch.Tensor],
        constants: dict[str, torch.Tensor],
        device: torch.device,
    ) -> torch.Tensor | None:
        if source is None:
            return None
        if source.source == "value":
            return values[source.name]
        if source.source == "host":
            return self._host[source.name]
        if source.source == "buffer":
            return constants[source.name]
        return values[source.name].to(device)

    def forward(
        self, x: torch.Tensor, sizes: Sequence[tuple[int, int]] | None = None
    ) -> torch.Tensor:
        """The graph's output for `x`. `sizes` gives each item's own (height, width) when
        `x` holds items padded at the bottom and right to a common shape: every item then
        gets what it would get alone (to float rounding), padding cropped by the caller."""
        return self._evaluate(x, sizes, self._device_constants(), None)

    @property
    def dtype(self) -> torch.dtype:
        """The floating type of the weights, which the input must have too."""
        return next(b.dtype for b in self.buffers() if b.is_floating_point())

    def peak_bytes(self, x: torch.Tensor) -> int:
        """The most bytes of computed tensors (the input included) a forward pass on `x`
        holds at once. On the meta device this costs no memory and no arithmetic."""
        live: list[int] = []
        with torch.inference_mode():
            self._evaluate(x, None, self._device_constants(), live)
        return max(live)

    def _device_constants(self) -> dict[str, torch.Tensor]:
        return {name: getattr(self, key) for name, key in self._buffers_by_name.items()}

    def _evaluate(
        self,
        x: torch.Tensor,
        sizes: Sequence[tuple[int, int]] | None,
        constants: dict[str, torch.Tensor],
        live: list[int] | None,
    ) -> torch.Tensor:
        masks = None
        if sizes is not None and any(tuple(size) != tuple(x.shape[2:]) for size in sizes):
            if not self.paddable:
                raise ValueError("this graph mixes positions a mask cannot separate: no padding")
            masks = _Masks(x, sizes)
        values: dict[str, torch.Tensor] = {self._input_name: x}
        for step in self._steps:
            args = [self._read(i, values, constants, x.device) for i in step.inputs]
            first = args[0]  # a mixing operator's data: never an omitted input
            if masks is not None and first is not None and step.mixing == "input":
                args[0] = first * masks(first)
            if masks is not None and first is not None and step.mixing == "mean":
                mask = masks(first)
                total = (first * mask).sum(dim=(2, 3), keepdim=True)
                values[step.output] = total / mask.sum(dim=(2, 3), keepdim=True)
            else:
                values[step.output] = step.op(*args)
            if live is not None:
                live.append(sum(v.nbytes for v in values.values() if v.device == x.device))
            for name in step.dead:
                del values[name]
        return values[self._output]
