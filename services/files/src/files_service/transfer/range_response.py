"""FileRangeResponse: a file, whole (200) or as the byte ranges files_service.transfer.ranges found
(206: one range as is, several as multipart/byteranges), GET or HEAD."""

from __future__ import annotations

import secrets
from pathlib import Path

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send


class FileRangeResponse(Response):
    def __init__(
        self,
        path: Path,
        ranges: list[tuple[int, int]] | None,
        *,
        size: int,
        content_type: str,
        headers: dict[str, str],
        chunk_size: int,
    ) -> None:
        super().__init__(status_code=200 if ranges is None else 206, headers=headers)
        self.path = path
        self.ranges = ranges or [(0, size)]
        self.chunk_size = chunk_size
        self.size = size
        self.headers["Accept-Ranges"] = "bytes"
        self._parts: list[bytes] = []
        self._boundary = ""
        if ranges is not None and len(ranges) > 1:
            self._boundary = secrets.token_hex(13)
            self._parts = [
                f"--{self._boundary}\r\nContent-Type: {content_type}\r\n"
                f"Content-Range: bytes {start}-{end - 1}/{size}\r\n\r\n".encode("latin-1")
                for start, end in ranges
            ]
            self.headers["Content-Type"] = f"multipart/byteranges; boundary={self._boundary}"
            length = sum(
                len(p) + end - start + 2
                for p, (start, end) in zip(self._parts, ranges, strict=True)
            )
            self.headers["Content-Length"] = str(length + len(self._closing))
        else:
            start, end = self.ranges[0]
            self.headers["Content-Type"] = content_type
            self.headers["Content-Length"] = str(end - start)
            if ranges is not None:
                self.headers["Content-Range"] = f"bytes {start}-{end - 1}/{size}"

    @property
    def _closing(self) -> bytes:
        return f"--{self._boundary}--".encode("latin-1")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        if scope["method"].upper() == "HEAD":
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        async with await anyio.open_file(self.path, "rb") as file:
            for index, (start, end) in enumerate(self.ranges):
                if self._parts:
                    await send(
                        {
                            "type": "http.response.body",
                            "body": self._parts[index],
                            "more_body": True,
                        }
                    )
                await file.seek(start)
                while start < end:
                    chunk = await file.read(min(self.chunk_size, end - start))
                    if not chunk:
                        raise RuntimeError(f"{self.path} is shorter than {self.size} bytes")
                    start += len(chunk)
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if self._parts:
                    await send({"type": "http.response.body", "body": b"\r\n", "more_body": True})
        await send({"type": "http.response.body", "body": self._closing if self._parts else b""})
