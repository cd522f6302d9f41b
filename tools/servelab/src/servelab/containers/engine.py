"""A private Docker engine: Debian's dockerd started as root with its own data root, exec
root and socket, so the tests and `servelab images` never touch a Docker the machine runs.

The data root lies under the cache directory and is kept between runs (images built once
are reused); the exec root, socket and log lie in a fresh directory under /tmp that is
removed afterwards. The daemon changes no firewall rule and no sysctl: --iptables=false,
--ip-masq=false and --ip-forward=false. Bridge networks (and their DNS) still work, and a
port published on 127.0.0.1 is served by docker-proxy, a userland process; what a
container then lacks is a route out of the machine, so builds that download run with the
host's network (`docker build --network host`).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from servelab.project import Settings
from servelab.stack.groups import processes, stat

# dockerd stops running containers within its --shutdown-timeout (15 s) and then exits.
SHUTDOWN_TIMEOUT_S = 15
STOP_TIMEOUT_S = SHUTDOWN_TIMEOUT_S + 15
START_TIMEOUT_S = 60.0
# How long a second run waits for the engine another run holds on the same data root.
LOCK_TIMEOUT_S = 900.0


class EngineUnavailable(Exception):
    """No engine can run on this machine (the reason says why); tests skip."""


class EngineError(Exception):
    """An engine could run here but did not start or stop as it should."""


def cache_dir(settings: Settings) -> Path:
    """Where servelab keeps what survives between runs: SERVELAB_CACHE, else
    $XDG_CACHE_HOME/servelab, else ~/.cache/servelab."""
    if settings.cache is not None:
        return settings.cache
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "servelab"


def docker_cli() -> str | None:
    return shutil.which("docker")


def unavailable_reason() -> str | None:
    """Why no private engine can run here, or None when one can."""
    if os.geteuid() != 0:
        return (
            "a private dockerd runs as root only (rootless Docker is not set up here); "
            "run the container tests as root"
        )
    if shutil.which("dockerd") is None:
        return "no dockerd: install Debian's docker.io (scripts/bootstrap.sh does it as root)"
    if docker_cli() is None:
        return "no docker command line: install Debian's docker.io"
    filesystems = Path("/proc/filesystems").read_text()
    if "overlay" not in filesystems:
        return "the kernel has no overlay filesystem, which the engine's image store needs"
    if not Path("/sys/fs/cgroup").is_dir() or not any(Path("/sys/fs/cgroup").iterdir()):
        return "no cgroup filesystem is mounted at /sys/fs/cgroup"
    try:
        subprocess.run(
            ["unshare", "--mount", "--net", "--pid", "--fork", "true"],
            check=True,
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"this machine does not let root create namespaces ({error})"
    return None


class Docker:
    """An engine the docker command line reaches: the one its own settings point at
    (containers.current.CurrentEngine), or servelab's private one (Engine)."""

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The docker command line's environment for this engine, with `extra` added."""
        return {**os.environ, **(extra or {})}

    def docker(
        self,
        *args: str,
        check: bool = True,
        timeout: float | None = 120,
        extra_env: Mapping[str, str] | None = None,
        stdin: IO[bytes] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run the docker command line against this engine, capturing its output."""
        cli = docker_cli()
        if cli is None:
            raise EngineError("the docker command line disappeared")
        return subprocess.run(
            [cli, *args],
            env=self.env(extra_env),
            check=check,
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


@dataclass(frozen=True)
class Engine(Docker):
    """A running private engine: its DOCKER_HOST and the daemon's process id."""

    host: str
    pid: int
    data_root: Path
    run_dir: Path

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """os.environ with DOCKER_HOST pointing at this engine."""
        return super().env({"DOCKER_HOST": self.host, **(extra or {})})


def dockerd_argv(data_root: Path, run_dir: Path, pidfile: Path) -> list[str]:
    return [
        "dockerd",
        "--data-root", str(data_root),
        "--exec-root", str(run_dir / "exec"),
        "--host", f"unix://{run_dir / 'docker.sock'}",
        "--pidfile", str(pidfile),
        # No firewall rules, no NAT, no net.ipv4.ip_forward change on the host.
        "--iptables=false", "--ip-masq=false", "--ip-forward=false",
        # Not the system's engine: no /etc/docker/daemon.json, no shared containerd namespace.
        "--config-file", str(run_dir / "daemon.json"),
        "--containerd-namespace", "servelab",
        "--containerd-plugins-namespace", "servelab-plugins",
        "--shutdown-timeout", str(SHUTDOWN_TIMEOUT_S),
    ]  # fmt: skip


def ping(sock: Path, timeout: float = 2.0) -> bool:
    """True when the engine behind `sock` answers GET /_ping with OK."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout)
            client.connect(str(sock))
            client.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            answer = b""
            while chunk := client.recv(4096):
                answer += chunk
    except OSError:
        return False
    return answer.startswith(b"HTTP/1.") and b" 200 " in answer[:16] and answer.endswith(b"OK")


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie does not count)."""
    fields = stat(pid)
    return fields is not None and fields[0] != "Z"


def processes_using(path: Path) -> list[int]:
    """Live processes whose command line names `path` or a path below it: dockerd,
    its containerd and the containerd shims of this engine's containers."""
    return [
        pid
        for pid in processes()
        if pid != os.getpid() and any(str(path) in arg for arg in _cmdline(pid))
    ]


def engine_processes(daemon_pid: int, run_dir: Path) -> list[int]:
    """The engine's live processes: dockerd and its descendants (containerd, docker-proxy),
    and the processes naming its exec root (containerd's shims, which re-parent to init)."""
    children: dict[int, list[int]] = {}
    for pid, fields in processes().items():
        children.setdefault(int(fields[1]), []).append(pid)
    found, todo = set(), [daemon_pid]
    while todo:
        pid = todo.pop()
        if pid not in found and alive(pid):
            found.add(pid)
            todo.extend(children.get(pid, []))
    return sorted(found | set(processes_using(run_dir)))


def _wait_gone(pids: Sequence[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    left = [pid for pid in pids if alive(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [pid for pid in left if alive(pid)]
    return left


def _terminate(pids: Sequence[int], timeout: float) -> list[int]:
    """SIGTERM each pid, wait up to `timeout`, SIGKILL what is left; return the killed pids."""
    for pid in pids:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    stubborn = _wait_gone(pids, timeout)
    for pid in stubborn:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _wait_gone(stubborn, 5)
    return stubborn


def _unmount_below(paths: Sequence[Path]) -> None:
    """Lazily unmount what a killed daemon left mounted below `paths` (network namespaces,
    overlay layers); a daemon that stopped by itself leaves nothing."""
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    prefixes = tuple(f"{path}/" for path in paths)
    for target in sorted(mounts, key=len, reverse=True):
        if target.startswith(prefixes):
            subprocess.run(["umount", "--lazy", target], check=False, capture_output=True)


def _stop_leftover(pidfile: Path, data_root: Path) -> None:
    """Stop an engine that a killed earlier run left on this data root (the lock is free,
    so no live run owns it); only a dockerd whose command line names the data root."""
    with suppress(OSError, ValueError):
        pid = int(pidfile.read_text().strip())
        argv = _cmdline(pid)
        if alive(pid) and argv[:1] == ["dockerd"] and str(data_root) in argv:
            _terminate([pid], STOP_TIMEOUT_S)
    pidfile.unlink(missing_ok=True)


@contextmanager
def _exclusive(lock_path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on `lock_path`: two daemons must never share a data root."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise EngineError(
                        f"another run has held the private engine's lock {lock_path} "
                        f"for {timeout:.0f} s"
                    ) from None
                time.sleep(1)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@contextmanager
def private_engine(
    data_root: Path, *, start_timeout: float = START_TIMEOUT_S, lock_timeout: float = LOCK_TIMEOUT_S
) -> Iterator[Engine]:
    """Start a private dockerd on `data_root` (images kept there between runs: normally
    cache_dir()/docker), yield it once it answers, stop it by its pid afterwards.

    Raises EngineUnavailable where no engine can run here, EngineError when it fails to
    start (with the end of its log) or leaves a process behind."""
    if reason := unavailable_reason():
        raise EngineUnavailable(reason)
    data_root = data_root.resolve()
    pidfile = data_root.parent / f"{data_root.name}.pid"
    with _exclusive(data_root.parent / f"{data_root.name}.lock", lock_timeout):
        _stop_leftover(pidfile, data_root)
        data_root.mkdir(parents=True, exist_ok=True)
        # Under /tmp: a unix socket path must stay under 108 bytes.
        run_dir = Path(tempfile.mkdtemp(prefix="servelab-docker-", dir="/tmp"))
        (run_dir / "daemon.json").write_text("{}\n")
        sock = run_dir / "docker.sock"
        log_path = run_dir / "dockerd.log"
        try:
            with log_path.open("wb") as log:
                daemon = subprocess.Popen(
                    dockerd_argv(data_root, run_dir, pidfile),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            try:
                _wait_ready(daemon, sock, log_path, start_timeout)
                engine = Engine(f"unix://{sock}", daemon.pid, data_root, run_dir)
                _remove_leftover_containers(engine)
                yield engine
            finally:
                _stop(daemon, run_dir, data_root, log_path)
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)


def _remove_leftover_containers(engine: Engine) -> None:
    """Remove the containers a killed earlier run left on the data root: the engine is
    this run's alone, and a `restart: unless-stopped` container comes back with it, holding
    the ports the next `up` publishes."""
    if ids := engine.docker("ps", "--all", "--quiet", check=False).stdout.split():
        engine.docker("rm", "--force", "--volumes", *ids, check=False)


def _log_tail(log_path: Path, lines: int = 15) -> str:
    with suppress(OSError):
        return "\n".join(log_path.read_text(errors="replace").splitlines()[-lines:])
    return ""


def _wait_ready(
    daemon: subprocess.Popen[bytes], sock: Path, log_path: Path, timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while not ping(sock):
        if daemon.poll() is not None:
            raise EngineError(
                f"dockerd exited with status {daemon.returncode} while starting:\n"
                f"{_log_tail(log_path)}"
            )
        if time.monotonic() > deadline:
            raise EngineError(
                f"dockerd did not answer within {timeout:.0f} s:\n{_log_tail(log_path)}"
            )
        time.sleep(0.2)


def _stop(daemon: subprocess.Popen[bytes], run_dir: Path, data_root: Path, log_path: Path) -> None:
    """SIGTERM dockerd (it stops its containers and its containerd), SIGKILL after
    STOP_TIMEOUT_S; then, by pid, any of its processes still running."""
    started = engine_processes(daemon.pid, run_dir)
    with suppress(ProcessLookupError):
        daemon.send_signal(signal.SIGTERM)
    try:
        daemon.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait()
    leftovers = sorted({*(pid for pid in started if alive(pid)), *processes_using(run_dir)})
    killed = _terminate(leftovers, 10) if leftovers else []
    _unmount_below([run_dir, data_root])
    if daemon.returncode == -signal.SIGKILL:
        raise EngineError(
            f"dockerd (pid {daemon.pid}) did not stop on SIGTERM within {STOP_TIMEOUT_S} s:\n"
            f"{_log_tail(log_path)}"
        )
    if killed:
        raise EngineError(f"processes {killed} of the engine outlived dockerd and were killed")
