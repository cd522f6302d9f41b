"""`python -m servicekit.probe PORT [--path /readyz]`: exit 0 if 127.0.0.1:PORT answers
the path with 200, 1 if it answers anything else or nothing, 2 on a bad command line.

Every compose healthcheck runs it (GET /readyz by default: the service can serve; /healthz:
the process is alive). Standard library only, so it needs no curl in the image and starts
fast: 0.07-0.19 s a run on a loaded 2-CPU machine, where importing a service's app alone
takes 0.5-1 s.
"""

import argparse
import http.client
import sys

TIMEOUT_SECONDS = 2.0


def check(
    port: int, path: str = "/readyz", host: str = "127.0.0.1", timeout: float = TIMEOUT_SECONDS
) -> bool:
    """Whether GET `path` on host:port answers 200 within `timeout` seconds."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", path)
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m servicekit.probe", description="Exit 0 if the service answers 200."
    )
    parser.add_argument("port", type=int, help="TCP port on the host")
    parser.add_argument("--path", default="/readyz", help="what to GET (default: /readyz)")
    parser.add_argument("--host", default="127.0.0.1", help="default: 127.0.0.1")
    parser.add_argument(
        "--timeout", type=float, default=TIMEOUT_SECONDS, help="seconds (default: 2)"
    )
    return parser


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on a bad command line, 0 on --help
        return int(exit_.code or 0)
    if not args.path.startswith("/"):
        print("servicekit.probe: --path must start with /", file=sys.stderr)
        return 2
    return 0 if check(args.port, args.path, args.host, args.timeout) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
