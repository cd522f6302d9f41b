"""`python -m health_code_service.healthcheck PORT`: exit 0 if 127.0.0.1:PORT/healthz
answers 200.

Standard library only, so the container healthcheck starts fast and needs nothing else.
"""

import http.client
import sys

TIMEOUT_SECONDS = 2.0


def check(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_SECONDS)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m health_code_service.healthcheck PORT", file=sys.stderr)
        return 2
    return 0 if check(int(argv[0])) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
