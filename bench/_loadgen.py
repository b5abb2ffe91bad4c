"""A lean HTTP/1.1 load generator on raw asyncio streams (for ``server_http.py``).

httpx spends about a millisecond of CPU per streamed request, which on a 2-core machine caps
what a benchmark can show of the server. This client does only what the benchmark needs: one
keep-alive connection per concurrent worker, ``POST`` with a fixed JSON body, the chunked
response read to its last chunk and checked for ``run_finish``.
"""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

__all__ = ["load"]


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, host: str, port: int) -> _Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def post(self, request: bytes) -> bytes:
        """Send one request; the response body (chunked or with a length)."""
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = head[9:12]
        if status != b"200":
            raise RuntimeError(f"POST answered {status.decode()}: {head!r}")
        lower = head.lower()
        if b"transfer-encoding: chunked" not in lower:
            start = lower.index(b"content-length:") + 15
            length = int(lower[start : lower.index(b"\r\n", start)])
            return await self.reader.readexactly(length)
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n"))[:-2].split(b";")[0], 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)

    def close(self) -> None:
        self.writer.close()


def _request(host: str, port: int, path: str, body: bytes) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def load(
    url: str, body: bytes, runs: int, concurrency: int, *, warmup: int = 20
) -> tuple[float, list[float]]:
    """(runs/s, latency of every run in seconds) for ``runs`` POSTs, ``concurrency`` at once."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    request = _request(host, port, (parts.path or "") + "/v1/runs", body)
    connections = [await _Connection.open(host, port) for _ in range(concurrency)]
    try:
        for i in range(warmup):
            await _checked(connections[i % concurrency], request)
        latencies: list[float] = []
        todo = iter(range(runs))

        async def worker(connection: _Connection) -> None:
            for _ in todo:
                start = time.perf_counter()
                await _checked(connection, request)
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(worker(c) for c in connections))
        return runs / (time.perf_counter() - start), latencies
    finally:
        for connection in connections:
            connection.close()


async def _checked(connection: _Connection, request: bytes) -> None:
    body = await connection.post(request)
    if b"run_finish" not in body:
        raise RuntimeError(f"the stream ended without run_finish: {body[-200:]!r}")
