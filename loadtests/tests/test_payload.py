from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from servelab.bench.load.k6 import k6_binary
from servelab.bench.load.payload import generate_payload, write_payload

# Prints digests of what loadtests/lib/payload.js builds in the init context.
SCRIPT = """
import crypto from 'k6/crypto';
import {{ loadPayload, multipartBody, base64JsonBody, BOUNDARY }} from '{lib}';
const payload = loadPayload();
const multipart = multipartBody(payload);
const json = base64JsonBody(payload);
export const options = {{ vus: 1, iterations: 1 }};
export default function () {{}}
export function handleSummary() {{
  return {{ stdout: JSON.stringify({{
    payload: crypto.sha256(payload, 'hex'),
    multipart: crypto.sha256(multipart, 'hex'),
    json: crypto.sha256(json, 'hex'),
    boundary: BOUNDARY,
  }}) }};
}}
"""


def _probe(project_root: Path, tmp_path: Path, env: dict[str, str]) -> dict[str, str]:
    script = tmp_path / "payload_probe.js"
    payload_js = project_root / "loadtests" / "lib" / "payload.js"
    script.write_text(SCRIPT.format(lib=payload_js.as_posix()))
    argv = [k6_binary(), "run", "--quiet", "--no-usage-report"]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    result = subprocess.run(
        [*argv, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("size", [262144, 1000, 16 * 1024 + 3])
def test_python_and_k6_generate_the_same_payload(
    project_root: Path, tmp_path: Path, size: int
) -> None:
    assert _probe(project_root, tmp_path, {"PAYLOAD_SIZE": str(size)})["payload"] == _sha256(
        generate_payload(size)
    )


def test_payload_is_not_a_short_repetition() -> None:
    payload = generate_payload(262144)
    assert len(payload) == 262144
    assert len({payload[i : i + 1024] for i in range(0, 16 * 1024, 1024)}) == 16


def test_multipart_and_json_bodies_wrap_the_payload_file(
    project_root: Path, tmp_path: Path
) -> None:
    data = write_payload(tmp_path / "health.jpg", 5000).read_bytes()
    probe = _probe(project_root, tmp_path, {"PAYLOAD_FILE": str(tmp_path / "health.jpg")})
    assert probe["payload"] == _sha256(data)
    boundary = probe["boundary"]
    head = (
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="file"; filename="health.jpg"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    )
    multipart = head.encode() + data + f"\r\n--{boundary}--\r\n".encode()
    assert probe["multipart"] == _sha256(multipart)
    document = {"filename": "health.jpg", "base64": base64.b64encode(data).decode()}
    assert probe["json"] == _sha256(json.dumps(document, separators=(",", ":")).encode())
