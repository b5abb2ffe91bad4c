"""Constants of the OpenTelemetry GenAI semantic conventions used by the sinks."""

from __future__ import annotations

__all__ = ["DURATION_BUCKETS", "TOKEN_BUCKETS"]

#: ``gen_ai.client.token.usage`` explicit bucket boundaries (GenAI semantic conventions).
TOKEN_BUCKETS = (
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
)  # fmt: skip
#: ``gen_ai.client.operation.duration`` explicit bucket boundaries, seconds.
DURATION_BUCKETS = (
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
)  # fmt: skip
