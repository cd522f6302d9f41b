"""The k6 commands the READMEs print run as written: `uv run k6 run ...` from the
repository's root (k6 is in .venv only), each naming a script and settings that load, and
sent to the ports the profile of the example publishes."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from servelab.bench.load.k6 import k6_binary
from servelab.project import Project
from servelab.stack.compose import config_text

ROOT = Project.find(Path(__file__).parent).root
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


LOOPBACK_PORT = re.compile(r"(?:localhost|127\.0\.0\.1):(\d+)")
PROFILE = re.compile(r"--profile[ =](\S+)")


@pytest.fixture(scope="module")
def publishers() -> dict[int, set[str]]:
    """Each port compose.yaml publishes, with the profiles of the services that publish it."""
    document = yaml.safe_load(config_text(ROOT, ["*"], {}))
    found: dict[int, set[str]] = {}
    for spec in document["services"].values():
        for port in spec.get("ports") or []:
            found.setdefault(int(port["published"]), set()).update(spec.get("profiles") or [])
    return found


def _blocks(readme: str) -> list[list[str]]:
    text = (ROOT / readme).read_text().replace("\\\n", " ")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    return [block.splitlines() for block in blocks]


@pytest.mark.parametrize("readme", READMES)
def test_the_ports_an_example_names_are_its_profiles(
    readme: str, publishers: dict[int, set[str]]
) -> None:
    """A line naming a profile names ports that profile publishes; the other lines of a block
    name ports one profile publishes together (a gunicorn example says gunicorn's ports)."""
    for block in _blocks(readme):
        shared: set[str] | None = None
        for line in block:
            ports = [int(port) for port in LOOPBACK_PORT.findall(line)]
            for port in ports:
                assert port in publishers, f"{readme}: no service publishes {port}: {line}"
            if named := set(PROFILE.findall(line)):
                for port in ports:
                    assert publishers[port] & named, f"{readme}: {port} is not {named}'s: {line}"
            for port in ports if not named else []:
                shared = set(publishers[port]) if shared is None else shared & publishers[port]
                assert shared, f"{readme}: no one profile publishes the ports of: {line}"
