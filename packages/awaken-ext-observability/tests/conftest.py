from __future__ import annotations

from collections.abc import Iterator

import pytest

from .support import Otel


@pytest.fixture
def otel() -> Iterator[Otel]:
    """OTel SDK providers exporting to memory (shut down after the test)."""
    o = Otel()
    yield o
    o.tracer_provider.shutdown()
    o.meter_provider.shutdown()
