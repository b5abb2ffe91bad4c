"""The request-only view: ``[system…, summary, bridge…, tail…]``.

The hook adds the summary as a ``session`` context message and tells :class:`HistoryCut` the
last message it covers; the transform then drops the covered history from the request (the
thread's transcript keeps every message).
"""

from __future__ import annotations

from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.plugin import InferenceRequestTransform, TransformOutput

__all__ = ["HistoryCut"]


class HistoryCut(InferenceRequestTransform):
    """Drops the history up to each thread's summary boundary (by message id)."""

    def __init__(self) -> None:
        self._through: dict[str, str] = {}

    def set(self, thread_id: str, through_id: str | None) -> None:
        """Cut ``thread_id``'s requests after message ``through_id`` (``None``: no cut)."""
        if through_id is None:
            self._through.pop(thread_id, None)
        else:
            self._through[thread_id] = through_id

    def transform(self, messages: list[Message], tools: list[ToolDescriptor]) -> TransformOutput:
        boundaries = set(self._through.values())
        cut = next(
            (i for i in range(len(messages) - 1, -1, -1) if messages[i].id in boundaries), None
        )
        if cut is None:
            return TransformOutput(messages)
        lead = 0
        while lead < cut and messages[lead].role is Role.SYSTEM:
            lead += 1
        return TransformOutput([*messages[:lead], *messages[cut + 1 :]])
