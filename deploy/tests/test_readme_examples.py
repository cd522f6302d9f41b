"""What the READMEs tell users to send goes where compose.yaml publishes it: every curl, k6,
ab, wrk and hey command of README.md, loadtests/README.md, services/*/README.md and
docs/*.md is sent to a loopback port that a profile it is meant for publishes
(servelab.testing.examples says how an example's profiles are found), a k6 script to a
service the benchmarks send that script to; and README.md's table of every profile's ports
is compose.yaml's, read as `servelab up` reads it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from servelab.project import Project
from servelab.spec.family import families, read_spec
from servelab.spec.matrix import parse_matrix_spec
from servelab.stack.compose import Service, load_project
from servelab.testing.examples import Example, documents, examples
from servelab.testing.markdown import unpadded

# Listed at collection, for the parameters: before any fixture (project_root) exists.
ROOT = Project.find(Path(__file__).parent).root
EXAMPLES = [example for doc in documents(ROOT) for example in examples(ROOT, doc)]
LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]"})
URL = re.compile(r"^(https?)://(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?")
DEFAULT_PORTS = {"http": 80, "https": 443}
# A k6 script's own default, when the command gives no BASE_URL.
DEFAULT_BASE_URL = re.compile(r"__ENV\.BASE_URL \|\| '([^']+)'")
PORTS_HEADER = "| profile | publishes on 127.0.0.1 | starts without a port |"


@pytest.fixture(scope="module")
def services() -> Mapping[str, Service]:
    """Every service of every profile."""
    return load_project(Project(ROOT), ["*"]).services


@pytest.fixture(scope="module")
def sent_to() -> dict[str, set[str]]:
    """The services the benchmarks send each k6 script to (every family's variants)."""
    project = Project(ROOT)
    found: dict[str, set[str]] = {}
    for family in families(project):
        matrix = parse_matrix_spec(read_spec(project, family), family)
        for variant in matrix.variants.values():
            for group in {name for names in variant.endpoints.values() for name in names}:
                for endpoint in matrix.endpoints[group]:
                    found.setdefault(endpoint.script, set()).add(variant.service)
    return found


def _k6_settings(argv: tuple[str, ...]) -> dict[str, str]:
    """What k6's environment holds: the command's assignments and its -e/--env options."""
    settings: dict[str, str] = {}
    words = iter(argv)
    for word in words:
        if word in ("-e", "--env"):
            word = next(words, "")
        elif "=" not in word or word.startswith("-"):
            continue
        key, _, value = word.partition("=")
        settings[key] = value
    return settings


def _script(example: Example) -> str:
    return next(word for word in reversed(example.argv) if word.endswith(".js"))


def _url(example: Example) -> str | None:
    """Where the example sends its requests."""
    if example.tool == "k6":
        base = _k6_settings(example.argv).get("BASE_URL")
        if base is not None:
            return base
        found = DEFAULT_BASE_URL.search((ROOT / _script(example)).read_text())
        return found.group(1) if found else None
    return next((word for word in example.argv if URL.match(word)), None)


def test_the_docs_print_examples_of_every_kind() -> None:
    assert {"curl", "k6", "ab"} <= {example.tool for example in EXAMPLES}
    assert len(EXAMPLES) >= 25


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.doc}:{e.line}")
def test_each_example_goes_to_a_port_its_profile_publishes(
    example: Example, services: Mapping[str, Service], sent_to: dict[str, set[str]]
) -> None:
    url = _url(example)
    assert url is not None, f"{example}: sends to no URL"
    match = URL.match(url)
    assert match is not None, f"{example}: {url} is not an http URL"
    scheme, host, given = match.groups()
    port = int(given) if given else DEFAULT_PORTS[scheme]
    assert host in LOOPBACK, f"{example}: {host} is not this machine"
    assert example.profiles, (
        f"{example}: names no compose profile, nor does its code block, the paragraph "
        "before it or the document's opening"
    )
    known = {profile for service in services.values() for profile in service.profiles}
    assert example.profiles <= known, f"{example}: no profile {sorted(example.profiles - known)}"
    publishing = {
        service.name
        for service in services.values()
        if service.published_port == port and example.profiles & set(service.profiles)
    }
    published = sorted(
        f"{service.name} :{service.published_port}"
        for service in services.values()
        if service.published_port is not None and example.profiles & set(service.profiles)
    )
    assert publishing, (
        f"{example}: {sorted(example.profiles)} publish no port {port}; they publish "
        + ", ".join(published)
    )
    if example.tool == "k6" and _script(example).removeprefix("loadtests/") in sent_to:
        wanted = sent_to[_script(example).removeprefix("loadtests/")]
        assert publishing & wanted, (
            f"{example}: :{port} is {sorted(publishing)}, where the benchmarks send "
            f"{_script(example)} to {sorted(wanted)}"
        )


def _ports_table(text: str) -> dict[str, tuple[dict[str, int], set[str]]]:
    """README.md's table: each profile's published services with their ports, and the
    services it starts without one."""
    lines = unpadded(text).splitlines()
    assert PORTS_HEADER in lines, f"README.md has no table headed {PORTS_HEADER}"
    rows = lines[lines.index(PORTS_HEADER) + 2 :]
    table: dict[str, tuple[dict[str, int], set[str]]] = {}
    for row in rows[: next((i for i, r in enumerate(rows) if not r.startswith("|")), len(rows))]:
        profile, published, unpublished = re.split(r" \| ", row.strip("| "))
        table[profile.strip("`")] = (
            {name: int(port) for name, port in re.findall(r"`([\w-]+)` :(\d+)", published)},
            set(re.findall(r"`([\w-]+)`", unpublished)),
        )
    return table


def test_the_readme_lists_every_profile_with_its_ports(services: Mapping[str, Service]) -> None:
    expected: dict[str, tuple[dict[str, int], set[str]]] = {}
    for service in services.values():
        for profile in service.profiles:
            published, unpublished = expected.setdefault(profile, ({}, set()))
            if service.published_port is None:
                unpublished.add(service.name)
            else:
                published[service.name] = service.published_port
    table = _ports_table((ROOT / "README.md").read_text())
    assert sorted(table) == sorted(expected)
    for profile, (published, unpublished) in expected.items():
        assert table[profile] == (published, unpublished), profile
