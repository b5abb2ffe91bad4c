"""The ``Host`` allow-list (DNS-rebinding protection) and "is this Origin our own?".

A browser tricked by DNS rebinding talks to ``127.0.0.1`` while sending ``Host: evil.example``;
refusing unknown hosts stops it. By default a loopback-bound server accepts ``localhost``,
``127.0.0.1`` and ``[::1]`` on its own port; a server bound elsewhere accepts any host unless
``security.allowed_hosts`` is set::

    policy = HostPolicy(None, "127.0.0.1", 3000)
    policy.allows("localhost:3000", 3000)     # True
    policy.allows("evil.example:3000", 3000)  # False
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from starlette.types import Scope

__all__ = ["LOOPBACK_NAMES", "HostPolicy", "is_loopback_host", "scope_port", "server_origin"]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals (``127.0.0.0/8``, ``::1``)."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def scope_port(scope: Scope) -> int:
    """The local port the connection arrived on (0 when unknown)."""
    server = scope.get("server")
    return int(server[1]) if server and server[1] is not None else 0


def server_origin(scope: Scope) -> str:
    """``http://<local address>:<port>`` of the socket that accepted the request."""
    server = scope.get("server")
    if not server:
        return "http://localhost"
    host = str(server[0])
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{server[1]}" if server[1] is not None else f"http://{host}"


def _split(host: str) -> tuple[str, str | None]:
    """``name[:port]`` → (lower-case name, port or None); IPv6 keeps its brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host.partition("]")
        port = rest[1:] if rest.startswith(":") else None
        return f"{name}]", port
    name, sep, port = host.rpartition(":")
    return (name, port) if sep else (host, None)


class HostPolicy:
    """Which ``Host`` values the server answers (``patterns`` ``None`` = the default)."""

    def __init__(self, patterns: list[str] | None, bind_host: str, bind_port: int) -> None:
        self.explicit = None if patterns is None else [p.strip() for p in patterns if p.strip()]
        self.bind_port = bind_port
        self.open = self.explicit is None and not is_loopback_host(bind_host)
        if self.explicit is not None and "*" in self.explicit:
            self.open = True

    def patterns(self, port: int) -> list[str]:
        """The allowed hosts as ``name``, ``name:port`` or ``name:*`` entries (``port`` = the
        local port, used by the loopback default when the configured port is 0)."""
        if self.open:
            return ["*"]
        if self.explicit is not None:
            return list(self.explicit)
        actual = self.bind_port or port
        return [f"{name}:{actual}" if actual else f"{name}:*" for name in LOOPBACK_NAMES]

    def sdk_patterns(self, port: int) -> list[str]:
        """The same list in the MCP SDK's syntax (a bare name → ``name`` and ``name:*``)."""
        out: list[str] = []
        for pattern in self.patterns(port):
            out.append(pattern)
            if _split(pattern)[1] is None:
                out.append(f"{pattern}:*")
        return out

    def allows(self, host: str | None, port: int) -> bool:
        """True when ``host`` (a ``Host`` header value) is allowed."""
        if self.open:
            return True
        if not host:
            return False
        name, got = _split(host)
        for pattern in self.patterns(port):
            want_name, want_port = _split(pattern)
            if want_name != name:
                continue
            if want_port in (None, "*") or (got is None and want_port == "80") or got == want_port:
                return True
        return False

    def allows_origin(self, origin: str, port: int) -> bool:
        """True when ``origin`` (``scheme://host[:port]``) names this server itself."""
        try:
            parts = urlsplit(origin.strip())
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.netloc or self.open:
            return False
        return self.allows(parts.netloc, port)
