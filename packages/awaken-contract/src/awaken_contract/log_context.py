"""Run identity on every log line: a context variable, a logging filter and a JSON formatter.

The loop binds the running run's ids (:func:`bind_run`) for the duration of the run; a
:class:`RunContextFilter` on a handler copies them onto each record as ``run_id``,
``thread_id`` and ``agent_id`` (empty outside a run); :class:`JsonLogFormatter` writes one JSON
object per line. :func:`configure_logging` installs both on the root logger.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from awaken_contract.contract.identity import RunIdentity

__all__ = [
    "JsonLogFormatter",
    "LogFormat",
    "RunContextFilter",
    "RunLogBinding",
    "RunLogToken",
    "bind_run",
    "configure_logging",
    "current_run_ids",
    "enter_run",
    "leave_run",
]

LogFormat = Literal["text", "json"]
_IDS = ("run_id", "thread_id", "agent_id")
_EMPTY = ("", "", "")
# The running run's identity itself (an untracked msgspec struct: no tuple, no extra object
# for the garbage collector per run); ``None`` outside a run.
_CURRENT: contextvars.ContextVar[RunIdentity | None] = contextvars.ContextVar(
    "awaken_run_log_context", default=None
)
_TEXT_FORMAT = (
    "%(asctime)s %(levelname)s %(name)s [run=%(run_id)s thread=%(thread_id)s "
    "agent=%(agent_id)s] %(message)s"
)
# Attributes every LogRecord has; anything else passed via ``extra=`` goes into the JSON.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    *_IDS,
}


def current_run_ids() -> tuple[str, str, str]:
    """``(run_id, thread_id, agent_id)`` of the run this code runs in (empty strings if none)."""
    identity = _CURRENT.get()
    if identity is None:
        return _EMPTY
    return identity.run_id, identity.thread_id, identity.agent_id


RunLogToken = contextvars.Token["RunIdentity | None"]


def enter_run(identity: RunIdentity) -> RunLogToken:
    """Tag log lines with ``identity``'s ids until :func:`leave_run` (the loop's form of
    :func:`bind_run`: no context-manager object per run)."""
    return _CURRENT.set(identity)


def leave_run(token: RunLogToken) -> None:
    """Restore the ids bound before the :func:`enter_run` that returned ``token``."""
    _CURRENT.reset(token)


class RunLogBinding:
    """The context manager :func:`bind_run` returns."""

    __slots__ = ("_identity", "_token")

    def __init__(self, identity: RunIdentity) -> None:
        self._identity = identity
        self._token: RunLogToken | None = None

    def __enter__(self) -> None:
        self._token = _CURRENT.set(self._identity)

    def __exit__(self, *exc: object) -> None:
        token = self._token
        if token is not None:
            self._token = None
            _CURRENT.reset(token)


def bind_run(identity: RunIdentity) -> RunLogBinding:
    """Tag log lines with ``identity``'s ids until the block ends (nested runs restore)."""
    return RunLogBinding(identity)


class RunContextFilter(logging.Filter):
    """Adds ``run_id``, ``thread_id`` and ``agent_id`` to every record (never drops one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        run_id, thread_id, agent_id = current_run_ids()
        if not hasattr(record, "run_id"):
            record.run_id = run_id
        if not hasattr(record, "thread_id"):
            record.thread_id = thread_id
        if not hasattr(record, "agent_id"):
            record.agent_id = agent_id
        return True


class JsonLogFormatter(logging.Formatter):
    """One JSON object per record: ``ts``, ``level``, ``logger``, ``message``, the run ids,
    ``exc_info`` when present, and any ``extra=`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in _IDS:
            value = getattr(record, key, "")
            if value:
                data[key] = value
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, ensure_ascii=False)


def configure_logging(
    log_format: LogFormat = "text", level: int | str = logging.INFO, stream: object = None
) -> logging.Handler:
    """Replace the root logger's handlers with one stream handler that carries the run ids."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)  # type: ignore[arg-type]
    handler.addFilter(RunContextFilter())
    handler.setFormatter(
        JsonLogFormatter() if log_format == "json" else logging.Formatter(_TEXT_FORMAT)
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
