"""The credentials compose's entryeditor-secrets generates (entryeditor_service.credentials):
every one on the first run, none replaced on later ones, Redis's ACL kept in step with the
Redis password, and a Secret for Kubernetes."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

import pytest

from entryeditor_service.credentials import GENERATED, REDIS_ACL, ensure, main

ENV = {"REDIS_USER": "ee", "REDIS_KEYS": "ee:*"}


def test_the_first_run_writes_every_credential_unreadable_to_none_but_the_mounts(
    tmp_path: Path,
) -> None:
    written = ensure(tmp_path, ENV)
    assert sorted(written) == sorted([*GENERATED, REDIS_ACL])
    values = {name: (tmp_path / name).read_text().strip() for name in GENERATED}
    assert len(set(values.values())) == len(values)
    assert len(values["secret-key"]) >= 50
    assert all(len(value) >= 32 for value in values.values())
    for name in written:
        mode = stat.S_IMODE((tmp_path / name).stat().st_mode)
        assert mode == 0o444, (name, oct(mode))
    digest = hashlib.sha256(values["redis-password"].encode()).hexdigest()
    assert (tmp_path / REDIS_ACL).read_text().splitlines() == [
        "user default off",
        f"user ee on #{digest} ~ee:* resetchannels -@all +@connection +@read +@write "
        "+@keyspace +@transaction -@dangerous",
    ]
    assert values["redis-password"] not in (tmp_path / REDIS_ACL).read_text()


def test_later_runs_keep_what_is_there_and_follow_a_rotated_redis_password(
    tmp_path: Path,
) -> None:
    ensure(tmp_path, ENV)
    before = {name: (tmp_path / name).read_text() for name in GENERATED}
    assert ensure(tmp_path, ENV) == []
    assert {name: (tmp_path / name).read_text() for name in GENERATED} == before

    (tmp_path / "redis-password").chmod(0o644)
    (tmp_path / "redis-password").write_text("rotated-redis-password\n")
    assert ensure(tmp_path, ENV) == [REDIS_ACL]
    digest = hashlib.sha256(b"rotated-redis-password").hexdigest()
    assert f"#{digest} " in (tmp_path / REDIS_ACL).read_text()


def test_an_empty_credential_is_refused_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "database-password").write_text("\n")
    assert main([str(tmp_path)]) == 1
    assert (tmp_path / "database-password").read_text() == "\n"


def test_a_kubernetes_secret_with_the_same_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--kubernetes", "entryeditor"]) == 0
    secret = json.loads(capsys.readouterr().out)
    assert (secret["kind"], secret["metadata"]["name"]) == ("Secret", "entryeditor")
    assert set(secret["stringData"]) == {*GENERATED, REDIS_ACL}
    assert all(secret["stringData"].values())
