"""Service settings, read once from the environment (no prefix)."""

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

MiB = 1024 * 1024


class Settings(BaseSettings):
    model_config = SettingsConfigDict(frozen=True)

    storage_dir: Path = Field(
        Path("data/files"),
        description="Root of the object store: objects/ holds blobs and sidecars, tmp/ uploads.",
    )
    max_upload_size: int = Field(
        100 * MiB, ge=0, description="Largest request body accepted, in bytes (413 above it)."
    )
    chunk_size: int = Field(
        256 * 1024, ge=4096, description="Read and write size of file I/O, in bytes."
    )
    fsync: bool = Field(
        True,
        description="An upload is on the disk before its 201 (fsync of the file, its metadata "
        "and the directory they are renamed into). false: faster uploads, and a crash of the "
        "machine (not of the server) may lose those of the last seconds.",
    )
    accel_redirect_prefix: str = Field(
        "",
        description="When set (e.g. /_protected/), downloads answer with X-Accel-Redirect "
        "to <prefix>objects/<id> and no body, so nginx sends the file.",
    )
    list_page_max: int = Field(1000, ge=1, description="Most objects one GET /files page returns.")
    api_token: str | None = Field(
        None,
        repr=False,
        description="The bearer token writes (POST, DELETE) need; unset: every write is "
        "refused with 403 (docs/security.md).",
    )
    api_token_file: str | None = Field(
        None, description="A file holding the token instead (a Docker or Kubernetes secret)."
    )
    api_auth_reads: bool = Field(False, description="Reads need the token too.")
