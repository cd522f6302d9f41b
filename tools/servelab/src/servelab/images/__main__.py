"""`python -m servelab.images`: `servelab images` without importing the rest of the CLI
(about a second of CPU for matplotlib and the benchmark runner), for the bootstrap, which
runs on every make."""

import argparse
import sys

from servelab.images import cli


def main() -> int:
    parser = argparse.ArgumentParser(prog="servelab images", description=cli.HELP)
    cli.configure(parser)
    args = parser.parse_args()
    return int(args.handler(args))


sys.exit(main())
