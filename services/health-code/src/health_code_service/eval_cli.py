"""`health-code-eval`: accuracy per field of the recognition on generated screenshots."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from health_code_service.evaluate import evaluate, render
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
    root.add_argument("--misses", action="store_true", help="also list every wrong field")
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    settings = Settings(ocr_engine=args.engine, ocr_device=args.device)
    usages = [Usage(usage) for usage in args.usage] if args.usage else list(Usage)
    scores = evaluate(settings, args.count, args.seed, usages)
    print(render(scores, args.engine, misses=args.misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
