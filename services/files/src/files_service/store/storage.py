"""An object store on one filesystem: uploads become visible atomically or not at all.

Layout under the storage root:

    objects/<id>        the blob
    objects/<id>.json   its metadata sidecar; an object exists once this file does
    tmp/                uploads in flight and scratch files, renamed or removed when done

tmp/ sits on the same filesystem as objects/, so publishing an upload is a rename.
"""

import contextlib
import fcntl
import json
import os
import tempfile
import time
import uuid
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from io import FileIO
from pathlib import Path
from typing import Any

from files_service import metrics
from files_service.store.cached_read import ReadMode, read_mode
from files_service.store.checksums import Sha256Counter
from files_service.store.ids import is_object_id, new_object_id

STALE_AFTER_SECONDS = 3600
_PART = ".part"
# Metadata of this many recently read objects is kept in memory (about 300 bytes each).
KNOWN_OBJECTS = 4096
_SIDECAR = ".json"


@dataclass(frozen=True, slots=True)
class ObjectMeta:
    id: str
    size: int
    sha256: str
    filename: str
    content_type: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Upload:
    """A temp file that hashes and counts what is written to it.

    Each piece the server hands over is written as it comes, with no buffer of the file's
    own: the pieces are the server's reads (tens of KiB under load), and a buffer per
    upload was a fresh allocation each time, which cost about 180 page faults and a
    quarter of a 256 KiB upload's CPU time.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.received = Sha256Counter()
        self._file: FileIO = path.open("xb", buffering=0)
        # Held until the file is closed or its process dies: how a starting worker tells an
        # upload in flight from one a crash left behind (ObjectStore.prepare).
        fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def write(self, data: bytes | memoryview) -> None:
        view = memoryview(data)
        while view:
            # A regular file takes all of it, or fewer bytes just before it fails (disk full).
            view = view[self._file.write(view) :]
        self.received.update(data)

    def sync(self) -> None:
        """Wait until the bytes written are on the disk."""
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


class ObjectStore:
    def __init__(self, root: Path, *, chunk_size: int, fsync: bool = True) -> None:
        self.objects_dir = root / "objects"
        self._objects = str(self.objects_dir)
        self.tmp_dir = root / "tmp"
        self.chunk_size = chunk_size
        # Whether commit() waits until an object is on the disk (Settings.fsync).
        self.fsync = fsync
        # How a download's bytes are read (files_service.store.cached_read), found by prepare().
        self.read_mode = ReadMode.THREAD
        # An object's metadata never changes once published, so a read needs its sidecar
        # only once. Whether the object still exists is the blob's to say: every download
        # stats it, and a deleted one (by any worker) answers 404.
        self._known: OrderedDict[str, ObjectMeta] = OrderedDict()

    def prepare(self) -> None:
        """Create the layout and sweep leftovers of crashed processes.

        Other workers sharing the directory may have uploads in flight right now: an
        upload's file goes when no process holds its lock (its writer died with it), any
        other entry only when older than STALE_AFTER_SECONDS.
        """
        self.objects_dir.mkdir(parents=True, exist_ok=True)
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        self.read_mode = read_mode(self.tmp_dir)
        cutoff = time.time() - STALE_AFTER_SECONDS
        for path in self.tmp_dir.iterdir():
            if path.suffix == _PART:
                _unlink_if_abandoned(path)
            else:
                _unlink_if_older(path, cutoff)
        for path in self.objects_dir.iterdir():
            if path.suffix != _SIDECAR and not path.with_name(path.name + _SIDECAR).exists():
                _unlink_if_older(path, cutoff)

    def is_writable(self) -> bool:
        try:
            with tempfile.TemporaryFile(dir=self.tmp_dir):
                return self.objects_dir.is_dir()
        except OSError:
            return False

    @contextlib.contextmanager
    def upload(self) -> Iterator[Upload]:
        """A fresh temp file, removed on the way out unless commit() published it."""
        upload = Upload(self._tmp_path(_PART))
        try:
            yield upload
        finally:
            with contextlib.suppress(OSError):
                upload.close()
            upload.path.unlink(missing_ok=True)

    @contextlib.contextmanager
    def scratch(self) -> Iterator[Path]:
        """A path of its own under tmp/, removed on the way out."""
        path = self._tmp_path(".scratch")
        try:
            yield path
        finally:
            path.unlink(missing_ok=True)

    def commit(self, upload: Upload, *, filename: str | None, content_type: str) -> ObjectMeta:
        """Publish a complete upload: blob first, then its sidecar, each by rename. With
        `fsync`, each file's bytes reach the disk before its rename and both renames before
        the return: an object that was answered 201 survives a crash of the machine."""
        if self.fsync:
            upload.sync()
        object_id = new_object_id()
        meta = ObjectMeta(
            id=object_id,
            size=upload.received.size,
            sha256=upload.received.hexdigest(),
            filename=filename or object_id,
            content_type=content_type,
            created_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
        )
        blob = self.objects_dir / object_id
        # Renamed while its lock is held, then closed: a worker starting meanwhile never
        # takes the file for a crash's leftover.
        upload.path.replace(blob)
        upload.close()
        try:
            sidecar = self._tmp_path(_SIDECAR)
            try:
                _write(sidecar, json.dumps(meta.to_json()).encode(), sync=self.fsync)
                sidecar.replace(self._sidecar(object_id))
            finally:
                sidecar.unlink(missing_ok=True)
            if self.fsync:
                _sync_directory(self.objects_dir)
        except BaseException:
            blob.unlink(missing_ok=True)
            raise
        metrics.stored(meta.size)
        return meta

    def get(self, object_id: str) -> ObjectMeta | None:
        """The object's metadata, or None. A known object may have been deleted since by
        another worker: its blob is then gone, which a reader of the blob finds out."""
        if not is_object_id(object_id):
            return None
        meta = self._known.get(object_id)
        if meta is not None:
            self._known.move_to_end(object_id)
            return meta
        try:
            meta = ObjectMeta(**json.loads(self._sidecar(object_id).read_bytes()))
        except FileNotFoundError:
            return None
        self._known[object_id] = meta
        if len(self._known) > KNOWN_OBJECTS:
            self._known.popitem(last=False)
        return meta

    def blob_path(self, meta: ObjectMeta) -> str:
        """The blob's path, as a string: a download opens it on every request, and making a
        Path of it cost more than the open."""
        return f"{self._objects}/{meta.id}"

    def delete(self, object_id: str) -> bool:
        """Hide the object (sidecar first), then free its blob."""
        if not is_object_id(object_id):
            return False
        self._known.pop(object_id, None)
        try:
            self._sidecar(object_id).unlink()
        except FileNotFoundError:
            return False
        (self.objects_dir / object_id).unlink(missing_ok=True)
        return True

    def list(self, *, after: str | None, limit: int) -> tuple[list[ObjectMeta], str | None]:
        """A page of objects, oldest first, and the cursor of the next page (None at the end)."""
        with os.scandir(self.objects_dir) as entries:
            ids = sorted(
                entry.name.removesuffix(_SIDECAR)
                for entry in entries
                if entry.name.endswith(_SIDECAR) and is_object_id(entry.name.removesuffix(_SIDECAR))
            )
        start = bisect_right(ids, after) if after else 0
        page = ids[start : start + limit]
        items = [meta for object_id in page if (meta := self.get(object_id)) is not None]
        more = start + limit < len(ids)
        return items, page[-1] if more and page else None

    def _sidecar(self, object_id: str) -> Path:
        return self.objects_dir / (object_id + _SIDECAR)

    def _tmp_path(self, suffix: str) -> Path:
        return self.tmp_dir / f"{uuid.uuid4().hex}{suffix}"


def _write(path: Path, data: bytes, *, sync: bool) -> None:
    with path.open("xb", buffering=0) as file:
        file.write(data)
        if sync:
            os.fsync(file.fileno())


def _sync_directory(directory: Path) -> None:
    """Wait until the names renamed into `directory` are on the disk."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _unlink_if_abandoned(path: Path) -> None:
    """Remove an upload's file unless a process holds its lock."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return
    finally:
        os.close(fd)
    path.unlink(missing_ok=True)


def _unlink_if_older(path: Path, cutoff: float) -> None:
    with contextlib.suppress(FileNotFoundError):
        if path.is_file() and path.stat().st_mtime < cutoff:
            path.unlink()
