"""`servelab bench FAMILY --target URL`: the load alone, against a remote stack already up.

One variant's endpoints are run (the matrix's first that is not a reference row, or the
one named), each cell's base URL being the target. A variant whose server must hold the
payload file (a volume the runner fills before k6 starts, e.g. files' reference nginx
serving it with sendfile) runs only once the payload is there: the runner cannot put it
there, so it refuses unless told it is (`--payload-on-target`).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from servelab.bench.plan.matrix import Matrix, MatrixError, Variant
from servelab.project import Project
from servelab.stack.compose import ComposeError, load_project

# The compose profile of the physical-limit rows (nginx alone, the empty apps).
REFERENCE_PROFILE = "reference"


def check_url(url: str) -> str:
    """The target without a trailing slash; an error for anything but http(s)://host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise MatrixError(f"--target {url!r}: expected http://HOST[:PORT] or https://...")
    return url.rstrip("/")


def default_label(url: str) -> str:
    """The results' label for a target: its host, and port where it names one."""
    parts = urlsplit(url)
    host = parts.hostname or "target"
    return f"{host}-{parts.port}" if parts.port else host


def _variant(matrix: Matrix, name: str | None) -> Variant:
    """The variant named, else the matrix's first that is not a reference row."""
    for variant in matrix.variants:
        if variant.name == name or (name is None and variant.profile != REFERENCE_PROFILE):
            return variant
    if name is None:
        raise MatrixError(
            f"{matrix.family}: every variant is a reference row; name one (--variant)"
        )
    known = ", ".join(variant.name for variant in matrix.variants)
    raise MatrixError(f"{matrix.family}: no variant {name!r} (known: {known})")


def _holds_payload(project: Project, matrix: Matrix, variant: Variant) -> str | None:
    """Where the variant's server reads the payload file from, if it does."""
    if matrix.payload is None:
        return None
    try:
        recipes = load_project(project, [variant.profile])
        names = recipes.closure([variant.service])
    except ComposeError as error:
        raise MatrixError(str(error)) from error
    for name in names:
        for mount in recipes.services[name].mounts:
            if mount.source == matrix.payload.volume:
                return f"{name}:{mount.target}/{matrix.payload.name}"
    return None


def target_matrix(
    project: Project,
    matrix: Matrix,
    variant_name: str | None,
    payload_on_target: bool = False,
) -> Matrix:
    """The matrix narrowed to the one variant whose endpoints run against the target."""
    variant = _variant(matrix, variant_name)
    needs = _holds_payload(project, matrix, variant)
    if needs is not None and matrix.payload is not None and not payload_on_target:
        payload = matrix.payload
        raise MatrixError(
            f"{matrix.family}: variant {variant.name!r} serves the payload from its own volume "
            f"({needs}), which a --target run cannot fill. Write it with `uv run python -c "
            f"'from pathlib import Path; from servelab.bench.load.payload import write_payload; "
            f'write_payload(Path("{payload.name}"), {payload.size})\'`, copy it there on the '
            f"target, and run again with --payload-on-target; or pick another variant (--variant)"
        )
    return replace(matrix, variants=(variant,))
