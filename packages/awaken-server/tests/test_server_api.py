"""Black-box tests of the native HTTP API on a real uvicorn server (httpx over loopback)."""

from __future__ import annotations

import asyncio

import pytest

from conftest import LiveServer  # type: ignore[import-not-found]
