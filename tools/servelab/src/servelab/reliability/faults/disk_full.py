"""`servelab probe disk-full`: the files service's storage on a small tmpfs, filled by
uploads until it refuses them.

Goal: every refused upload a 507 (or 413) JSON error, raw or multipart; 0 partial or
temporary files left in the store; the stored files still served, whole; and uploads
accepted again once files are deleted.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass

import httpx2

from servelab.project import Project
from servelab.reliability.faults.files_stack import Store, files_stack
from servelab.reliability.rows import Row, Verdict
from servelab.spec.reliability import Served, StoreFaults

TMPFS_SIZE = "8m"
UPLOAD_BYTES = 1024 * 1024
# Enough tries to fill TMPFS_SIZE several times over.
MAX_UPLOADS = 40
REFUSALS = (507, 413)


@dataclass(frozen=True)
class Attempt:
    status: int
    json: bool
    ms: float


def _upload(client: httpx2.Client, body: bytes, multipart: bool) -> tuple[Attempt, str | None]:
    started = time.monotonic()
    if multipart:
        response = client.post("/files", files={"file": ("fill.bin", body)})
    else:
        response = client.post(
            "/files", content=body, headers={"Content-Type": "application/octet-stream"}
        )
    attempt = Attempt(
        response.status_code,
        response.headers.get("content-type", "").startswith("application/json"),
        (time.monotonic() - started) * 1000,
    )
    object_id = response.json().get("id") if response.status_code == 201 else None
    return attempt, object_id


def probe_variant(project: Project, target: StoreFaults, variant: Served) -> Row:
    work = project.work("probe", "disk-full", target.family, variant.variant)
    with files_stack(project, target, variant, work, TMPFS_SIZE) as (_, data, client):
        stored: dict[str, str] = {}
        refused: list[Attempt] = []
        for number in range(MAX_UPLOADS):
            body = os.urandom(UPLOAD_BYTES)
            attempt, object_id = _upload(client, body, multipart=number % 2 == 1)
            if object_id:
                stored[object_id] = hashlib.sha256(body).hexdigest()
            else:
                refused.append(attempt)
            if len(refused) >= 4:  # two raw and two multipart
                break
        store_full = Store.of(data)
        served = sum(
            hashlib.sha256(client.get(f"/files/{object_id}").content).hexdigest() == digest
            for object_id, digest in stored.items()
        )
        freed = list(stored)[:2]
        for object_id in freed:
            client.delete(f"/files/{object_id}")
        again = [
            _upload(client, os.urandom(UPLOAD_BYTES), multipart)[0] for multipart in (False, True)
        ]
        store_after = Store.of(data)
    clear = all(a.status in REFUSALS and a.json for a in refused) and len(refused) >= 4
    passed = (
        clear
        and not store_full.leftovers
        and not store_after.leftovers
        and served == len(stored)
        and all(a.status == 201 for a in again)
    )
    statuses = sorted({a.status for a in refused})
    slowest = max((a.ms for a in refused), default=0.0)
    leftovers = len(store_full.leftovers) + len(store_after.leftovers)
    observed = (
        f"{len(stored)} uploads of {UPLOAD_BYTES // 1024} KiB stored, then "
        f"{len(refused)} refused ({', '.join(map(str, statuses)) or 'none'}, "
        f"{sum(a.json for a in refused)} JSON, max {slowest:.0f} ms); "
        f"{leftovers} partial or temporary files left; "
        f"{served} of {len(stored)} stored files served whole; after deleting {len(freed)}: "
        f"uploads {', '.join(str(a.status) for a in again)}"
    )
    return Row(
        probe=f"disk full ({TMPFS_SIZE} tmpfs), raw and multipart uploads",
        target=f"{target.family} {variant.variant}",
        expected="507 (or 413) JSON per refused upload; 0 partial or temp files; reads served; "
        "uploads accepted again after space is freed",
        observed=observed,
        verdict=Verdict.PASS if passed else Verdict.FAIL,
        figures={
            "stored": len(stored),
            "refused": len(refused),
            "refused_json": sum(a.json for a in refused),
            "refused_max_ms": round(slowest, 1),
            "leftover_files": leftovers,
            "served_whole": served,
            "accepted_after_free": sum(a.status == 201 for a in again),
        },
    )
