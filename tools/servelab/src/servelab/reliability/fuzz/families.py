"""What `servelab fuzz` runs for each family: the deploy variants (a compose profile, the
services to start, the targets fuzzed on it) and the paths its hand-written cases aim at."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Target:
    """A compose service whose port is fuzzed: an app server alone, or nginx in front.
    `schema` is the OpenAPI document's path on it; None where the service publishes none
    (only the hand-written cases run)."""

    service: str
    server: str
    schema: str | None


@dataclass(frozen=True)
class Variant:
    """One stack: `Stack(profile, only=only, env=env)`, and the targets fuzzed on it."""

    profile: str
    only: tuple[str, ...]
    targets: tuple[Target, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Family:
    """A family's variants and its paths: `read` a GET that takes a query, `ids` GET paths
    with an `{id}` placeholder, `upload` a POST that stores a raw body (`None`: the family
    takes no raw upload), `range` whether stored objects answer Range, `bomb` which
    decompression bomb to post (`gzip` to `upload`, or `png` to `upload` as an image),
    `database` whether the variants need a scratch database on the machine's MariaDB,
    `images` every path that decodes a posted image, `json_bodies` every (method, path)
    that parses a JSON body (`{id}` an object that exists), `delete_race` whether objects
    stored through `upload` (answered with their Location) are downloaded while a DELETE
    removes them, `notes` what the report should say about failures the family cannot fix."""

    name: str
    variants: tuple[Variant, ...]
    read: str
    ids: tuple[str, ...] = ()
    upload: str | None = None
    upload_type: str = "application/octet-stream"
    range: bool = False
    bomb: str | None = None
    database: bool = False
    images: tuple[str, ...] = ()
    json_bodies: tuple[tuple[str, str], ...] = ()
    delete_race: bool = False
    # The GET paths HEAD is tried on (`{id}` an object that exists); None: `read` and `ids`.
    heads: tuple[str, ...] | None = None
    notes: str = ""


# nginx's write limit (include/edge.inc) answers a fuzzer's burst of writes with 429s: the
# fuzz runs with room for them, as a load test would.
_NO_WRITE_LIMIT = {"WRITE_RATE_LIMIT": "10000r/s", "WRITE_BURST": "10000"}

FILES = Family(
    name="files",
    variants=(
        Variant(
            "files-uvicorn",
            ("files-uvicorn",),
            (Target("files-uvicorn", "uvicorn", "/openapi.json"),),
        ),
        Variant(
            "files-nginx",
            ("files-nginx",),
            (Target("files-nginx", "nginx + uvicorn", "/openapi.json"),),
            _NO_WRITE_LIMIT,
        ),
    ),
    read="/files",
    ids=("/files/{id}", "/files/download/file?id={id}"),
    upload="/files",
    range=True,
    bomb="gzip",
    delete_race=True,
    notes=(
        "ST201 on the multipart uploads: schemathesis sends a number, a boolean or an "
        "object as the `file` part, which on the wire is bytes any file may hold. ST302 (an object "
        "just created answering 404 to GET /files/download/file) did not reproduce by hand."
    ),
)

ENTRYEDITOR = Family(
    name="entryeditor",
    variants=(
        Variant(
            "entryeditor-uwsgi",
            ("entryeditor-nginx",),
            (
                Target("entryeditor-uwsgi", "uWSGI (http-socket)", "/api/schema/"),
                Target("entryeditor-nginx", "nginx + uWSGI", "/api/schema/"),
            ),
            {
                **_NO_WRITE_LIMIT,
                "CORPUS_LIMIT": "300",
                "WEB_CONCURRENCY": "2",
                "WEB_THREADS": "2",
                "EE_REDIS_DB": "3",
            },
        ),
    ),
    read="/corpus/statistics/get_instance",
    ids=("/entryeditor/entryeditor/{id}", "/corpus/sentence/{id}"),
    upload="/entryeditor/entryeditor/",
    upload_type="application/json",
    bomb="gzip",
    database=True,
    json_bodies=(
        ("POST", "/entryeditor/entryeditor/"),
        ("PATCH", "/entryeditor/entryeditor/{id}"),
        ("POST", "/entryeditor/entryeditor/{id}/execute/"),
        ("POST", "/entryeditor/entryeditor/{id}/init/"),
    ),
    notes=(
        "The app alone is uWSGI's http-socket, the metrics port that Prometheus scrapes on "
        "the private network; clients reach the service through nginx. ST202 on execute: a "
        "command the query language cannot parse is a 400, which no schema can say. ST201 "
        "on PATCH: schemathesis adds an `error` member to a valid body and calls it invalid "
        "for a `version` missing inside it; an unknown member is ignored, as in every body."
    ),
)

HEALTH_CODE = Family(
    name="health-code",
    variants=(
        Variant(
            "health-code-uvicorn",
            ("health-code-uvicorn",),
            (Target("health-code-uvicorn", "uvicorn", "/openapi.json"),),
        ),
        Variant(
            "health-code-replicas",
            ("health-code-replicas",),
            (Target("health-code-replicas", "nginx + uvicorn", "/openapi.json"),),
            {"REPLICAS": "1"},
        ),
    ),
    read="/healthz",
    ids=("/analysis/{id}",),
    # /analysis/{usage} takes POST alone: HEAD is tried where GET answers.
    heads=("/healthz", "/readyz"),
    upload="/analysis/health-code",
    upload_type="image/png",
    bomb="png",
    images=("/analysis/health-code", "/analysis/trip-code", "/analysis/nucleic-acid"),
    notes=(
        "ST202: a body that is valid base64, or bytes, but no image is refused (415), which "
        "no schema can say."
    ),
)

WAIT = Family(
    name="wait",
    variants=(
        Variant(
            "wait-uvicorn",
            ("wait-uvicorn",),
            (Target("wait-uvicorn", "uvicorn", "/openapi.json"),),
        ),
        Variant(
            "wait-gunicorn", ("wait-flask",), (Target("wait-flask", "gunicorn (Flask)", None),)
        ),
    ),
    read="/healthz",
    notes=(
        "wait-flask is gunicorn's sync worker alone (one worker, as the write-up ran it): a "
        "client sending its headers slowly holds it, and other requests wait until "
        "gunicorn's timeout; gunicorn's documentation asks for a buffering proxy in front."
    ),
)

HELLO = Family(
    name="hello",
    variants=(
        Variant("hello-uvicorn", ("hello-uvicorn",), (Target("hello-uvicorn", "uvicorn", None),)),
        Variant(
            "hello-uwsgi",
            ("hello-uwsgi-nginx",),
            (Target("hello-uwsgi-nginx", "nginx + uWSGI", None),),
        ),
    ),
    read="/hello",
)

FAMILIES: dict[str, Family] = {
    family.name: family for family in (FILES, ENTRYEDITOR, HEALTH_CODE, WAIT, HELLO)
}
