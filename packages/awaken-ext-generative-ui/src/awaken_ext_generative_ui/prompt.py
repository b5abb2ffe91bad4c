"""The ``generative-ui`` section and the instructions injected before every inference."""

from __future__ import annotations

from awaken_contract.registry_spec import PluginConfigKey
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "A2UI_INSTRUCTIONS_TEMPLATE",
    "DEFAULT_CATALOG_ID",
    "A2uiPromptConfig",
    "A2uiPromptConfigKey",
    "render_instructions",
]

#: Catalog used when none is configured.
DEFAULT_CATALOG_ID = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"


class A2uiPromptConfig(BaseModel):
    """The ``generative-ui`` section; a field set here wins over the plugin's own value.

    ``instructions`` replaces the built-in text entirely; otherwise ``catalog_id`` is named in
    it and ``examples`` are appended between ``---BEGIN/END A2UI EXAMPLES---`` markers.
    """

    model_config = ConfigDict(extra="forbid")

    catalog_id: str | None = Field(None, description="Component catalog the frontend registered")
    examples: str | None = Field(None, description="Extra examples appended to the instructions")
    instructions: str | None = Field(None, description="Replaces the built-in instructions")

    def overlaid_by(self, section: A2uiPromptConfig) -> A2uiPromptConfig:
        """These values with every field present in ``section`` replaced."""
        return self.model_copy(update={f: getattr(section, f) for f in section.model_fields_set})


class A2uiPromptConfigKey(PluginConfigKey[A2uiPromptConfig]):
    """Agent-spec section ``generative-ui`` → :class:`A2uiPromptConfig`."""

    KEY = "generative-ui"
    CONFIG = A2uiPromptConfig


A2UI_INSTRUCTIONS_TEMPLATE = """\
You can show the user structured, interactive UI by calling the `render_a2ui` tool with A2UI \
v0.8 messages. The frontend renders them with the component catalog {{CATALOG_ID}}.

How to call it:
- Put exactly one message key at the top level of the arguments (surfaceUpdate, \
dataModelUpdate, beginRendering or deleteSurface), or send several in order under \
`messages`. Add no other wrapper and no `version` field.
- Build a new surface in this order: surfaceUpdate (the components), dataModelUpdate (the \
data, if any), then beginRendering. Send beginRendering only once its root component exists.
- Send deleteSurface with the surfaceId when the surface is no longer needed.

Components:
- The component list is flat. Every entry has an `id` and a `component` object with exactly \
one key, the component type: {"id": "title", "component": {"Text": {...}}}.
- Parents name their children by id: `child` for one, `children` \
{"explicitList": ["a", "b"]} for several (Column, Row, List, Card's content).
- Text copy goes under `text`: {"literalString": "Hello"} or a binding {"path": "/a/b"}.
- TextField binds its value through `text` (not `value`), e.g. "text": {"path": "/form/name"}.
- MultipleChoice uses `options` (a list of {"label": {"literalString": "..."}, "value": \
"..."}), `selections` (a binding to an array path, e.g. {"path": "/form/tags"}) and \
`maxAllowedSelections`. It has no `label`; put a Text above it instead. Give default \
selections with a valueMap whose keys are "0", "1", ...
- DateTimeInput defaults are local date-time strings without a timezone, e.g. \
"2026-04-10T09:00".
- A Button has a `child` (its label Text) and an `action`: {"name": "submit", "context": \
[{"key": "name", "value": {"path": "/form/name"}}]} — no `event` wrapper.

Data model:
- dataModelUpdate `contents` entries are {"key": ..., "valueString" | "valueNumber" | \
"valueBoolean" | "valueMap": ...}; a valueMap is a list of such entries. `path` says where \
the entries are written (e.g. "/form").
- When you update a surface after a user action, resend every value that is still visible \
and bound, not only the ones that changed.
- A user message starting with `A2UI action:` reports a button press; treat its `context` \
as the current values of the form.

Example: an order form.
1. surfaceUpdate:
{"surfaceUpdate": {"surfaceId": "order-form", "components": [
  {"id": "root", "component": {"Card": {"child": "form"}}},
  {"id": "form", "component": {"Column": {"children": {"explicitList": \
["heading", "name", "size", "delivery", "submit"]}}}},
  {"id": "heading", "component": {"Text": {"text": {"literalString": "New order"}}}},
  {"id": "name", "component": {"TextField": {"label": {"literalString": "Name"}, \
"text": {"path": "/order/name"}}}},
  {"id": "size", "component": {"MultipleChoice": {"options": [
    {"label": {"literalString": "Small"}, "value": "s"},
    {"label": {"literalString": "Large"}, "value": "l"}],
    "selections": {"path": "/order/size"}, "maxAllowedSelections": 1}}},
  {"id": "delivery", "component": {"DateTimeInput": {"value": {"path": "/order/delivery"}, \
"enableDate": true, "enableTime": true}}},
  {"id": "submit-label", "component": {"Text": {"text": {"literalString": "Place order"}}}},
  {"id": "submit", "component": {"Button": {"child": "submit-label", "action": \
{"name": "place_order", "context": [
    {"key": "name", "value": {"path": "/order/name"}},
    {"key": "size", "value": {"path": "/order/size"}},
    {"key": "delivery", "value": {"path": "/order/delivery"}}]}}}}]}}
2. dataModelUpdate:
{"dataModelUpdate": {"surfaceId": "order-form", "path": "/order", "contents": [
  {"key": "name", "valueString": ""},
  {"key": "size", "valueMap": [{"key": "0", "valueString": "s"}]},
  {"key": "delivery", "valueString": "2026-04-10T09:00"}]}}
3. beginRendering:
{"beginRendering": {"surfaceId": "order-form", "root": "root"}}
"""


def render_instructions(config: A2uiPromptConfig) -> str:
    """``instructions`` verbatim, else the built-in text for the catalog plus examples."""
    if config.instructions is not None:
        return config.instructions
    catalog = config.catalog_id if config.catalog_id is not None else DEFAULT_CATALOG_ID
    text = A2UI_INSTRUCTIONS_TEMPLATE.replace("{{CATALOG_ID}}", catalog)
    if config.examples is not None:
        text += "\n\n---BEGIN A2UI EXAMPLES---\n" + config.examples + "\n---END A2UI EXAMPLES---"
    return text
