"""The inference override key: model/temperature/… overrides of the current step."""

from __future__ import annotations

import msgspec

from awaken_contract.registry_spec import InferenceOverride
from awaken_contract.state import KeyScope, MergeStrategy, StateKey


class InferenceOverrideState(msgspec.Struct):
    """``{"overrides": InferenceOverride | null}`` accumulated for the current step."""

    overrides: InferenceOverride | None = None


class MergeInferenceOverride(msgspec.Struct, frozen=True):
    """Merge an override (field-wise, last non-null wins)."""

    override: InferenceOverride


class ClearInferenceOverride(msgspec.Struct, frozen=True, gc=False):
    """Reset the accumulated override."""


class InferenceOverrideKey(
    StateKey[InferenceOverrideState, MergeInferenceOverride | ClearInferenceOverride]
):
    """``__runtime.inference_override_state`` (commutative)."""

    KEY = "__runtime.inference_override_state"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls,
        value: InferenceOverrideState,
        update: MergeInferenceOverride | ClearInferenceOverride,
    ) -> InferenceOverrideState:
        if isinstance(update, ClearInferenceOverride):
            return InferenceOverrideState()
        current = value.overrides
        merged = (
            current.merged(update.override)
            if current is not None
            else update.override.model_copy(deep=True)
        )
        return InferenceOverrideState(merged)
