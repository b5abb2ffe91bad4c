"""Server security at the HTTP edge: hosts, origins, admin-only routes, ids, limits, push targets.

Each module is one check; the request guard (``awaken_server.limits``) and the routes call them.
``docs/security.md`` describes the model (what is open by default, what each token protects).
"""

from __future__ import annotations

from awaken_server.security.config import SecurityConfig
from awaken_server.security.hosts import HostPolicy, is_loopback_host

__all__ = ["HostPolicy", "SecurityConfig", "is_loopback_host"]
