"""Store implementations for Awaken."""
