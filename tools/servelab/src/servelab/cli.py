"""The `servelab` command line: each command registered by the `add_parser` of the folder
that holds its code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from servelab.audit import cli as audit
from servelab.bench import cli as bench
from servelab.bench.findings import cli as findings
from servelab.images import cli as images
from servelab.interrupts import stop_on_signals
from servelab.layers import cli as layers
from servelab.reliability import cli as reliability
from servelab.reliability.containers import cli as container_drill
from servelab.reliability.faults import cli as probe
from servelab.reliability.fuzz import cli as fuzz
from servelab.reliability.outage import cli as outage
from servelab.reliability.soak import cli as soak
from servelab.stack import cli as stack
from servelab.stack.servers import servers

# In the order `servelab --help` lists them.
COMMANDS = (
    stack,
    bench,
    findings,
    layers,
    outage,
    container_drill,
    probe,
    fuzz,
    soak,
    reliability,
    images,
    audit,
)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="servelab", description="Run compose.yaml profiles locally and benchmark them."
    )
    commands = root.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # A private database or cache server, where a command needs one, serves all its stacks.
    with stop_on_signals(), servers().keeping():
        try:
            return int(args.handler(args))
        except KeyboardInterrupt:
            print("servelab: interrupted; the servers it started are stopped", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
