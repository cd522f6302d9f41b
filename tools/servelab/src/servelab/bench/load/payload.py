"""The benchmark payload: the same bytes loadtests/lib/payload.js generates.

A 16 KiB block of xorshift32 words (fixed seed, little-endian) repeated to the size
asked for. The runner writes it to a file that k6 sends (PAYLOAD_FILE, cheaper than
generating it in every VU) and that the reference nginx serves.
"""

from __future__ import annotations

import struct
from pathlib import Path

SEED = 0x2545F491
BLOCK_SIZE = 16 * 1024
_MASK = 0xFFFFFFFF


def _block(seed: int) -> bytes:
    words = []
    x = seed
    for _ in range(BLOCK_SIZE // 4):
        x ^= (x << 13) & _MASK
        x ^= x >> 17
        x ^= (x << 5) & _MASK
        words.append(x)
    return struct.pack(f"<{len(words)}I", *words)


def generate_payload(size: int, seed: int = SEED) -> bytes:
    block = _block(seed)
    return (block * (size // BLOCK_SIZE + 1))[:size]


def write_payload(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(generate_payload(size))
    return path
