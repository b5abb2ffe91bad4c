"""ConfigSync: config written through another instance's config API reaches this one.

Every instance serving one store re-applies its :class:`ConfigRuntimeManager` when the stored
documents change and publishes the rebuilt runtime (runs in flight keep theirs):

* stores that push changes (:class:`ConfigChangeNotifier`, e.g. PostgreSQL ``LISTEN/NOTIFY``)
  wake it at once; a dropped listener is re-subscribed with exponential backoff, and every
  (re)subscription triggers a check, so changes missed while disconnected are picked up;
* a slow digest check every ``poll_interval`` covers stores without notifications and lost
  notifications.

Changes are debounced (a burst of writes is one apply), applied one at a time under the
manager's lock, and skipped when the stored documents' digest equals the last applied one
(the writing instance already applied its own write). A failing apply keeps the current runtime.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

from awaken_contract.contract.storage import ConfigChangeEvent, ConfigChangeNotifier
from awaken_contract.runtime import AgentRuntimeApi
from pydantic import BaseModel, ConfigDict

from awaken_server.config_manager import ConfigRuntimeManager

__all__ = ["ConfigSync", "ConfigSyncConfig"]

_log = logging.getLogger("awaken.config_sync")


class ConfigSyncConfig(BaseModel):
    """How changes written by other instances are picked up (durations in seconds)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    debounce: timedelta = timedelta(milliseconds=100)
    """Quiet time after a change notification before re-applying (bursts apply once)."""
    poll_interval: timedelta = timedelta(seconds=10)
    """Digest check of the stored documents (the fallback for stores without notifications)."""
    reconnect_initial: timedelta = timedelta(milliseconds=200)
    reconnect_max: timedelta = timedelta(seconds=10)
    """Backoff bounds for re-subscribing after the change listener dropped."""


class ConfigSync:
    """Background tasks keeping ``publish``-ed runtime in step with the config store."""

    def __init__(
        self,
        manager: ConfigRuntimeManager,
        publish: Callable[[AgentRuntimeApi], None],
        config: ConfigSyncConfig | None = None,
    ) -> None:
        self.manager = manager
        self.publish = publish
        self.config = config or ConfigSyncConfig()
        self.applies = 0
        """Runtimes rebuilt and published because the store changed."""
        self.subscriptions = 0
        """Times the change listener was (re)attached."""
        self.checks = 0
        """Digest comparisons made (each notification burst or poll tick is one)."""
        self._dirty = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Start the applier, the digest poll and (for notifying stores) the listener."""
        if self._tasks or not self.config.enabled:
            return
        self._tasks = [
            asyncio.create_task(self._apply_loop(), name="awaken-config-apply"),
            asyncio.create_task(self._poll_loop(), name="awaken-config-poll"),
        ]
        if isinstance(self.manager.config_store, ConfigChangeNotifier):
            notifier = self.manager.config_store
            self._tasks.append(
                asyncio.create_task(self._listen_loop(notifier), name="awaken-config-listen")
            )

    async def stop(self) -> None:
        """Cancel the background tasks and wait for them."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def changed(self) -> None:
        """Schedule a check (debounced)."""
        self._dirty.set()

    async def sync_once(self) -> bool:
        """Re-apply if the stored documents differ from the applied ones; ``True`` if applied."""
        manager = self.manager
        self.checks += 1
        async with manager.lock:
            if await manager.stored_digest() == manager.applied_digest:
                return False
            try:
                runtime = await manager.apply()
            except Exception as exc:
                _log.warning("config change not applied (current runtime kept): %s", exc)
                return False
            self.publish(runtime)
        self.applies += 1
        _log.info("config change applied: runtime republished")
        return True

    async def _apply_loop(self) -> None:
        debounce = self.config.debounce.total_seconds()
        while True:
            await self._dirty.wait()
            await asyncio.sleep(debounce)
            self._dirty.clear()
            try:
                await self.sync_once()
            except Exception:
                _log.warning("config check failed; retried at the next change", exc_info=True)

    async def _poll_loop(self) -> None:
        interval = self.config.poll_interval.total_seconds()
        while True:
            await asyncio.sleep(interval)
            self.changed()

    async def _listen_loop(self, notifier: ConfigChangeNotifier) -> None:
        initial = self.config.reconnect_initial.total_seconds()
        delay = initial
        while True:
            events = notifier.subscribe()
            try:
                async with _attached(events):
                    self.subscriptions += 1
                    delay = initial
                    self.changed()  # anything written while not listening
                    async for _event in events:
                        self.changed()
                _log.warning("config change listener ended; re-subscribing")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                _log.warning("config change listener dropped (%s); retry in %.1fs", exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.config.reconnect_max.total_seconds())


@contextlib.asynccontextmanager
async def _attached(events: AsyncIterator[ConfigChangeEvent]) -> AsyncIterator[None]:
    """Enter the subscription when it is a context manager (the listener is attached on
    entry); close it on exit."""
    if isinstance(events, contextlib.AbstractAsyncContextManager):
        async with events:
            yield
        return
    try:
        yield
    finally:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            await closer()
