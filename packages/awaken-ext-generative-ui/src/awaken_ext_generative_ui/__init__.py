"""Generative UI for Awaken agents: A2UI v0.8 surfaces rendered by the frontend.

The plugin registers ``render_a2ui`` (validates the model's A2UI messages and publishes them
as an ``a2ui-surface`` activity) and injects instructions for writing them.

```python
from awaken_ext_generative_ui import A2uiPlugin

builder.with_plugin("generative-ui", A2uiPlugin.with_catalog_id("my-catalog"))
spec = AgentSpec("ui-agent").with_model("m").with_plugin("generative-ui")
```
"""

from awaken_ext_generative_ui.plugin import (
    A2UI_INSTRUCTIONS_KEY,
    GENERATIVE_UI_PLUGIN_ID,
    A2uiInstructionsHook,
    A2uiPlugin,
)
from awaken_ext_generative_ui.prompt import (
    A2UI_INSTRUCTIONS_TEMPLATE,
    DEFAULT_CATALOG_ID,
    A2uiPromptConfig,
    A2uiPromptConfigKey,
    render_instructions,
)
from awaken_ext_generative_ui.schema import RENDER_A2UI_PARAMETERS, message_schemas
from awaken_ext_generative_ui.tool import (
    A2UI_ACTIVITY_TYPE,
    A2UI_OPERATIONS_KEY,
    RENDER_A2UI_TOOL_ID,
    RenderA2uiTool,
    a2ui_activity,
)
from awaken_ext_generative_ui.types import (
    A2UI_MESSAGE_KEYS,
    A2uiComponent,
    A2uiMessage,
    A2uiMessageKind,
    BeginRendering,
    DataEntry,
    DataModelUpdate,
    DeleteSurface,
    SurfaceUpdate,
)
from awaken_ext_generative_ui.validation import (
    NO_MESSAGE_ERROR,
    extract_messages,
    normalize,
    semantic_errors,
    validate_arguments,
)

__all__ = [
    "A2UI_ACTIVITY_TYPE",
    "A2UI_INSTRUCTIONS_KEY",
    "A2UI_INSTRUCTIONS_TEMPLATE",
    "A2UI_MESSAGE_KEYS",
    "A2UI_OPERATIONS_KEY",
    "DEFAULT_CATALOG_ID",
    "GENERATIVE_UI_PLUGIN_ID",
    "NO_MESSAGE_ERROR",
    "RENDER_A2UI_PARAMETERS",
    "RENDER_A2UI_TOOL_ID",
    "A2uiComponent",
    "A2uiInstructionsHook",
    "A2uiMessage",
    "A2uiMessageKind",
    "A2uiPlugin",
    "A2uiPromptConfig",
    "A2uiPromptConfigKey",
    "BeginRendering",
    "DataEntry",
    "DataModelUpdate",
    "DeleteSurface",
    "RenderA2uiTool",
    "SurfaceUpdate",
    "a2ui_activity",
    "extract_messages",
    "message_schemas",
    "normalize",
    "render_instructions",
    "semantic_errors",
    "validate_arguments",
]
