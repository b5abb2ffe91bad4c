"""Awaken's vocabulary: the data types, interfaces and errors every other package shares."""
