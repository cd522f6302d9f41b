"""The hello body is the write-up's: json.dumps of its dict with ensure_ascii=False."""

import json

from hello_service.body import BODY, CONTENT_TYPE


def test_body_is_the_write_up_s_4_kb_json() -> None:
    assert json.loads(BODY) == {"code": 0, "message": "success", "data": "ok" * 2000}
    assert BODY.startswith(b'{"code": 0, "message": "success", "data": "okok')
    assert len(BODY) == 4045
    assert CONTENT_TYPE == "application/json; charset=utf-8"
