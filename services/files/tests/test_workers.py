"""Two workers sharing one storage directory, as `--workers 2` runs them: what one worker
changes, the other answers at once, though each keeps the metadata it has read."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from files_service.main import create_app
from files_service.settings import Settings

TOKEN = "test-token"  # noqa: S105  (a test token)


def _worker(storage: Path) -> TestClient:
    app = create_app(Settings(storage_dir=storage, api_token=TOKEN))
    return TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})


def test_an_object_deleted_by_one_worker_is_gone_from_the_other(tmp_path: Path) -> None:
    with _worker(tmp_path) as first, _worker(tmp_path) as second:
        created = first.post("/files?filename=a.bin", content=b"abc")
        assert created.status_code == 201
        location = created.headers["Location"]
        # The second worker reads the object, and keeps its metadata.
        assert second.get(location).content == b"abc"
        assert second.head(location).status_code == 200
        assert first.delete(location).status_code == 204
        for answer in (second.get(location), second.head(location)):
            assert answer.status_code == 404
        assert second.get(location).json()["error"]["code"] == "not_found"
        assert second.get("/files").json()["items"] == []
