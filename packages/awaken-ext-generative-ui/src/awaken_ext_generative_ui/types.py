"""A2UI v0.8 server→client messages: exactly one of four keys per message object.

``surfaceUpdate`` (components of a surface), ``dataModelUpdate`` (data bound by path),
``beginRendering`` (show the surface from its root) and ``deleteSurface``. Components form a
flat list linked by ids; each ``component`` is a single-key object ``{TypeName: {props}}``.
The JSON keys are camelCase as on the wire; there is no ``version`` field (v0.9 only).
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec

__all__ = [
    "A2UI_MESSAGE_KEYS",
    "A2uiComponent",
    "A2uiMessage",
    "A2uiMessageKind",
    "BeginRendering",
    "DataEntry",
    "DataModelUpdate",
    "DeleteSurface",
    "SurfaceUpdate",
]


class A2uiMessageKind(enum.StrEnum):
    """The four v0.8 message keys, in the order normalisation looks for them."""

    SURFACE_UPDATE = "surfaceUpdate"
    DATA_MODEL_UPDATE = "dataModelUpdate"
    BEGIN_RENDERING = "beginRendering"
    DELETE_SURFACE = "deleteSurface"


#: The message keys in order (``surfaceUpdate``, ``dataModelUpdate``, ``beginRendering``,
#: ``deleteSurface``).
A2UI_MESSAGE_KEYS: tuple[str, ...] = tuple(kind.value for kind in A2uiMessageKind)


class A2uiComponent(
    msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, forbid_unknown_fields=True
):
    """``{id, weight?, component: {TypeName: {props}}}``."""

    id: str
    component: dict[str, dict[str, Any]]
    weight: float | None = None

    @property
    def type_name(self) -> str:
        """The component's type (``Card``, ``Text``, …)."""
        return next(iter(self.component))


class SurfaceUpdate(
    msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, forbid_unknown_fields=True
):
    """Add or replace components of a surface."""

    surface_id: str
    components: list[A2uiComponent]


class DataEntry(
    msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, forbid_unknown_fields=True
):
    """``{key, valueString? | valueNumber? | valueBoolean? | valueMap?}``."""

    key: str
    value_string: str | None = None
    value_number: float | None = None
    value_boolean: bool | None = None
    value_map: list[dict[str, Any]] | None = None


class DataModelUpdate(
    msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, forbid_unknown_fields=True
):
    """Write data-model entries at ``path`` (the root when absent)."""

    surface_id: str
    contents: list[DataEntry]
    path: str | None = None


class BeginRendering(
    msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, forbid_unknown_fields=True
):
    """Render the surface from component ``root``."""

    surface_id: str
    root: str
    styles: dict[str, str] | None = None


class DeleteSurface(
    msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, forbid_unknown_fields=True
):
    """Remove a surface."""

    surface_id: str


class A2uiMessage(
    msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, forbid_unknown_fields=True
):
    """One message: exactly one of the four fields is set."""

    surface_update: SurfaceUpdate | None = None
    data_model_update: DataModelUpdate | None = None
    begin_rendering: BeginRendering | None = None
    delete_surface: DeleteSurface | None = None

    def __post_init__(self) -> None:
        present = [kind for kind in A2uiMessageKind if self._body(kind) is not None]
        if len(present) != 1:
            raise ValueError(
                f"an A2UI message needs exactly one of {', '.join(A2UI_MESSAGE_KEYS)}; "
                f"got {len(present)}"
            )

    def _body(self, kind: A2uiMessageKind) -> Any:
        return {
            A2uiMessageKind.SURFACE_UPDATE: self.surface_update,
            A2uiMessageKind.DATA_MODEL_UPDATE: self.data_model_update,
            A2uiMessageKind.BEGIN_RENDERING: self.begin_rendering,
            A2uiMessageKind.DELETE_SURFACE: self.delete_surface,
        }[kind]

    @property
    def kind(self) -> A2uiMessageKind:
        """Which of the four message types this is."""
        return next(kind for kind in A2uiMessageKind if self._body(kind) is not None)

    @property
    def surface_id(self) -> str:
        """The surface the message addresses."""
        body: SurfaceUpdate | DataModelUpdate | BeginRendering | DeleteSurface = self._body(
            self.kind
        )
        return body.surface_id

    @classmethod
    def from_json(cls, data: Any) -> A2uiMessage:
        """Decode wire JSON (raises ``msgspec.ValidationError``)."""
        message: A2uiMessage = msgspec.convert(data, cls)
        return message

    def to_json(self) -> dict[str, Any]:
        """The wire JSON (absent optional fields omitted)."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        return data
