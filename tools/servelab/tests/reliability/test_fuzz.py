"""servelab fuzz: the hand-written cases' generators, the judging of answers, the reading of
schemathesis's report."""

from __future__ import annotations

import io
import json
import struct
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from servelab.cli import main
from servelab.project import Project
from servelab.reliability.fuzz import schema
from servelab.reliability.fuzz.cases import (
    BIG_ID,
    HUGE_HEADER,
    Case,
    decompression_ratio,
    gzip_bomb,
    hand_written,
    nested,
    png_bomb,
    png_of,
    range_cases,
)
from servelab.reliability.fuzz.judge import (
    ACCEPTED,
    HANG,
    HEAD_REFUSED,
    NO_ALLOW,
    NOT_JSON,
    SERVER_ERROR,
    judge,
    tally,
)
from servelab.reliability.fuzz.race import TRUNCATED, WRONG_STATUS, judge_download
from servelab.reliability.fuzz.raw import RawAnswer, parse_answer, request_bytes
from servelab.reliability.fuzz.run import FuzzOptions, case_probes
from servelab.reliability.fuzz.schema import SchemaRunError, read_report, schemathesis_argv
from servelab.reliability.report import render_reliability
from servelab.reliability.rows import Section, Verdict
from servelab.spec.reliability import chosen
from servelab.stack.compose import load_project
from servelab.testing.markdown import unpadded

FAMILIES = chosen(Project.find(Path(__file__)), lambda spec: spec.fuzz, "fuzz")
FILES = FAMILIES["files"]


def test_a_gzip_bomb_inflates_to_its_size_from_a_thousandth_of_it() -> None:
    bomb = gzip_bomb(8 * 2**20)
    assert len(bomb) < 8 * 2**20 // 500
    assert zlib.decompress(bomb, 31) == bytes(8 * 2**20)


def test_a_png_bomb_declares_side_squared_pixels_in_a_few_bytes() -> None:
    bomb = png_bomb(4000)
    assert bomb.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", bomb[16:24])
    assert (width, height) == (4000, 4000)
    idat = bomb.index(b"IDAT")
    length = struct.unpack(">I", bomb[idat - 4 : idat])[0]
    assert len(zlib.decompress(bomb[idat + 4 : idat + 4 + length])) == 4000 * (1 + 500)
    assert len(bomb) < 10_000


def test_every_case_class_is_generated_for_files() -> None:
    cases = list(hand_written(FILES, "token"))
    classes = {case.klass for case in cases}
    assert classes == {
        "non-UTF-8 bytes",
        "NUL bytes",
        "huge headers",
        "huge query strings",
        "ids 2**63 and negative",
        "traversal in the path",
        "traversal in a filename",
        "decompression bombs",
        "HEAD on GET routes",
        "wrong methods",
    }
    raw = b"\n".join(case.request for case in cases)
    for form in (b"/../", b"/%2e%2e/", b"%2f", b"//etc/passwd", b"%00", b"\x00", b"\xff"):
        assert form in raw, form
    assert f"/files/{BIG_ID}".encode() in raw and b"/files/-1 " in raw
    assert any(len(case.request) > HUGE_HEADER for case in cases)
    assert b'filename="../../../etc/passwd"' in raw
    assert b"HEAD /files HTTP/1.1\r\n" in raw and b"HEAD /files/1 HTTP/1.1\r\n" in raw
    assert b"DELETE /files HTTP/1.1\r\n" in raw and b"PUT /files/1 HTTP/1.1\r\n" in raw


