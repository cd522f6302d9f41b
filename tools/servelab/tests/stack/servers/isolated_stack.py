"""The entry editor's uwsgi stack where nothing answers on 127.0.0.1:3306 or :6379.

test_isolated runs this inside an empty network namespace (loopback only). It starts the
stack with the runner, asks an endpoint that reads the database through the cache, and
prints what it saw as one JSON line: the servers the stack used, the answers, the keys in
the cache and every process group that served it, for the test to check they are gone.
"""

from __future__ import annotations

import json
import sys
from urllib.parse import quote

import httpx2
import redis

from servelab.stack import Stack
from servelab.stack.attached import Address, accepts_connections
from servelab.stack.servers import servers

DATABASE = "ee_isolated"
ENV = {"EE_DATABASE": DATABASE, "CORPUS_LIMIT": "300", "WEB_CONCURRENCY": "1", "WEB_THREADS": "2"}
PMI = f"/corpus/statistics/get_pmi/?word={quote('水')}"


def main() -> None:
    report: dict[str, object] = {
        "default_answers": [
            accepts_connections(Address("127.0.0.1", port)) for port in (3306, 6379)
        ]
    }
    with Stack("entryeditor-uwsgi", only=["entryeditor-nginx"], env=ENV, log=sys.stderr) as stack:
        report["leases"] = {
            name: {"private": lease.private, "address": str(lease.address)}
            for name, lease in stack.leases.items()
        }
        report["groups"] = [*stack.process_groups().values(), *servers().process_groups().values()]
        with httpx2.Client(base_url=stack.url("entryeditor-nginx"), timeout=30) as client:
            ready = client.get("/readyz")
            pmi = client.get(PMI)
            entry = client.get("/entryeditor/entryeditor/47")
        report["answers"] = {
            "readyz": [ready.status_code, ready.json()],
            "pmi": [pmi.status_code, pmi.headers.get("X-Cache")],
            "entry": [entry.status_code, entry.json().get("id")],
        }
        cache = stack.attached["entryeditor-redis"]
        with redis.Redis(host=cache.host, port=cache.port) as client:
            report["cache_keys"] = len(list(client.scan_iter(f"{DATABASE}:*")))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
