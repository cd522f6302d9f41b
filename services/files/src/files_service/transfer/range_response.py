"""FileRangeResponse: a file, whole (200) or as the byte ranges files_service.transfer.ranges found
(206: one range as is, several as multipart/byteranges), GET or HEAD.

The file comes open: it was opened before the answer started, so an object deleted while it
is sent still sends every byte (the open descriptor keeps the inode), where opening its path
after the headers would find nothing and cut the body short under a 200. A HEAD comes
without one (None): its answer is the headers alone."""

from __future__ import annotations

import secrets

from anyio import AsyncFile
from starlette.responses import Response
from starlette.types import Receive, Scope, Send


class FileRangeResponse(Response):
    def __init__(
        self,
        file: AsyncFile[bytes] | None,
        ranges: list[tuple[int, int]] | None,
        *,
        size: int,
        content_type: str,
        headers: dict[str, str],
        chunk_size: int,
    ) -> None:
        super().__init__(status_code=200 if ranges is None else 206, headers=headers)
        self.file = file
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
        headers_message = {
            "type": "http.response.start",
            "status": self.status_code,
            "headers": self.raw_headers,
        }
        if self.file is None:
            await send(headers_message)
            await send({"type": "http.response.body", "body": b""})
            return
        async with self.file as file:
            await send(headers_message)
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
                        raise RuntimeError(f"{file.name} is shorter than {self.size} bytes")
                    start += len(chunk)
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if self._parts:
                    await send({"type": "http.response.body", "body": b"\r\n", "more_body": True})
        await send({"type": "http.response.body", "body": self._closing if self._parts else b""})
