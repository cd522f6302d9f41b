"""BearerPolicy and the RequestGate answering it: which requests need the token, and how a
refusal answers."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest
from fastapi import FastAPI, Request

from servicekit.auth import BearerPolicy, TokenConfigError, read_token
from servicekit.gate import RequestGate

TOKEN = "s3cret-token"  # noqa: S105  (a test token)


def test_writes_need_the_credential_and_reads_do_not() -> None:
    policy = BearerPolicy(TOKEN)
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        assert policy.needs_credential(method, "/files")
    for method in ("GET", "HEAD", "OPTIONS"):
        assert not policy.needs_credential(method, "/files")


def test_protect_reads_covers_reads_but_never_the_probes() -> None:
    policy = BearerPolicy(TOKEN, protect_reads=True)
    assert policy.needs_credential("GET", "/files")
    assert not policy.needs_credential("GET", "/healthz")
    assert not policy.needs_credential("GET", "/readyz/")


@pytest.mark.parametrize(
    ("authorization", "status", "code"),
    [
        (None, 401, "unauthorized"),
        ("Bearer wrong", 401, "invalid_token"),
        (f"Basic {TOKEN}", 401, "invalid_token"),
        ("Bearer", 401, "invalid_token"),
        (f"Bearer {TOKEN}x", 401, "invalid_token"),
        ("Bearer t\u00f6ken", 401, "invalid_token"),
    ],
)
def test_a_missing_or_wrong_credential_is_a_401_with_a_challenge(
    authorization: str | None, status: int, code: str
) -> None:
    denial = BearerPolicy(TOKEN).check("POST", "/files", authorization)
    assert denial is not None
    assert (denial.status, denial.code) == (status, code)
    assert denial.headers["WWW-Authenticate"].startswith("Bearer ")


@pytest.mark.parametrize("authorization", [f"Bearer {TOKEN}", f"bearer  {TOKEN} "])
def test_the_right_token_passes(authorization: str) -> None:
    assert BearerPolicy(TOKEN).check("DELETE", "/files/x", authorization) is None


def test_without_a_token_writes_are_refused_with_how_to_configure_one() -> None:
    denial = BearerPolicy(None).check("POST", "/files", "Bearer anything")
    assert denial is not None
    assert (denial.status, denial.code) == (403, "writes_disabled")
    assert "API_TOKEN" in denial.message
    assert BearerPolicy(None).check("GET", "/files", None) is None


def test_read_token_from_the_variable_or_a_secret_file(tmp_path: Path) -> None:
    secret = tmp_path / "api_token"
    secret.write_text(f"{TOKEN}\n")
    assert read_token(f" {TOKEN} ", None) == TOKEN
    assert read_token(None, secret) == TOKEN
    assert read_token("", "") is None
    with pytest.raises(TokenConfigError, match="not both"):
        read_token(TOKEN, secret)
    with pytest.raises(TokenConfigError, match="missing"):
        read_token(None, tmp_path / "missing")
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(TokenConfigError, match="empty"):
        read_token(None, tmp_path / "empty")


def _app(policy: BearerPolicy) -> tuple[FastAPI, list[int]]:
    app = FastAPI()
    bodies_read: list[int] = []

    @app.post("/upload")
    async def upload(request: Request) -> dict[str, int]:
        bodies_read.append(len(await request.body()))
        return {"ok": 1}

    app.add_middleware(RequestGate, policy=policy)
    return app, bodies_read


def test_the_middleware_answers_the_error_shape_before_the_app_runs() -> None:
    anyio.run(_middleware_round_trip)


async def _middleware_round_trip() -> None:
    app, bodies_read = _app(BearerPolicy(TOKEN))
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://test") as client:
        refused = await client.post("/upload", content=b"x" * 1000)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == 'Bearer realm="api"'
        assert refused.json()["error"]["code"] == "unauthorized"
        assert bodies_read == []
        accepted = await client.post(
            "/upload", content=b"x" * 1000, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert accepted.status_code == 200
        assert bodies_read == [1000]
