"""Object ids: server-generated, time-ordered, and the only strings that ever become paths."""

import re
import secrets
import time

_HEX32 = "[0-9a-f]{32}"
OBJECT_ID_PATTERN = f"^{_HEX32}$"
_OBJECT_ID = re.compile(_HEX32)


def new_object_id() -> str:
    """48 bits of Unix time in milliseconds, then 80 random bits, as 32 hex digits.

    Ids therefore sort in creation order (to the millisecond), so a directory
    listing sorted by name is a listing by age.
    """
    return f"{time.time_ns() // 1_000_000:012x}{secrets.token_hex(10)}"


def is_object_id(value: str) -> bool:
    return _OBJECT_ID.fullmatch(value) is not None
