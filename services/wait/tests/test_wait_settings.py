"""The service's settings: read from the environment, refused when out of range."""

import pytest
from pydantic import ValidationError

from wait_service.settings import Settings


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL", "cpu")
    monkeypatch.setenv("WAITING_TIME", "0.25")
    monkeypatch.setenv("THREADPOOL_SIZE", "1000")
    assert Settings() == Settings(model="cpu", waiting_time=0.25, threadpool_size=1000)


def test_defaults_are_the_write_up_s(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MODEL", "WAITING_TIME", "THREADPOOL_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert Settings() == Settings(model="wait", waiting_time=1.0, threadpool_size=40)


@pytest.mark.parametrize(
    ("name", "value"), [("MODEL", "gpu"), ("WAITING_TIME", "-1"), ("THREADPOOL_SIZE", "0")]
)
def test_bad_settings_are_refused(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()
