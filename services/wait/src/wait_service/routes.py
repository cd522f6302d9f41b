"""The FastAPI endpoints: the same work as a `def` (thread pool) and an `async def` (event loop)."""

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from wait_service.settings import Settings
from wait_service.threadpool import threadpool_size
from wait_service.work import async_work, blocking_work

router = APIRouter()


class Waited(BaseModel):
    wait: float


class Health(BaseModel):
    status: str
    model: str
    waiting_time: float
    threadpool_size: int


async def get_settings(request: Request) -> Settings:
    """Async, so resolving it takes no thread-pool thread (a `def` dependency would)."""
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(get_settings)]


@router.get("/sync")
def sync_wait(settings: SettingsDep) -> Waited:
    """Blocks a thread-pool thread: at most THREADPOOL_SIZE of these run at once."""
    return Waited(wait=blocking_work(settings))


@router.get("/async")
async def async_wait(settings: SettingsDep) -> Waited:
    """Runs on the event loop: any number of sleeps overlap; CPU burns run one at a time."""
    return Waited(wait=await async_work(settings))


def _health(settings: Settings, status: str) -> Health:
    return Health(
        status=status,
        model=settings.model,
        waiting_time=settings.waiting_time,
        threadpool_size=threadpool_size(),
    )


@router.get("/healthz", tags=["health"])
async def healthz(settings: SettingsDep) -> Health:
    """The process answers, with the settings in force."""
    return _health(settings, "ok")


@router.get("/readyz", tags=["health"])
async def readyz(settings: SettingsDep) -> Health:
    """Ready: the lifespan has sized the thread pool before the server listens, and the
    service needs nothing else."""
    return _health(settings, "ready")
