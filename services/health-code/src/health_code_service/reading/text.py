"""Text detection and recognition around the networks: regions in, recognised lines out.

`page` prepares an image's detector inputs; `read_lines` sends them to the detector, finds
the boxes, crops and sends the lines to the recogniser, and decodes them. Only the two
network calls leave the calling thread (`network.Network`); the rest is numpy/OpenCV work
done where it is called.

Every input to the networks depends only on its own image (detection inputs are resized to a
size derived from the region; recognition crops are padded to a fixed width bucket), so a
batch of any composition gives each image the same lines as a call of its own.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from health_code_service.engines.models import characters
from health_code_service.reading.stages import CROPS, DETECTION, PARSING, RECOGNITION, stage
from health_code_service.serving.network import Network

REC_HEIGHT = 48
REC_BUCKET = 80
REC_MIN_WIDTH = 80
REC_MAX_WIDTH = 1600
DET_MULTIPLE = 32
DET_THRESHOLD = 0.3
BOX_THRESHOLD = 0.5
UNCLIP_RATIO = 1.6
MIN_BOX_SIDE = 3
# A screen holds a few dozen lines at most; an image of dense text (or noise) is not read
# beyond this many boxes per region, the largest first, so its cost stays bounded.
MAX_BOXES = 60
# The recogniser confuses a mask glyph of a name (`*`, the full-width `＊`) with 水: on
# generated screens the mask classes held 0.30 of a frame that 水 won with 0.52, while a
# real 水 (丽水市, 李水生, drawn in both fonts) leaves them under 1e-6. A frame where the
# mask classes hold this share is read as a mask.
MASK_CHARACTERS = "*＊"
MASK_SHARE = 0.2


@dataclass(frozen=True)
class Region:
    """Where to look for text in an image (x0, y0, x1, y1), and the scale to detect it at."""

    x0: int
    y0: int
    x1: int
    y1: int
    scale: float


@dataclass(frozen=True)
class Line:
    text: str
    score: float
    box: np.ndarray  # 4 x 2 float32 corners in image coordinates, clockwise from top-left

    @property
    def top(self) -> float:
        return float(self.box[:, 1].min())

    @property
    def bottom(self) -> float:
        return float(self.box[:, 1].max())

    @property
    def left(self) -> float:
        return float(self.box[:, 0].min())


@dataclass(frozen=True)
class Page:
    """An image, where to look for text in it, and the detector's input for each place."""

    image: np.ndarray
    regions: tuple[Region, ...]
    inputs: tuple[np.ndarray, ...]


def page(image: np.ndarray, regions: Sequence[Region]) -> Page:
    return Page(image, tuple(regions), tuple(_det_input(image, region) for region in regions))


def read_lines(network: Network, pages: Sequence[Page]) -> list[list[Line]]:
    """Detect and recognise text in every region of every page; lines per page, top-down."""
    places = [
        (index, page.image, region, tensor)
        for index, page in enumerate(pages)
        for region, tensor in zip(page.regions, page.inputs, strict=True)
    ]
    with stage(DETECTION):
        maps = network.detect([tensor for *_, tensor in places])
    boxes: list[tuple[int, np.ndarray]] = []
    crops: list[np.ndarray] = []
    with stage(CROPS):
        for (index, image, region, _), prob in zip(places, maps, strict=True):
            for box in _boxes(prob, image, region):
                boxes.append((index, box))
                crops.append(_rec_input(_crop(image, box)))
    with stage(RECOGNITION):
        probabilities = network.recognize(crops)
    with stage(PARSING):
        texts = [_ctc_decode(probs) for probs in probabilities]
        lines: list[list[Line]] = [[] for _ in pages]
        for (index, box), (text, score) in zip(boxes, texts, strict=True):
            if text.strip():
                lines[index].append(Line(text, score, box))
        for found in lines:
            found.sort(key=lambda line: (line.top, line.left))
    return lines


def _det_input(image: np.ndarray, region: Region) -> np.ndarray:
    patch = image[region.y0 : region.y1, region.x0 : region.x1]
    height = max(DET_MULTIPLE, round(patch.shape[0] * region.scale / DET_MULTIPLE) * DET_MULTIPLE)
    width = max(DET_MULTIPLE, round(patch.shape[1] * region.scale / DET_MULTIPLE) * DET_MULTIPLE)
    resized = cv2.resize(patch, (width, height), interpolation=cv2.INTER_AREA)
    return _normalise(resized)


