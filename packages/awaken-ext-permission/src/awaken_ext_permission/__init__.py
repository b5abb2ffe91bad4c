"""Tool permission rules for Awaken agents: allow, deny or ask a human before a tool runs."""
