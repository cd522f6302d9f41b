"""The entry editor's stack on a machine whose MariaDB and Redis do not answer: in an empty
network namespace (loopback only), the runner starts private ones, the app answers from
them, and nothing is left running afterwards."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from servelab.stack.groups import members

pytestmark = pytest.mark.stack

SCRIPT = Path(__file__).with_name("isolated_stack.py")
# Inside the namespace: loopback up, then the script with this interpreter.
SHELL = 'ip link set lo up && exec "$0" "$1"'


@pytest.fixture
def isolated() -> list[str]:
    """The command prefix that runs a command in a new, empty network namespace."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("a network namespace of its own needs root, unshare and ip")
    return ["unshare", "--net", "sh", "-c", SHELL]


def test_the_entry_editor_runs_on_private_servers_where_the_machine_has_none(
    isolated: list[str],
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("SERVELAB_MARIADB", "SERVELAB_REDIS")}
    result = subprocess.run(
        [*isolated, sys.executable, str(SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["default_answers"] == [False, False]
    leases = report["leases"]
    assert sorted(leases) == ["entryeditor-mariadb", "entryeditor-redis"]
    assert all(lease["private"] for lease in leases.values())
    assert "starting a private mariadbd" in result.stderr
    assert "starting a private redis-server" in result.stderr

    answers = report["answers"]
    assert answers["readyz"][0] == 200, answers
    assert answers["readyz"][1]["cache"]["backend"] == "redis"
    assert answers["pmi"][0] == 200
    assert answers["pmi"][1] is not None
    assert answers["entry"] == [200, 47]
    assert report["cache_keys"] > 0

    # Every group the stack and its private servers ran is gone: the namespace shares this
    # process's process ids.
    assert len(report["groups"]) >= 5
    left = {pgid: members(pgid) for pgid in report["groups"]}
    assert [pgid for pgid, alive in left.items() if alive] == [], left
