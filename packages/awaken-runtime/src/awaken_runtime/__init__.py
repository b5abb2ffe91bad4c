"""Awaken's agent runtime."""
