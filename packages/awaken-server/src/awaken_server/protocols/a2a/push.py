"""Push notification configs (stored on the task's thread) and their delivery drivers.

A driver polls the task like a stream does and POSTs each ``StreamResponse`` frame to the
configured URL (``x-a2a-notification-token`` / ``Authorization`` headers when configured);
delivery failures are only logged. It stops after a terminal or interrupted state, or when
the config is deleted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from urllib.parse import urlparse

import httpx
import msgspec
from awaken_contract.ids import id_problem, new_id

from awaken_server.protocols.a2a.errors import A2aError, FieldViolation
from awaken_server.protocols.a2a.tasks import TaskService
from awaken_server.protocols.a2a.wire import PushNotificationConfig, StreamResponse
from awaken_server.security.push_targets import push_target_problem

__all__ = ["PUSH_KEY", "PushConfigs", "normalize_push_config"]

_log = logging.getLogger("awaken.a2a.push")

PUSH_KEY = "a2a.pushNotificationConfigs"


def normalize_push_config(
    config: PushNotificationConfig, task_id: str, tenant: str | None
) -> PushNotificationConfig:
    """Validate ``config`` for ``task_id`` and fill ``id``/``taskId``/``tenant``."""
    violations: list[FieldViolation] = []
    parsed = urlparse(config.url or "")
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        violations.append(("pushNotificationConfig.url", "url must be an absolute http(s) URL"))
    config_id = (config.id or "").strip()
    if config_id and (problem := id_problem(config_id)) is not None:
        violations.append(("pushNotificationConfig.id", f"id {problem}"))
    if config.task_id and config.task_id != task_id:
        violations.append(("pushNotificationConfig.taskId", "taskId must match the task"))
    if config.tenant and tenant and config.tenant != tenant:
        violations.append(("pushNotificationConfig.tenant", "tenant must match the route"))
    if config.authentication is not None and not config.authentication.scheme.strip():
        violations.append(
            ("pushNotificationConfig.authentication.scheme", "scheme must not be empty")
        )
    if violations:
        raise A2aError.invalid(violations)
    return msgspec.structs.replace(
        config, id=(config.id or "").strip() or new_id(), task_id=task_id, tenant=tenant
    )


class _Stored(msgspec.Struct):
    tasks: dict[str, list[PushNotificationConfig]] = msgspec.field(default_factory=dict)


class PushConfigs:
    """CRUD over the configs of a thread's tasks, plus delivery drivers."""

    def __init__(
        self,
        tasks: TaskService,
        client: httpx.AsyncClient | None = None,
        *,
        allowed_hosts: Sequence[str] = (),
    ) -> None:
        self.tasks = tasks
        self._client = client
        self.allowed_hosts = list(allowed_hosts)
        self._drivers: dict[tuple[str, str], asyncio.Task[None]] = {}

    async def check_target(self, config: PushNotificationConfig) -> None:
        """400 (``pushNotificationConfig.url``) unless the URL is an allowed push target."""
        problem = await push_target_problem(config.url or "", self.allowed_hosts)
        if problem is not None:
            raise A2aError.invalid([("pushNotificationConfig.url", problem)])

    async def _load(self, thread_id: str) -> _Stored:
        raw = await self.tasks.read_custom(thread_id, PUSH_KEY)
        try:
            return msgspec.convert(raw, _Stored) if raw else _Stored()
        except msgspec.ValidationError:
            return _Stored()

    async def _save(self, thread_id: str, stored: _Stored) -> None:
        stored.tasks = {k: v for k, v in stored.tasks.items() if v}
        value = msgspec.to_builtins(stored) if stored.tasks else None
        await self.tasks.write_custom(thread_id, PUSH_KEY, value)

    async def list(self, thread_id: str, task_id: str) -> list[PushNotificationConfig]:
        """The task's configs sorted by id."""
        stored = await self._load(thread_id)
        return sorted(stored.tasks.get(task_id, []), key=lambda c: c.id or "")

    async def get(self, thread_id: str, task_id: str, config_id: str) -> PushNotificationConfig:
        """One config (404 ``TASK_NOT_FOUND`` with ``configId`` when absent)."""
        for config in await self.list(thread_id, task_id):
            if config.id == config_id:
                return config
        raise A2aError.reason(
            404,
            "NOT_FOUND",
            "TASK_NOT_FOUND",
            f"push notification config not found: {config_id}",
            taskId=task_id,
            configId=config_id,
        )

    async def upsert(self, thread_id: str, config: PushNotificationConfig) -> None:
        """Insert or replace (by id) a normalized config."""
        assert config.task_id is not None
        stored = await self._load(thread_id)
        configs = [c for c in stored.tasks.get(config.task_id, []) if c.id != config.id]
        configs.append(config)
        stored.tasks[config.task_id] = configs
        await self._save(thread_id, stored)

    async def delete(self, thread_id: str, task_id: str, config_id: str) -> None:
        """Remove a config (404 when absent) and stop its driver in this process (drivers of
        other processes stop before their next delivery)."""
        await self.get(thread_id, task_id, config_id)
        stored = await self._load(thread_id)
        stored.tasks[task_id] = [c for c in stored.tasks.get(task_id, []) if c.id != config_id]
        await self._save(thread_id, stored)
        driver = self._drivers.pop((task_id, config_id), None)
        if driver is not None:
            driver.cancel()

    # ------------------------------------------------------------------ delivery
    def start_driver(
        self, thread_id: str, config: PushNotificationConfig, frames: AsyncIterator[bytes]
    ) -> None:
        """Deliver ``frames`` (encoded ``StreamResponse`` JSON) to ``config.url``."""
        key = (config.task_id or "", config.id or "")
        running = self._drivers.get(key)
        if running is not None and not running.done():
            running.cancel()
        self._drivers[key] = asyncio.create_task(
            self._drive(thread_id, config, frames), name=f"a2a-push-{key[0]}-{key[1]}"
        )

    async def _drive(
        self, thread_id: str, config: PushNotificationConfig, frames: AsyncIterator[bytes]
    ) -> None:
        headers = {"Content-Type": "application/json"}
        if config.token:
            headers["x-a2a-notification-token"] = config.token
        if config.authentication is not None:
            auth = config.authentication
            value = f"{auth.scheme.strip()} {(auth.credentials or '').strip()}".strip()
            headers["Authorization"] = value
        client = self._client or httpx.AsyncClient(timeout=10.0)
        try:
            async for frame in frames:
                current = {c.id for c in await self.list(thread_id, config.task_id or "")}
                if config.id not in current:
                    return
                problem = await push_target_problem(config.url, self.allowed_hosts)
                if problem is not None:
                    _log.warning("push to %s refused: %s", config.url, problem)
                    return
                try:
                    response = await client.post(config.url, content=frame, headers=headers)
                    if response.status_code >= 300:
                        _log.warning("push to %s answered %s", config.url, response.status_code)
                except httpx.HTTPError as exc:
                    _log.warning("push to %s failed: %s", config.url, exc)
        finally:
            if self._client is None:
                await client.aclose()

    async def close(self) -> None:
        """Stop every driver."""
        for task in self._drivers.values():
            task.cancel()
        self._drivers.clear()


def encode_frame(frame: StreamResponse) -> bytes:
    """Compact JSON of a stream frame."""
    return msgspec.json.encode(frame)
