"""Deferred tool loading: rarely used tool schemas stay out of the prompt until needed.

Tools are *eager* (schema sent every step) or *deferred* (only the id is listed; the model
loads the schema with ``ToolSearch``, which promotes the tool). A discounted-Beta model moves
idle promoted tools back, and per-agent usage priors persist in the profile store.

```python
from awaken_ext_deferred_tools import DeferredToolsPlugin, DeferredToolsConfig

spec = AgentSpec("ops").with_model("m").with_plugin("ext-deferred-tools")
builder.with_plugin("ext-deferred-tools", DeferredToolsPlugin())
```
"""

from awaken_ext_deferred_tools.classify import (
    Classification,
    classify,
    deferral_enabled,
    name_cost,
    schema_cost,
)
from awaken_ext_deferred_tools.config import (
    DEFAULT_PRIOR,
    DeferralRule,
    DeferredToolsConfig,
    DeferredToolsConfigKey,
    DiscBetaParams,
    ToolLoadMode,
)
from awaken_ext_deferred_tools.disc_beta import DiscBetaEntry, observe
from awaken_ext_deferred_tools.hooks import (
    DEFERRED_LIST_HEADER,
    DEFERRED_LIST_KEY,
    deferred_list_text,
)
from awaken_ext_deferred_tools.plugin import (
    DEFERRED_TOOLS_PLUGIN_ID,
    DeferredToolsPlugin,
    DeferToolsAction,
    PromoteToolsAction,
    defer_and_promote,
)
from awaken_ext_deferred_tools.priors import (
    AgentToolPriors,
    AgentToolPriorsKey,
    blend_priors,
    smoothing,
)
from awaken_ext_deferred_tools.redeferral import tools_to_defer
from awaken_ext_deferred_tools.search import (
    DEFAULT_MAX_RESULTS,
    NO_MATCH_TEXT,
    PROMOTE_FIELD,
    TOOL_SEARCH_ID,
    KeywordQuery,
    RequiredQuery,
    SearchQuery,
    SelectQuery,
    ToolSearchTool,
    format_functions,
    parse_query,
    search,
)
from awaken_ext_deferred_tools.state import (
    Defer,
    DeferralRegistry,
    DeferralRegistryKey,
    DeferralState,
    DeferralStateKey,
    DiscBetaKey,
    DiscBetaState,
    IncrementTurn,
    InitBatch,
    ObserveTurn,
    Promote,
    PromoteBatch,
    RecordCall,
    RecordTurnCalls,
    Register,
    RegisterBatch,
    Remove,
    SetBatch,
    SetPriors,
    StoredToolDescriptor,
    ToolUsage,
    UsageStats,
    UsageStatsKey,
)

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "DEFAULT_PRIOR",
    "DEFERRED_LIST_HEADER",
    "DEFERRED_LIST_KEY",
    "DEFERRED_TOOLS_PLUGIN_ID",
    "NO_MATCH_TEXT",
    "PROMOTE_FIELD",
    "TOOL_SEARCH_ID",
    "AgentToolPriors",
    "AgentToolPriorsKey",
    "Classification",
    "Defer",
    "DeferToolsAction",
    "DeferralRegistry",
    "DeferralRegistryKey",
    "DeferralRule",
    "DeferralState",
    "DeferralStateKey",
    "DeferredToolsConfig",
    "DeferredToolsConfigKey",
    "DeferredToolsPlugin",
    "DiscBetaEntry",
    "DiscBetaKey",
    "DiscBetaParams",
    "DiscBetaState",
    "IncrementTurn",
    "InitBatch",
    "KeywordQuery",
    "ObserveTurn",
    "Promote",
    "PromoteBatch",
    "PromoteToolsAction",
    "RecordCall",
    "RecordTurnCalls",
    "Register",
    "RegisterBatch",
    "Remove",
    "RequiredQuery",
    "SearchQuery",
    "SelectQuery",
    "SetBatch",
    "SetPriors",
    "StoredToolDescriptor",
    "ToolLoadMode",
    "ToolSearchTool",
    "ToolUsage",
    "UsageStats",
    "UsageStatsKey",
    "blend_priors",
    "classify",
    "defer_and_promote",
    "deferral_enabled",
    "deferred_list_text",
    "format_functions",
    "name_cost",
    "observe",
    "parse_query",
    "schema_cost",
    "search",
    "smoothing",
    "tools_to_defer",
]
