"""Test support: a minimal OTLP/HTTP collector on 127.0.0.1 (for tests of exporters)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OtlpReceiver"]


class OtlpReceiver:
    """Accepts OTLP/HTTP exports and keeps (path, content type, body) of every POST;
    ``close()`` stops it."""

    def __init__(self) -> None:
        self.received: list[tuple[str, str, bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.received.append((self.path, self.headers.get("Content-Type", ""), body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def bodies(self, path: str) -> list[bytes]:
        return [body for p, _, body in self.received if p == path]

    def trace_exports(self) -> list[Any]:
        """Every ``ExportTraceServiceRequest`` that arrived at ``/v1/traces``, decoded."""
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        exports = []
        for body in self.bodies("/v1/traces"):
            export = ExportTraceServiceRequest()
            export.ParseFromString(body)
            exports.append(export)
        return exports

    def spans(self) -> dict[str, list[Any]]:
        """Every span that arrived, by name (protobuf ``Span`` messages)."""
        found: dict[str, list[Any]] = {}
        for export in self.trace_exports():
            for rs in export.resource_spans:
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        found.setdefault(span.name, []).append(span)
        return found

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
