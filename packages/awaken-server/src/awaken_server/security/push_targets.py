"""Where A2A push notifications may go: public addresses, or hosts the operator allow-listed.

A push config makes the server POST task updates to a client-chosen URL — without a check, a
client could make it call ``http://169.254.169.254/`` (cloud metadata), ``127.0.0.1`` or the
private network (SSRF). Targets that are, or resolve to, a non-global address (private,
loopback, link-local, reserved) are refused unless their host is in
``security.a2a_push_allowed_hosts``. Delivery checks again (the name may resolve differently).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from urllib.parse import urlsplit

__all__ = ["push_target_problem"]


async def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


async def push_target_problem(url: str, allowed_hosts: Sequence[str]) -> str | None:
    """Why ``url`` may not receive push notifications (``None``: it may)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return "url is not a valid URL"
    if not host:
        return "url must name a host"
    if host in {h.strip().lower().strip("[]") for h in allowed_hosts}:
        return None
    if host == "localhost" or host.endswith(".localhost"):
        return f"url targets a loopback host ({host}); allow it in a2a_push_allowed_hosts"
    try:
        addresses = await _addresses(host)
    except OSError:
        return f"url host does not resolve: {host}"
    for address in addresses:
        if not address.is_global:
            return (
                f"url targets a private, loopback or link-local address ({address}); "
                "allow the host in server.security.a2a_push_allowed_hosts"
            )
    return None
