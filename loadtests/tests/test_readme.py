"""The k6 commands the READMEs print run as written: `uv run k6 run ...` from the
repository's root (k6 is in .venv only), each naming a script and settings that load."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from servelab.bench.load.k6 import k6_binary
from servelab.project import find_project_dir

ROOT = find_project_dir(Path(__file__).parent)
READMES = ["README.md", "loadtests/README.md"]
COMMAND = re.compile(r"^(?:[A-Z_]+=\S+ )*(?:uv run )?k6 run ", re.MULTILINE)


def _commands(readme: str) -> list[str]:
    """Every k6 command line of the README's code blocks, continuation lines joined."""
    text = (ROOT / readme).read_text()
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    joined = "\n".join(blocks).replace("\\\n", " ")
    return [line for line in joined.splitlines() if COMMAND.match(line)]


CASES = [
    pytest.param(readme, command, id=f"{readme}:{index}")
    for readme in READMES
    for index, command in enumerate(_commands(readme), 1)
]


def test_the_readmes_print_k6_commands() -> None:
    for readme in READMES:
        assert len(_commands(readme)) >= 5, readme


@pytest.mark.parametrize(("readme", "command"), CASES)
def test_each_k6_command_runs_k6_through_uv_and_loads(readme: str, command: str) -> None:
    argv = shlex.split(command, comments=True)
    assert argv[:4] == ["uv", "run", "k6", "run"], f"{readme}: {command}"
    # `k6 inspect` loads the script with the same settings without sending a request.
    inspect = [k6_binary(), "inspect", *argv[4:]]
    result = subprocess.run(inspect, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{readme}: {command}\n{result.stdout}{result.stderr}"
