"""`python -m compute_service.healthcheck PORT`: exit 0 if the compute server on
127.0.0.1:PORT answers a Thrift ping within 2 s."""

from __future__ import annotations

import sys

from compute_contract import TException, connect

TIMEOUT_S = 2.0


def check(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with connect(host, port, timeout_s=TIMEOUT_S) as connection:
            return bool(connection.client.ping() == "pong")
    except (TException, OSError):
        return False


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m compute_service.healthcheck PORT", file=sys.stderr)
        return 2
    return 0 if check(int(argv[0])) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
