"""The project a command runs in: the repository's layout, the SERVELAB_* settings and the
noise the verdicts allow for, in one object that each command builds once (`Project.find()`)
and passes down.

Every path the commands read or write under the project directory (the one holding
compose.yaml) is named here once, and every SERVELAB_* environment variable is read here, when
the Project is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

COMPOSE_FILE = "compose.yaml"
# k6 scripts, relative to the project directory (k6 runs there).
LOADTESTS = Path("loadtests")
PORT_SHARE = "SERVELAB_PORT_SHARE"


class ProjectError(RuntimeError):
    """No project directory: compose.yaml is not at or above the starting directory."""


class Settings(BaseSettings):
    """Every SERVELAB_* environment variable, as the environment holds it when read."""

    model_config = SettingsConfigDict(env_prefix="SERVELAB_", frozen=True, extra="ignore")

    # Where a run's reports go instead of the committed reference (`make bench` sets it to
    # results/<machine>); relative to the project directory.
    results: str = ""
    # The user's MariaDB and Redis, or `private` (servelab.stack.servers.settings checks them).
    mariadb: str = ""
    redis: str = ""
    # `i/n`: this process draws the ports p with p % n == i (servelab.stack.ports), which
    # servelab's pytest plugin sets for each pytest-xdist worker.
    port_share: Annotated[tuple[int, int], NoDecode] = (0, 1)
    # A folder of `docker-compose config` outputs made ahead of time (servelab.stack.compose).
    compose_resolved: Path | None = None
    # What survives between runs (the private Docker engine's data root, images' stamps).
    cache: Path | None = None

    @field_validator("port_share", mode="before")
    @classmethod
    def _share(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        return port_share(value)

    @field_validator("compose_resolved", "cache", mode="before")
    @classmethod
    def _unset(cls, value: object) -> object:
        return value or None


def port_share(value: str) -> tuple[int, int]:
    """(i, n) of SERVELAB_PORT_SHARE's `i/n`; (0, 1), every port, where it is empty."""
    if not value:
        return 0, 1
    index, _, count = value.partition("/")
    try:
        share = int(index), int(count)
    except ValueError:
        share = -1, 0
    if not 0 <= share[0] < share[1]:
        raise ValueError(f"{PORT_SHARE}={value!r}: expected i/n with 0 <= i < n")
    return share


class Noise(BaseModel):
    """How far a value measured once may move on a repeat run (`once`, ±10%: what repeat
    runs of one cell move by on the 2-CPU virtual machines the committed runs come from),
    and so a ratio of two such values, either side of which may have moved (`ratio`, ±21%).
    Only the GPU machine's report calls a ratio by it, as its run measures each stack once;
    docs/findings.md assumes no band and gives no verdict from a value measured once."""

    model_config = ConfigDict(frozen=True)

    once: float = 0.10

    @property
    def ratio(self) -> float:
        return (1 + self.once) ** 2 - 1


@dataclass(frozen=True)
class Project:
    """The project directory `root` (holding compose.yaml), the settings read when the
    Project was built, and the noise the verdicts allow for."""

    root: Path
    settings: Settings = field(default_factory=Settings)
    noise: Noise = field(default_factory=Noise)

    @classmethod
    def find(cls, start: Path | None = None) -> Project:
        """The project of the nearest directory at or above `start` (default: the working
        one) holding compose.yaml, with the settings the environment holds now."""
        here = (start or Path.cwd()).resolve()
        for directory in (here, *here.parents):
            if (directory / COMPOSE_FILE).is_file():
                return cls(directory)
        raise ProjectError(f"no {COMPOSE_FILE} in {here} or any parent directory")

    @property
    def loadtests(self) -> Path:
        return self.root / LOADTESTS

    @property
    def families(self) -> Path:
        """The family specs: loadtests/families/<family>.toml, the notes beside each."""
        return self.root / LOADTESTS / "families"

    @property
    def reference(self) -> Path:
        """The committed reference: docs/results."""
        return self.root / "docs" / "results"

    @property
    def results(self) -> Path:
        """Reports, their charts and the saved results they are rendered from: the folder
        SERVELAB_RESULTS names, else the committed reference."""
        chosen = self.settings.results
        return self.root / chosen if chosen else self.reference

    def work(self, *parts: str) -> Path:
        """Scratch files of a run (k6 summaries, logs, session records), never committed."""
        return self.root.joinpath(".servelab", *parts)
