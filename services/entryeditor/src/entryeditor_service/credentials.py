"""The entry editor's credentials, generated where none exist yet: the files its recipes mount
where the official images and the app read their `*_FILE` settings.

    python -m entryeditor_service.credentials [DIR]      # compose's entryeditor-secrets
    python -m entryeditor_service.credentials --kubernetes NAME   # a Secret, on stdout

Into DIR (default: SECRETS_DIR) it writes each missing file of GENERATED with a new random
value (mode 0444: the database, cache and app containers run as different users; only the
services that need the directory mount it), keeps every file already there (a rotated
value stays), and writes REDIS_ACL from the Redis password: the cache's own user
(REDIS_USER, default entryeditor) with its password's SHA-256 only, the keys under
REDIS_KEYS (default `*`) and the commands a cache needs (no FLUSHALL, KEYS, CONFIG, DEBUG:
Redis's @dangerous), and Redis's `default` user switched off. With --kubernetes it prints
a Secret holding the same keys, for `kubectl create` (which refuses to replace one that
exists).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# Each generated file and its number of random bytes (Django asks for a key of at least 50
# characters: 50 bytes are 67).
GENERATED = {
    "secret-key": 50,
    "database-password": 32,
    "mariadb-root-password": 32,
    "redis-password": 32,
}
REDIS_ACL = "redis.acl"
# What a cache client needs, nothing an operator does.
REDIS_COMMANDS = (
    "resetchannels -@all +@connection +@read +@write +@keyspace +@transaction -@dangerous"
)


class CredentialsError(RuntimeError):
    """A credential file exists but is empty or unreadable."""


def redis_acl(user: str, password: str, keys: str) -> str:
    """An ACL file (redis-server --aclfile) with `user` alone able to log in."""
    digest = hashlib.sha256(password.encode()).hexdigest()
    return f"user default off\nuser {user} on #{digest} ~{keys} {REDIS_COMMANDS}\n"


def generated() -> dict[str, str]:
    return {name: secrets.token_urlsafe(size) for name, size in GENERATED.items()}


def _write(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all: a reader never sees half a secret."""
    partial = path.with_name(f".{path.name}.partial")
    partial.unlink(missing_ok=True)
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
    partial.replace(path)


def _existing(path: Path) -> str | None:
    try:
        value = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CredentialsError(f"{path}: {error.strerror}") from None
    if not value:
        raise CredentialsError(f"{path} is empty: write a value there or remove it")
    return value


def ensure(directory: Path, env: Mapping[str, str]) -> list[str]:
    """Fill `directory` as the module docstring says; the names of the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    fresh = generated()
    values = {}
    for name in GENERATED:
        value = _existing(directory / name)
        if value is None:
            value = fresh[name]
            _write(directory / name, value + "\n")
            written.append(name)
        values[name] = value
    acl = redis_acl(_user(env), values["redis-password"], env.get("REDIS_KEYS") or "*")
    if _existing(directory / REDIS_ACL) != acl.strip():
        (directory / REDIS_ACL).unlink(missing_ok=True)
        _write(directory / REDIS_ACL, acl)
        written.append(REDIS_ACL)
    return written


def kubernetes_secret(name: str, env: Mapping[str, str]) -> dict[str, object]:
    values = generated()
    keys = env.get("REDIS_KEYS") or "*"
    values[REDIS_ACL] = redis_acl(_user(env), values["redis-password"], keys)
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/part-of": "servelab"}},
        "type": "Opaque",
        "stringData": values,
    }


def _user(env: Mapping[str, str]) -> str:
    user = env.get("REDIS_USER") or "entryeditor"
    if not user.replace("_", "").replace("-", "").isalnum():
        raise CredentialsError(f"REDIS_USER={user!r}: letters, digits, - and _ only")
    return user


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m entryeditor_service.credentials",
        description="Generate the entry editor's missing credentials.",
    )
    parser.add_argument(
        "directory", nargs="?", help="write missing files here (default: SECRETS_DIR)"
    )
    parser.add_argument("--kubernetes", metavar="NAME", help="print a new Secret NAME instead")
    args = parser.parse_args(argv)
    directory: str = args.directory or os.environ.get("SECRETS_DIR", "")
    if not args.kubernetes and not directory:
        parser.error("name a directory (or set SECRETS_DIR), or --kubernetes NAME")
    try:
        if args.kubernetes:
            print(json.dumps(kubernetes_secret(args.kubernetes, os.environ), indent=2))
            return 0
        written = ensure(Path(directory), os.environ)
    except (CredentialsError, OSError) as error:
        print(f"credentials: {error}", file=sys.stderr)
        return 1
    kept = sorted({*GENERATED, REDIS_ACL} - set(written))
    print(f"credentials in {directory}: written {written or 'none'}, kept {kept or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
