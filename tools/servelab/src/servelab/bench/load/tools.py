"""The write-ups' own load tools (wrk, ab) run on a cell beside k6, and what they measured.

A variant with `tools = ["wrk"]` (or "ab") gets each of its cells loaded again by that
tool right after k6, with the same connections and duration (wrk: `-t<k6's CPUs>
-c<VUs> -d<duration>s --latency`, a timed shape) or the same count (ab: `-n -c`, a counted
shape), on k6's CPUs, so that a reader sees whether k6 itself set the pace. The request
is the script's own (bench.load.tool_requests).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.errors import BenchError
from servelab.bench.load.shape import Load
from servelab.bench.load.tool_output import Figures, parse_ab, parse_wrk
from servelab.bench.load.tool_requests import ToolRequest
from servelab.bench.measure.cpu_time import per_request_us
from servelab.stack.groups import pin

# loadtests/lib/request.lua, relative to loadtests/: wrk's request with a body.
WRK_SCRIPT = "lib/request.lua"
# How long a tool may run past its load before it counts as hung.
_GRACE_S = 60.0


class ToolError(BenchError):
    """A tool is missing, cannot run this cell's shape, or failed."""


@dataclass(frozen=True)
class ToolResult:
    tool: str
    # The command line as run, the variables wrk's Lua script reads first (NAME=value).
    argv: Sequence[str]
    requests: int
    rps: float
    p50_ms: float | None
    p99_ms: float | None
    # Failed requests of every kind: socket errors, timeouts and non-2xx answers.
    errors: int
    # The server's CPU time while the tool ran (as CellResult.server_cpu_s).
    server_cpu_s: float | None = None

    @property
    def cpu_us_per_request(self) -> float | None:
        return per_request_us(self.server_cpu_s, self.requests)


def check_shape(tool: str, load: Load, where: str) -> None:
    """wrk runs for a time on a constant number of connections; ab sends a count."""
    if tool == "wrk" and (load.counted or load.arrival):
        raise ToolError(f"{where}: wrk needs a timed shape (wrk, boom), not {load.shape}")
    if tool == "ab" and not load.counted:
        raise ToolError(f"{where}: ab needs a counted shape (ab, hey, client), not {load.shape}")


def _unique(url: str) -> tuple[str, str | None]:
    """The URL wrk is given, and the path request.lua names per request, for `{unique}`."""
    if "{unique}" not in url:
        return url, None
    scheme, _, rest = url.partition("://")
    host, _, path = rest.partition("/")
    return f"{scheme}://{host}/{path.replace('{unique}', 'unique')}", f"/{path}"


def tool_argv(
    tool: str, request: ToolRequest, load: Load, threads: int, loadtests: Path
) -> tuple[list[str], dict[str, str]]:
    """The command line, and the variables wrk's Lua script reads."""
    check_shape(tool, load, tool)
    if tool == "wrk":
        url, unique_path = _unique(request.url)
        argv = ["wrk", f"-t{max(1, min(threads, load.vus))}", f"-c{load.vus}"]
        argv += [f"-d{load.duration_s:g}s", "--latency"]
        env: dict[str, str] = {}
        if request.method != "GET" or request.body_file is not None or unique_path:
            argv += ["-s", str(loadtests / WRK_SCRIPT)]
            named = {
                "METHOD": request.method,
                "BODY_FILE": str(request.body_file) if request.body_file else None,
                "CONTENT_TYPE": request.content_type,
                "UNIQUE_PATH": unique_path,
                "AUTHORIZATION": request.authorization,
            }
            env = {name: value for name, value in named.items() if value is not None}
        return [*argv, url], env
    if "{unique}" in request.url:
        raise ToolError(f"ab sends one URL, not a name per request: {request.url}")
    total = load.iterations if load.shape == "ab" else load.iterations * load.vus
    argv = ["ab", "-n", str(total), "-c", str(load.vus)]
    if request.body_file is not None:
        argv += ["-u" if request.method == "PUT" else "-p", str(request.body_file)]
        argv += ["-T", request.content_type or "application/octet-stream"]
        if request.authorization is not None:
            argv += ["-H", f"Authorization: {request.authorization}"]
    elif request.method != "GET":
        raise ToolError(f"ab sends GET, or POST/PUT with a body, not a bare {request.method}")
    return [*argv, request.url], {}


def run_tool(
    argv: Sequence[str],
    env: Mapping[str, str],
    load: Load,
    *,
    cwd: Path,
    log: Path,
    cpus: frozenset[int] | None = None,
) -> Figures:
    """Run the tool on `cpus`, its output in `log`, and read its figures."""
    tool = argv[0]
    binary = shutil.which(tool)
    if binary is None:
        raise ToolError(f"{tool} not found: scripts/bootstrap.sh installs it (Debian wrk, ab)")
    try:
        result = subprocess.run(
            [binary, *argv[1:]],
            env={**os.environ, **env},
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=load.seconds + _GRACE_S,
            check=False,
            preexec_fn=lambda: pin(cpus),
        )
    except subprocess.TimeoutExpired as error:
        raise ToolError(f"{tool} still running after {error.timeout:.0f} s, killed") from None
    log.write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        last = (result.stderr or result.stdout).strip().splitlines()
        raise ToolError(
            f"{tool} exited with status {result.returncode}: {last[-1] if last else ''}"
        )
    return parse_wrk(result.stdout) if tool == "wrk" else parse_ab(result.stdout)
