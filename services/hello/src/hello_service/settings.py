"""The settings of hello's own server (python -m hello_service.tornado_server), read once from
the environment (no prefix). The other servers take theirs on their command line."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(frozen=True)

    host: str = Field("0.0.0.0", description="Address to listen on.")
    port: int = Field(8000, ge=0, le=65535, description="TCP port to listen on.")
    web_concurrency: int = Field(
        1, ge=1, description="Processes: 1 serves from this one; N forks N sharing the socket."
    )
    # Tornado's default is 128, far below 400 clients connecting at once; Linux caps it at
    # net.core.somaxconn, so raise both together.
    backlog: int = Field(
        4096, ge=1, description="Connections the kernel queues before a process accepts them."
    )
