"""Model capabilities enforced before a call: the input modalities a ``ModelSpec`` declares.

A model that lists ``input_modalities`` is never sent content it does not accept: a request
with an image (audio, video, document) for a text-only model fails at once with
``UnsupportedModality`` instead of a provider error after a paid round-trip. Models that
declare no modalities are not checked (their capabilities are unknown).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from awaken_contract.contract.content import (
    AudioBlock,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    ToolResultBlock,
    VideoBlock,
)
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import LlmStreamEvent, StreamResult
from awaken_contract.errors import UnsupportedModality
from awaken_contract.registry_spec import Modality, ModelSpec

__all__ = ["ModalityCheckedExecutor", "input_modalities", "with_capability_checks"]

_MODALITY_OF: dict[type[ContentBlock], Modality] = {
    ImageBlock: Modality.IMAGE,
    AudioBlock: Modality.AUDIO,
    VideoBlock: Modality.VIDEO,
    DocumentBlock: Modality.DOCUMENT,
}


def input_modalities(blocks: Iterable[ContentBlock]) -> set[Modality]:
    """The non-text modalities in ``blocks`` (tool results included)."""
    found: set[Modality] = set()
    for block in blocks:
        if isinstance(block, ToolResultBlock):
            found |= input_modalities(block.content)
        modality = _MODALITY_OF.get(type(block))
        if modality is not None:
            found.add(modality)
    return found


class ModalityCheckedExecutor(LlmExecutor):
    """Refuses requests carrying input ``model`` does not declare, then delegates."""

    def __init__(self, inner: LlmExecutor, model: ModelSpec) -> None:
        self.inner = inner
        self.model = model
        self._accepted = set(model.input_modalities)

    def name(self) -> str:
        return self.inner.name()

    def check(self, request: InferenceRequest) -> None:
        """Raise ``UnsupportedModality`` naming what the model does not accept."""
        used: set[Modality] = set()
        for message in request.messages:
            used |= input_modalities(message.content)
        refused = sorted(used - self._accepted)
        if refused:
            accepted = ", ".join(sorted(self._accepted))
            raise UnsupportedModality(
                f"model {self.model.id} does not accept {', '.join(refused)} input "
                f"(input_modalities: {accepted})"
            )

    def supports_response_format(self, request: InferenceRequest) -> bool:
        return self.inner.supports_response_format(request)

    def streams(self) -> bool:
        return self.inner.streams()

    async def execute(self, request: InferenceRequest) -> StreamResult:
        self.check(request)
        return await self.inner.execute(request)

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        self.check(request)
        async for event in self.inner.stream(request):
            yield event


def with_capability_checks(inner: LlmExecutor, model: ModelSpec) -> LlmExecutor:
    """``inner`` behind a :class:`ModalityCheckedExecutor` when ``model`` declares modalities."""
    if not model.input_modalities:
        return inner
    return ModalityCheckedExecutor(inner, model)
