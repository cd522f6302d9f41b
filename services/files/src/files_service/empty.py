"""The files benchmarks' floor: `files_service.empty:app` reads a request's body, drops it
and answers 200 with no body, so the same server running it shows what the server alone
spends on a request (the empty/get and empty/upload rows of loadtests/families/files.toml).
"""

from floor_apps import asgi_app

app = asgi_app(b"", "application/octet-stream")
