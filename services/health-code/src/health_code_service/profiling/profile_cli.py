"""`health-code-profile`: where one request's CPU time goes, stage by stage."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from health_code_service.synth import generate
from health_code_service.usages import Usage


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="health-code-profile",
        description="CPU time of each stage of a request (decode, QR code, detection input, "
        "the two networks, crops, parsing, the HTTP layer), sent one at a time to the "
        "service's app in this process: median and range over the requests.",
    )
    root.add_argument("images", nargs="*", type=Path, help="JPEG or PNG screenshots to send")
    root.add_argument(
        "--usage",
        choices=[usage.value for usage in Usage],
        default=Usage.HEALTH_CODE.value,
        help="the usage every image is sent to (default %(default)s)",
    )
    root.add_argument(
        "--generated",
        type=int,
        default=0,
        metavar="N",
        help="also N generated screenshots of the usage (seeds 0..N-1)",
    )
    root.add_argument("--repeat", type=int, default=20, help="requests per image (default 20)")
    root.add_argument(
        "--body",
        choices=["json", "raw"],
        default="json",
        help='json: the write-up\'s {"base64": ...} body (default); raw: the JPEG itself',
    )
    root.add_argument("--engine", choices=["onnxruntime", "torch", "paddle"], default="onnxruntime")
    root.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    root.add_argument(
        "--half-precision", action="store_true", help="torch on CUDA: a float16 recogniser"
    )
    root.add_argument("--out", type=Path, metavar="FILE", help="also write the profile as JSON")
    return root


def _machine() -> dict[str, object]:
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cpus": len(os.sched_getaffinity(0)), "cpu_model": model}


@contextmanager
def _no_access_log() -> Iterator[None]:
    """As the benchmarks run the service, no access log line per request (unless
    ACCESS_LOG says otherwise): the app reads the environment when it is built, and the
    environment is given back afterwards, so a caller in the same process keeps its own."""
    before = os.environ.get("ACCESS_LOG")
    os.environ.setdefault("ACCESS_LOG", "0")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("ACCESS_LOG", None)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.repeat < 1 or args.generated < 0:
        print("health-code-profile: --repeat must be at least 1", file=sys.stderr)
        return 2
    from health_code_service.profiling.profile import (
        ProfileError,
        Shot,
        as_json,
        profile,
        render,
    )
    from health_code_service.settings import Settings

    usage = Usage(args.usage)
    try:
        shots = [Shot(path.name, usage, path.read_bytes()) for path in args.images]
    except OSError as error:
        print(f"health-code-profile: {error}", file=sys.stderr)
        return 2
    shots += [
        Shot(f"generated {usage} {seed}", usage, generate(usage, seed)[0])
        for seed in range(args.generated)
    ]
    if not shots:
        print("health-code-profile: name an image or ask for --generated N", file=sys.stderr)
        return 2
    settings = Settings(
        ocr_engine=args.engine,
        ocr_device=args.device,
        ocr_half_precision=args.half_precision,
        ocr_threads=1,
        analyze_mode="threadpool",
    )
    try:
        with _no_access_log():
            samples = profile(settings, shots, args.repeat, args.body)
    except ProfileError as error:
        print(f"health-code-profile: {error}", file=sys.stderr)
        return 1
    rows = as_json(samples)
    about = (
        f"engine {args.engine} on {args.device}, one engine thread, ANALYZE_MODE=threadpool, "
        f"{args.body} body; {len(shots)} image(s) x {args.repeat} requests"
    )
    print(about)
    print(render(rows))
    if args.out is not None:
        record = {
            "command": " ".join(["health-code-profile", *(argv or sys.argv[1:])]),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": _machine(),
            "engine": args.engine,
            "device": args.device,
            "body": args.body,
            "images": [shot.name for shot in shots],
            "repeat": args.repeat,
            "stages": rows,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