@pytest.mark.parametrize(("width", "height"), [(1, 24_000_000), (24_000_000, 1)])
def test_an_extreme_png_declares_its_sides_in_a_few_dozen_kb(width: int, height: int) -> None:
    image = png_of(width, height)
    assert struct.unpack(">II", image[16:24]) == (width, height)
    idat = image.index(b"IDAT")
    length = struct.unpack(">I", image[idat - 4 : idat])[0]
    rows = zlib.decompress(image[idat + 4 : idat + 4 + length])
    assert len(rows) == height * (1 + (width + 7) // 8)
    assert len(image) < 100_000


def test_every_image_path_gets_both_extreme_sides() -> None:
    cases = [
        case
        for case in hand_written(FAMILIES["health-code"], "token")
        if case.klass == "extreme aspect ratios"
    ]
    sent = {(case.request.split(b" ")[1], case.request.split(b"\r\n\r\n", 1)[1]) for case in cases}
    for usage in (b"health-code", b"trip-code", b"nucleic-acid"):
        assert (b"/analysis/" + usage, png_of(1, 24_000_000)) in sent
        assert (b"/analysis/" + usage, png_of(24_000_000, 1)) in sent
    assert len(cases) == 6


def _body(case: Case) -> bytes:
    return case.request.split(b"\r\n\r\n", 1)[1]


def test_every_image_path_gets_a_small_png_past_the_recipes_pixel_limit(
    project: Project,
) -> None:
    """Each side within MAX_IMAGE_SIDE, so only the area check (MAX_PIXELS) refuses it."""
    recipe = load_project(project, ["health-code-uvicorn"]).services["health-code-uvicorn"]
    max_pixels = int(recipe.environment["MAX_PIXELS"])
    max_side = int(recipe.environment["MAX_IMAGE_SIDE"])
    family = FAMILIES["health-code"]
    cases = [case for case in hand_written(family, "token") if case.klass == "decompression ratio"]

    assert sorted(case.request.split(b" ")[1] for case in cases) == [
        b"/analysis/health-code",
        b"/analysis/nucleic-acid",
        b"/analysis/trip-code",
    ]
    assert all(b"\r\nContent-Type: image/png\r\n" in case.request for case in cases)
    assert not any(case.success_ok for case in cases)
    image = _body(cases[0])
    assert all(_body(case) == image for case in cases)
    with Image.open(io.BytesIO(image)) as decoded:
        width, height = decoded.size
        assert width * height > max_pixels and max(width, height) <= max_side
        decoded.load()
        assert decoded.mode == "L" and decoded.getextrema() == (0x80, 0x80)
    assert len(image) < 64_000 and width * height > 500 * len(image)


def test_no_other_case_class_sends_the_decompression_ratio_image() -> None:
    family = FAMILIES["health-code"]
    ratio = {_body(case) for case in decompression_ratio(family, "token")}
    others = [case for case in hand_written(family, "token") if case.klass != "decompression ratio"]
    assert not any(_body(case) in ratio for case in others)
    assert decompression_ratio(FAMILIES["files"], "token") == []


@contextmanager
def answering(status: int) -> Iterator[int]:
    """A loopback server answering every POST with `status` and the JSON error shape."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"error": {"code": "too_many_pixels", "message": "no"}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("status", "verdict"), [(413, "pass"), (500, "**fail**")])
def test_the_decompression_ratio_row_is_judged_and_rendered(status: int, verdict: str) -> None:
    cases = decompression_ratio(FAMILIES["health-code"], "token")
    with answering(status) as port:
        probes = list(case_probes("health-code-uvicorn (uvicorn)", port, cases))
    section = Section("fuzz-health-code", "Fuzz: health-code", "fuzz", "now", "here", probes)

    page = unpadded(render_reliability([section]))

    assert [probe.probe for probe in probes] == ["decompression ratio"]
    assert probes[0].verdict is (Verdict.PASS if status == 413 else Verdict.FAIL)
    row = "| decompression ratio | health-code-uvicorn (uvicorn) | within 10 s; no 5xx; a "
    row += f"refusal is a JSON 4xx | 3 cases: {status} ×3"
    assert row in page
    assert page.rstrip().endswith(f"| {verdict} |")


def test_every_json_body_gets_nesting_past_the_recursion_limit() -> None:
    cases = [
        case
        for case in hand_written(FAMILIES["entryeditor"], "token")
        if case.klass == "nested JSON"
    ]
    heads = {case.request.split(b" HTTP/1.1")[0] for case in cases}
    assert heads == {
        b"POST /entryeditor/entryeditor/",
        b"PATCH /entryeditor/entryeditor/1",
        b"POST /entryeditor/entryeditor/1/execute/",
        b"POST /entryeditor/entryeditor/1/init/",
    }
    assert any(case.request.endswith(nested(100_000, "arrays")) for case in cases)
    assert any(case.request.endswith(nested(1_000, "objects")) for case in cases)
    assert len(cases) == 16
    deep = nested(3, "objects")
    assert deep == b'{"a":{"a":{"a":1}}}'


def test_families_without_uploads_get_no_body_cases() -> None:
    classes = {case.klass for case in hand_written(FAMILIES["hello"], "token")}
    assert "decompression bombs" not in classes and "traversal in a filename" not in classes


def test_range_cases_aim_at_the_stored_object() -> None:
    cases = range_cases(FILES, "/files/abc")
    assert all(case.request.startswith(b"GET /files/abc HTTP/1.1\r\n") for case in cases)
    assert any(b"Range: bytes=5-2\r\n" in case.request for case in cases)


def test_a_request_is_written_byte_for_byte() -> None:
    raw = request_bytes("POST", b"/a\xff", {"X-A": b"\x00"}, b"body")
    assert raw == (
        b"POST /a\xff HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: \x00\r\nContent-Length: 4\r\n"
        b"Connection: close\r\n\r\nbody"
    )


def test_a_chunked_answer_is_read() -> None:
    status, headers, body = parse_answer(
        b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
        b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"err\r\n4\r\nor":\r\n0\r\n\r\n'
    )
    assert (status, headers["content-type"], body) == (404, "application/json", b'{"error":')
    assert parse_answer(b"garbage") == (None, {}, b"")


def _answer(status: int | None, body: bytes = b"", kind: str = "application/json") -> RawAnswer:
    return RawAnswer(status, {"content-type": kind}, body, 0.01)


def test_answers_are_judged() -> None:
    bad = Case("k", "bad", b"")
    fine = Case("k", "fine", b"", success_ok=True)
    error = b'{"error": {"code": "not_found", "message": "no"}}'
    assert judge(bad, _answer(404, error)) is None
    assert judge(bad, _answer(400, b"Bad Request", "text/plain")) == NOT_JSON
    assert judge(bad, _answer(502, error)) == SERVER_ERROR
    assert judge(bad, _answer(200)) == ACCEPTED
    assert judge(fine, _answer(206)) is None
    assert judge(bad, RawAnswer(None, {}, b"", 10.0, hung=True)) == HANG
    assert judge(bad, _answer(405, error)) == NO_ALLOW
    allowed = RawAnswer(405, {"content-type": "application/json", "allow": "GET"}, error, 0.01)
    assert judge(bad, allowed) is None
    head = Case("k", "head", b"HEAD /x HTTP/1.1\r\n\r\n", success_ok=True)
    assert judge(head, RawAnswer(405, {"allow": "GET"}, b"", 0.01)) == HEAD_REFUSED
    assert judge(head, RawAnswer(404, {"content-type": "application/json"}, b"", 0.01)) is None
    counted = tally([(bad, _answer(503)), (fine, _answer(200))])
    assert (counted.cases, counted.server_errors, counted.hangs) == (2, 1, 0)


def test_schemathesis_report_is_read() -> None:
    report = {
        "running_time": 3.5,
        "operations": {"tested": 20},
        "test_cases": {"generated": 327},
        "failures": [
            {"code": "ST101", "title": "Server error", "count": 2, "operations": ["POST /a"]},
            {"code": "ST103", "title": "Undocumented status code", "count": 3, "operations": []},
        ],
        "errors": [{"title": "Network Error", "count": 1}],
    }
    outcome = read_report(report)
    assert (outcome.generated, outcome.operations, outcome.failure_count) == (327, 20, 5)
    assert outcome.server_errors == 2
    assert outcome.errors == [("Network Error", 1)]


def _argv(options: FuzzOptions) -> list[str]:
    return schemathesis_argv(
        "http://127.0.0.1:1/schema",
        "token",
        options.examples,
        options.max_time_s,
        options.seed,
        Path("report.json"),
    )


def test_the_quick_form_runs_each_phase_once_and_the_others_repeat_them() -> None:
    quick = _argv(FuzzOptions())
    # schemathesis repeats its phases until --max-time has passed, whatever --max-examples.
    assert "--max-time" not in quick
    assert quick[quick.index("--max-examples") + 1] == "25"
    for options, seconds in (
        (FuzzOptions(quick=False), "600"),
        (FuzzOptions(time_limit_s=60), "60"),
    ):
        argv = _argv(options)
        assert argv[argv.index("--max-time") + 1] == seconds
    # A failure found does not end an operation's cases: the others still run.
    assert all(
        "--continue-on-failure" in _argv(o) for o in (FuzzOptions(), FuzzOptions(quick=False))
    )
    assert FuzzOptions().schema_form == "each phase once, 25 examples per operation"
    assert FuzzOptions(time_limit_s=60).flags == "--examples 25 --quick --seconds 60"


def test_a_schema_run_past_its_limit_is_a_hang_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "_ONE_PASS_LIMIT_S", 0.5)
    argv = [sys.executable, "-c", "import time; time.sleep(30)"]
    with pytest.raises(SchemaRunError, match=r"still ran after 0\.5 s: counted as hung"):
        schema.run_schemathesis(argv, tmp_path / "report.json", None, tmp_path / "st.log")


def test_an_unknown_family_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "nosuch"]) == 2
    assert "no fuzz for family 'nosuch'" in capsys.readouterr().err


def test_a_download_racing_a_delete_is_the_object_or_a_clean_404() -> None:
    data = b"x" * 1000
    error = b'{"error": {"code": "not_found", "message": "no"}}'
    assert judge_download(_answer(200, data, "text/plain"), data, None) is None
    assert judge_download(_answer(206, data, "text/plain"), data, "bytes=0-") is None
    assert judge_download(_answer(200, data, "text/plain"), data, "bytes=0-") is None
    assert judge_download(_answer(404, error), data, None) is None
    # The user's report: a 200 promising 4 MiB, then no bytes and the connection closed.
    assert judge_download(_answer(200, b"", "text/plain"), data, None) == TRUNCATED
    assert judge_download(_answer(206, data[:10], "text/plain"), data, "bytes=0-") == TRUNCATED
    assert judge_download(_answer(206, data, "text/plain"), data, None) == WRONG_STATUS
    assert judge_download(_answer(404, b"gone", "text/plain"), data, None) == NOT_JSON
    assert judge_download(_answer(500, error), data, None) == SERVER_ERROR
    assert judge_download(RawAnswer(None, {}, b"", 10.0, hung=True), data, None) == HANG


def test_head_is_tried_only_where_get_answers() -> None:
    def paths(family: str) -> set[bytes]:
        cases = hand_written(FAMILIES[family], "token")
        return {
            case.request.split(b" HTTP/1.1")[0]
            for case in cases
            if case.klass == "HEAD on GET routes"
        }

    # health-code's /analysis/{usage} takes POST alone: HEAD there would be a 405 as GET is.
    assert paths("health-code") == {b"HEAD /healthz", b"HEAD /readyz"}
    assert b"HEAD /entryeditor/entryeditor/1" in paths("entryeditor")
