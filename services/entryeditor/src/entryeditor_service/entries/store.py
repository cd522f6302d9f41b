"""Entry writes with optimistic concurrency: an update names the version it was based on,
and only succeeds while that is still the current version (VersionConflict otherwise,
a 409 to the client: entryeditor_service.errors)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from entryeditor_service.entries.models import Entry

BLANK: dict[str, Any] = {
    "pos": "",
    "senses": [],
    "frequency": 0,
    "pos_distribution": {},
    "examples": [],
    "collocates": [],
}


class EntryNotFound(LookupError):
    def __init__(self, entry_id: int) -> None:
        super().__init__(f"no entry {entry_id}")
        self.entry_id = entry_id


class VersionConflict(Exception):
    """The entry is no longer at the version the change was based on."""

    def __init__(self, entry_id: int, version: int | None, current: int) -> None:
        super().__init__(f"entry {entry_id} is at version {current}, not {version}")
        self.entry_id = entry_id
        self.version = version
        self.current = current


def get(entry_id: int) -> Entry:
    entry = Entry.objects.filter(pk=entry_id).first()
    if entry is None:
        raise EntryNotFound(entry_id)
    return entry


def conflict(entry_id: int, version: int | None) -> EntryNotFound | VersionConflict:
    """Why an update of `entry_id` at `version` changed nothing."""
    current = Entry.objects.filter(pk=entry_id).values_list("version", flat=True).first()
    if current is None:
        return EntryNotFound(entry_id)
    return VersionConflict(entry_id, version, current)


def update(entry_id: int, data: dict[str, Any], version: int | None) -> Entry:
    """Write `data` if the entry is still at `version` (any version when None)."""
    rows = Entry.objects.filter(pk=entry_id)
    if version is not None:
        rows = rows.filter(version=version)
    changed = rows.update(**data, version=F("version") + 1, updated_at=timezone.now())
    if not changed:
        raise conflict(entry_id, version)
    return get(entry_id)


def put(entry_id: int, data: dict[str, Any], version: int | None) -> tuple[Entry, bool]:
    """Replace entry `entry_id` with `data`, creating it if it does not exist; (entry,
    created). With a version, the entry must exist at that version."""
    data = {**BLANK, **data}
    if version is None and not Entry.objects.filter(pk=entry_id).exists():
        try:
            with transaction.atomic():
                return Entry.objects.create(id=entry_id, **data), True
        except IntegrityError:
            pass  # created meanwhile by a concurrent request: replace it like an update
    return update(entry_id, data, version), False
