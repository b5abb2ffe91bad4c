"""Protocol adapters: pure encoders from ``AgentEvent`` to protocol frames, plus their routes.

Each sub-package (``ai_sdk_v6``, ``ag_ui``, …) owns one wire protocol. Encoders know nothing
of HTTP or the loop; routes know nothing of event internals beyond the encoder they use.
"""
