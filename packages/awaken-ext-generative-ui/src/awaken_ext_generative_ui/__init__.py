"""Generative UI (A2UI v0.8)."""
