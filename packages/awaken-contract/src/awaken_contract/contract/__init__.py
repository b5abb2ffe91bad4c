"""The contract modules: messages, tools, events, lifecycle, inference, storage interfaces."""
