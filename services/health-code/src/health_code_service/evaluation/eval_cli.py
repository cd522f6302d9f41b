"""`health-code-eval`: accuracy per field of the recognition on generated screenshots."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from health_code_service.evaluation.evaluate import (
    Sample,
    as_json,
    evaluate,
    generated,
    render,
    save_samples,
    saved,
)
from health_code_service.settings import Settings
from health_code_service.usages import Usage


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="health-code-eval",
        description="Accuracy per field of health-code recognition on generated screenshots.",
    )
    root.add_argument("--count", type=int, default=100, help="images per usage (default 100)")
    root.add_argument("--seed", type=int, default=0, help="first generator seed (default 0)")
    root.add_argument("--engine", choices=["onnxruntime", "torch", "paddle"], default="onnxruntime")
    root.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (torch, paddle)")
    root.add_argument(
        "--usage",
        action="append",
        choices=[usage.value for usage in Usage],
        help="only this usage (repeatable; default: all)",
    )
    root.add_argument(
        "--half-precision",
        action="store_true",
        help="torch on CUDA: the recogniser in float16 (OCR_HALF_PRECISION)",
    )
    root.add_argument("--misses", action="store_true", help="also list every wrong field")
    root.add_argument(
        "--images",
        type=Path,
        metavar="DIR",
        help="score the screenshots saved in DIR (--save) instead of generating them",
    )
    root.add_argument(
        "--save",
        type=Path,
        metavar="DIR",
        help="write the generated screenshots and their truth to DIR, and score nothing",
    )
    root.add_argument("--json", action="store_true", help="print the scores as JSON")
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    usages = [Usage(usage) for usage in args.usage] if args.usage else list(Usage)
    if args.save is not None:
        written = save_samples(generated(args.count, args.seed, usages), args.save)
        print(f"{written} screenshots and their truth in {args.save}")
        return 0
    settings = Settings(
        ocr_engine=args.engine,
        ocr_device=args.device,
        ocr_half_precision=args.half_precision,
    )
    samples: Iterable[Sample] = generated(args.count, args.seed, usages)
    if args.images is not None:
        try:
            samples = list(saved(args.images, usages))
        except (OSError, ValueError) as error:
            print(f"health-code-eval: {error}", file=sys.stderr)
            return 2
    scores = evaluate(settings, samples)
    if args.json:
        print(json.dumps(as_json(scores)))
    else:
        print(render(scores, args.engine, misses=args.misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