def _normalise(rgb: np.ndarray) -> np.ndarray:
    """RGB uint8 HxWx3 -> the networks' float32 3xHxW BGR in [-1, 1]."""
    bgr = rgb[:, :, ::-1].astype(np.float32)
    return np.ascontiguousarray((bgr / 127.5 - 1.0).transpose(2, 0, 1))


def _boxes(prob: np.ndarray, image: np.ndarray, region: Region) -> list[np.ndarray]:
    """DB post-processing: threshold, dilate, one rotated rectangle per blob, grown back out."""
    mask = cv2.dilate((prob > DET_THRESHOLD).astype(np.uint8), np.ones((2, 2), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    sx = (region.x1 - region.x0) / prob.shape[1]
    sy = (region.y1 - region.y0) / prob.shape[0]
    boxes = []
    for contour in contours:
        (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
        if min(w, h) < MIN_BOX_SIDE:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        if (
            float(prob[y : y + bh, x : x + bw][mask[y : y + bh, x : x + bw] > 0].mean())
            < BOX_THRESHOLD
        ):
            continue
        grow = w * h * UNCLIP_RATIO / (2 * (w + h))
        # Along the line, also half its height at each end: a small leading or
        # trailing mark (the `*` of a masked name) scores low in the map and falls outside.
        reach = min(w, h)
        along = (reach, 0.0) if w >= h else (0.0, reach)
        rect = ((cx, cy), (w + 2 * grow + along[0], h + 2 * grow + along[1]), angle)
        corners = _order(cv2.boxPoints(rect))
        corners[:, 0] = corners[:, 0] * sx + region.x0
        corners[:, 1] = corners[:, 1] * sy + region.y0
        corners[:, 0] = corners[:, 0].clip(0, image.shape[1] - 1)
        corners[:, 1] = corners[:, 1].clip(0, image.shape[0] - 1)
        boxes.append(corners)
    if len(boxes) > MAX_BOXES:
        boxes.sort(key=lambda box: -cv2.contourArea(box))
        boxes = boxes[:MAX_BOXES]
    boxes.sort(key=lambda box: (round(float(box[:, 1].min())), float(box[:, 0].min())))
    return boxes


def _order(points: np.ndarray) -> np.ndarray:
    """Corners clockwise from top-left."""
    by_x = points[np.argsort(points[:, 0])]
    left = by_x[:2][np.argsort(by_x[:2, 1])]
    right = by_x[2:][np.argsort(by_x[2:, 1])]
    return np.array([left[0], right[0], right[1], left[1]], dtype=np.float32)


def _crop(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    width = round(max(np.linalg.norm(box[0] - box[1]), np.linalg.norm(box[2] - box[3])))
    height = round(max(np.linalg.norm(box[0] - box[3]), np.linalg.norm(box[1] - box[2])))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(box, target)
    return cv2.warpPerspective(
        image,
        matrix,
        (max(width, 1), max(height, 1)),
        flags=cv2.INTER_CUBIC,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _rec_input(crop: np.ndarray) -> np.ndarray:
    height, width = crop.shape[:2]
    resized_width = min(REC_MAX_WIDTH, max(1, math.ceil(REC_HEIGHT * width / height)))
    bucket = max(REC_MIN_WIDTH, math.ceil(resized_width / REC_BUCKET) * REC_BUCKET)
    resized = cv2.resize(crop, (resized_width, REC_HEIGHT), interpolation=cv2.INTER_LINEAR)
    tensor = np.zeros((3, REC_HEIGHT, bucket), dtype=np.float32)
    tensor[:, :, :resized_width] = _normalise(resized)
    return tensor


@cache
def _mask_classes() -> np.ndarray:
    return np.array([characters().index(char) for char in MASK_CHARACTERS])


def _ctc_decode(probs: np.ndarray) -> tuple[str, float]:
    table = characters()
    best = probs.argmax(axis=1)
    masks = _mask_classes()
    share = probs[:, masks].sum(axis=1)
    best = np.where((share >= MASK_SHARE) & (best != 0), masks[0], best)
    keep = best != 0
    keep[1:] &= best[1:] != best[:-1]
    if not keep.any():
        return "", 0.0
    text = "".join(table[i] for i in best[keep])
    return text, float(probs.max(axis=1)[keep].mean())
