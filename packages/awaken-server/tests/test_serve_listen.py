"""The listening socket of ``awaken serve`` yields connections with TCP_NODELAY set."""

from __future__ import annotations

import asyncio
import socket

from awaken_server.serve import listen


async def test_accepted_connections_do_not_wait_for_delayed_acks() -> None:
    sock = listen("127.0.0.1", 0)
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            raw = transport.get_extra_info("socket")
            accepted.set_result(raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
    try:
        port = sock.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(accepted, 10) != 0, "TCP_NODELAY is off (Nagle delays)"
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
