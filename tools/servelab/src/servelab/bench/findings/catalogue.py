"""Every question of the five write-ups (and two of ours), by family, with the write-up's
own answer and what a bigger machine would change.

The per-report summaries ask the same rules of a single run; docs/findings.md asks them of
every committed run of the family together.
"""

from __future__ import annotations

from collections.abc import Mapping

from servelab.bench.findings.rules import (
    About,
    Cheapest,
    Choice,
    OnDevice,
    Question,
    Within,
    Workers,
)
from servelab.bench.findings.verdict import NO_DIFFERENCE

_CPU_CARRIES = (
    "A ratio of CPU per request carries to a bigger machine of the same kind: each request "
    "costs what it costs. Requests/s grow with cores until the network or the client sets "
    "the pace."
)
_ONE_PROCESS = (
    "gunicorn only forks and watches the worker processes; each request runs in the same "
    "uvicorn worker code either way, so per request the two cost the same."
)

QUESTIONS: Mapping[str, tuple[Question, ...]] = {
    "files": (
        Choice(
            "Stream an upload or buffer it?",
            ("stream/buffer upload CPU", "stream/buffer upload"),
            "stream",
            "buffer (UploadFile)",
            About(
                write_up="stream: about 4,530 against 2,720 requests/s for UploadFile "
                "(uvicorn, 40 workers, wrk -c100 with a 256 KB file)",
                why="UploadFile parses the multipart body and spools it to a temporary file "
                "before the endpoint runs; a raw stream writes each chunk once.",
                bigger=_CPU_CARRIES,
                agrees="stream",
            ),
        ),
        Choice(
            "Raw body or multipart form?",
            ("multipart/raw",),
            "multipart",
            "raw body",
            About(
                write_up="raw (binary) bodies beat form-data",
                why="A multipart body is parsed part by part in Python; a raw body is read "
                "as it arrives.",
                bigger=_CPU_CARRIES,
                agrees="raw body",
            ),
        ),
        Choice(
            "Stream a download or send a FileResponse?",
            ("stream/file download",),
            "stream",
            "FileResponse",
            About(
                write_up="stream: about 4,550 against 1,556 requests/s for FileResponse",
                why="Both read the file in chunks; where the server offers zero-copy sending, "
                "a FileResponse hands the file to it instead.",
                bigger=_CPU_CARRIES,
                agrees="stream",
            ),
        ),
        Choice(
            "Async file I/O (aiofiles) or plain writes?",
            ("async/sync write",),
            "async writes",
            "plain writes",
            About(
                write_up="async reads and writes together were slower: 4,170 against 4,549 "
                "requests/s",
                why="aiofiles runs each write in a thread; for a local disk the hand-off "
                "costs more than the write.",
                bigger=_CPU_CARRIES,
                agrees="plain writes",
            ),
        ),
        Choice(
            "uvicorn or gunicorn?",
            ("gunicorn/uvicorn CPU", "gunicorn/uvicorn"),
            "gunicorn + UvicornWorker",
            "uvicorn --workers",
            About(
                write_up="gunicorn + UvicornWorker a little ahead (4,572 against 4,527 "
                "requests/s streamed; 4,314 against 2,718 for UploadFile), one run each",
                why=_ONE_PROCESS,
                bigger=_CPU_CARRIES,
                agrees="gunicorn + UvicornWorker",
            ),
        ),
        Choice(
            "`async def` or `def`?",
            ("async/sync upload CPU", "async/sync upload"),
            "`async def`",
            "`def`",
            About(
                write_up="the same for UploadFile: 2,718 against 2,724 requests/s",
                why="A `def` endpoint runs in the thread pool; the hand-off is small next "
                "to parsing and writing 256 KB.",
                bigger=_CPU_CARRIES,
                agrees=NO_DIFFERENCE,
            ),
        ),
    ),
    "hello": (
        Cheapest(
            "Which server and worker type?",
            "GET /hello @400/s",
            "hello CPU / empty app",
            About(
                write_up="Tornado with 8 processes (2,781 requests/s), then gevent (1,786), "
                "threads (1,603), one Tornado process (1,147) and sync workers (526), "
                "wrk -c400 on 4 cores; uWSGI and FastAPI left to do",
                why="Under 400 connections at once the write-up's requests/s measure how "
                "many connections a server holds open (8 sync workers serve 8 at a time, "
                "and wrk counted hundreds of socket errors); we compare what each server "
                "spends per request at a steady 400 requests/s that every one of them keeps "
                "up with.",
                bigger="CPU per request carries; on more cores each server's requests/s "
                "grow with its workers, and k6 needs cores of its own to keep up with the "
                "fastest (wrk beside it shows where it falls behind).",
            ),
        ),
        Choice(
            "gunicorn threads or sync workers?",
            ("threads/sync CPU", "threads/sync"),
            "threads",
            "sync",
            About(
                write_up="threads: 1,603 against 526 requests/s",
                why="Per request a thread adds a hand-off and the GIL; the write-up's gap "
                "is the number of connections each worker can hold, which matters under "
                "hundreds of slow or idle clients (put nginx in front of sync workers).",
                bigger=_CPU_CARRIES,
                agrees="threads",
            ),
        ),
        Choice(
            "gunicorn gevent or sync workers?",
            ("gevent/sync CPU", "gevent/sync"),
            "gevent",
            "sync",
            About(
                write_up="gevent: 1,786 against 526 requests/s",
                why="As for threads: gevent holds many connections per worker, which the "
                "write-up's 400 connections rewarded; per request it costs about the same.",
                bigger=_CPU_CARRIES,
                agrees="gevent",
            ),
        ),
        Choice(
            "Tornado: one process or several?",
            ("tornado multi/single",),
            "several processes",
            "one process",
            About(
                write_up="8 processes: 2,781 against 1,147 requests/s",
                why="More processes help only where there are cores for them: on 2 CPUs, "
                "with k6 on one of them, a second process has little to run on.",
                bigger="On N cores N processes approach N times one process's requests/s.",
                agrees="several processes",
            ),
        ),
    ),
    "health-code": (
        Workers(
            "Which mode, and how many workers?",
            "ab POST /analysis/health-code",
            about=About(
                write_up="4 processes did best and 8 was the limit (a 40-core CPU and a GPU, "
                "ab -n200 -c20)",
                why="OCR is CPU work: on 2 CPUs one worker already keeps them busy, so more "
                "workers only share the same cores.",
                bigger="Workers help up to about one per core: run `servelab bench "
                "health-code --workers auto` on the machine you deploy to.",
            ),
        ),
        Choice(
            "`def` or `async def`?",
            ("sync/async",),
            "`def`",
            "`async def`",
            About(
                write_up="`def`: 22 to 25 against 8 to 9 requests/s at 4 to 8 workers; the "
                "write-up also saw `def` fail more often under load, without finding why",
                why="An `async def` endpoint that calls blocking OCR stops the event loop "
                "for the whole call; a `def` endpoint runs in the thread pool.",
                bigger=_CPU_CARRIES,
                agrees="`def`",
            ),
        ),
        Choice(
            "uvicorn or gunicorn?",
            ("gunicorn/uvicorn",),
            "gunicorn + UvicornWorker",
            "uvicorn --workers",
            About(
                write_up="no better for compute-heavy work; worth it for managing processes",
                why=_ONE_PROCESS,
                bigger=_CPU_CARRIES,
                agrees=NO_DIFFERENCE,
            ),
        ),
        OnDevice(
            "GPU or CPU?",
            "no GPU on the machine measured: run `scripts/device/bundle.sh` here, then "
            "`scripts/device/run.sh` on a machine with an NVIDIA GPU and "
            "`servelab report health-code.gpu.json` with what it wrote "
            "(loadtests/README.md, On a GPU machine)",
            About(
                write_up="the CPU, not the GPU, was the bottleneck: one GPU stayed less busy "
                "than the 40-core CPU",
                why="Only the two networks (detection, recognition) run on the GPU; each "
                "request's other work (decoding the JPEG, finding the QR code, cropping, "
                "CTC decoding) stays on the CPU.",
                bigger="The GPU's share grows with the CPUs that feed it: the device run "
                "measures CPU and GPU modes side by side on the same machine "
                "(loadtests/README.md, On a GPU machine).",
            ),
        ),
    ),
    "wait": (
        Choice(
            "`async def` or `def`?",
            ("async/sync",),
            "`async def`",
            "`def`",
            About(
                write_up="`async def`: about 800 against 109 to 142 requests/s (hey -n1000 "
                "-c1000, each request waiting 1 s)",
                why="A `def` endpoint holds one of the thread pool's 40 threads for its whole "
                "wait; `async def` waits on the event loop.",
                bigger="The same on any machine: the `def` side is bounded by threads, not "
                "cores (40 threads / 1 s = 40 requests/s per worker).",
                agrees="`async def`",
            ),
        ),
        Workers(
            "How many workers?",
            "hey /async",
            ("uvicorn", "gunicorn"),
            About(
                write_up="one worker per container is enough where the platform scales containers",
                why="Waiting costs no CPU: one worker holds all 1,000 waiting requests.",
                bigger="Unchanged until the CPU per request matters; then about one worker "
                "per core (`--workers auto`).",
            ),
        ),
        Choice(
            "uvicorn or gunicorn?",
            ("gunicorn/uvicorn CPU", "gunicorn/uvicorn"),
            "gunicorn + UvicornWorker",
            "uvicorn",
            About(
                write_up="about the same: 799 against 816 requests/s for `async def`",
                why=_ONE_PROCESS,
                bigger=_CPU_CARRIES,
                agrees=NO_DIFFERENCE,
            ),
        ),
    ),
    "replicas": (
        Choice(
            "N one-worker replicas behind nginx, or one uvicorn --workers N?",
            ("CPU replicas/uvicorn", "replicas/uvicorn"),
            "N replicas behind nginx",
            "uvicorn --workers N",
            About(
                write_up="one worker per container, the platform scaling containers",
                why="Replicas add a proxy hop per request (nginx here, a load balancer on a "
                "platform); for light requests the hop is a large share of the work, for OCR "
                "a small one.",
                bigger=_CPU_CARRIES,
                agrees="N replicas behind nginx",
            ),
        ),
        Choice(
            "N one-worker replicas behind nginx, or gunicorn -w N?",
            ("CPU replicas/gunicorn", "replicas/gunicorn"),
            "N replicas behind nginx",
            "gunicorn -w N",
            About(
                write_up="one worker per container, the platform scaling containers",
                why="As for uvicorn --workers: the proxy hop is the difference.",
                bigger=_CPU_CARRIES,
                agrees="N replicas behind nginx",
            ),
        ),
        Choice(
            "Which takes less memory: replicas or uvicorn --workers?",
            ("memory replicas/uvicorn",),
            "N replicas behind nginx",
            "uvicorn --workers N",
            About(
                why="Forked workers share the parent's pages until they write them; replicas "
                "started apart share nothing but nginx costs little.",
                bigger="Memory per worker carries; multiply by the workers you run.",
            ),
        ),
        Choice(
            "Which takes less memory: replicas or gunicorn -w?",
            ("memory replicas/gunicorn",),
            "N replicas behind nginx",
            "gunicorn -w N",
            About(bigger="Memory per worker carries; multiply by the workers you run."),
        ),
    ),
    "observability": (
        Within(
            "Do metrics and access logs cost at most 10% of the CPU of GET /hello?",
            "hello observed/bare CPU",
            1.10,
            About(bigger=_CPU_CARRIES),
        ),
        Within(
            "Do metrics and access logs cost at most 10% of the CPU of a 256 KiB download?",
            "download observed/bare CPU",
            1.10,
            About(bigger=_CPU_CARRIES),
        ),
        Within(
            "Do metrics and access logs cost at most 10% of the CPU of a 256 KiB upload?",
            "upload observed/bare CPU",
            1.10,
            About(bigger=_CPU_CARRIES),
        ),
    ),
    "entryeditor": (
        Choice(
            "uWSGI or gunicorn?",
            ("gunicorn/uwsgi CPU", "gunicorn/uwsgi"),
            "gunicorn (gthread)",
            "uWSGI",
            About(
                write_up="not compared: uWSGI (12 processes of 12 threads) behind nginx only",
                why="Both run the same Django code; the difference is the server's own work "
                "per request and its protocol to nginx (uwsgi over a unix socket against "
                "HTTP).",
                bigger=_CPU_CARRIES,
            ),
        ),
    ),
}
