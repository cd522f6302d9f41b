"""The response of every hello variant, byte for byte the write-up's Flask demo."""

import json

CONTENT_TYPE = "application/json; charset=utf-8"

BODY: bytes = json.dumps(
    {"code": 0, "message": "success", "data": "ok" * 2000}, ensure_ascii=False
).encode()
