"""Awaken for Python: the facade re-exporting every package at the book's module paths."""
