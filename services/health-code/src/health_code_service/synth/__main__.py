"""python -m health_code_service.synth --usage health-code --seed 7 --out health.jpg"""

import argparse
import base64
import json
from pathlib import Path

from health_code_service.synth import SPLITS, generate, layouts_of
from health_code_service.usages import Usage


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m health_code_service.synth", description=__doc__
    )
    parser.add_argument("--usage", type=Usage, choices=list(Usage), default=Usage.HEALTH_CODE)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--split",
        choices=SPLITS,
        default="tune",
        help="tune: the layouts and font the analyzer was developed on; held-out: others",
    )
    parser.add_argument(
        "--layout", help="one of the split's layouts of the usage (default: drawn from the seed)"
    )
    parser.add_argument("--colour", choices=["green", "yellow", "red"])
    parser.add_argument("--out", type=Path, required=True, help="where to write the JPEG")
    parser.add_argument("--truth", type=Path, help="also write the ground truth as JSON here")
    parser.add_argument(
        "--json-body", type=Path, help='also write the request body {"base64": "..."} here'
    )
    args = parser.parse_args(argv)
    layouts = sorted(layouts_of(args.usage, args.split))
    if args.layout and args.layout not in layouts:
        parser.error(f"--layout must be one of {layouts} for {args.usage} ({args.split} split)")
    jpeg, truth = generate(
        args.usage, args.seed, split=args.split, layout=args.layout, colour=args.colour
    )
    args.out.write_bytes(jpeg)
    if args.truth:
        args.truth.write_text(
            json.dumps(truth, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
    if args.json_body:
        args.json_body.write_text(
            json.dumps({"base64": base64.b64encode(jpeg).decode()}), encoding="ascii"
        )


if __name__ == "__main__":
    main()
