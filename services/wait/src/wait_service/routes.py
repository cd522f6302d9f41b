"""The FastAPI endpoints: the same work as a `def` (thread pool) and an `async def` (event loop)."""

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from servicekit.fastapi_app import settings_dependency
from wait_service.settings import Settings
from wait_service.work import async_work, blocking_work

router = APIRouter()


class Waited(BaseModel):
    wait: float


SettingsDep = Annotated[Settings, Depends(settings_dependency(Settings))]


@router.get("/sync")
def sync_wait(settings: SettingsDep) -> Waited:
    """Blocks a thread-pool thread: at most THREADPOOL_SIZE of these run at once."""
    return Waited(wait=blocking_work(settings))


@router.get("/async")
async def async_wait(settings: SettingsDep) -> Waited:
    """Runs on the event loop: any number of sleeps overlap; CPU burns run one at a time."""
    return Waited(wait=await async_work(settings))
