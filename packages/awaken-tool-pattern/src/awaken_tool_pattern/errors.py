"""The error raised for a pattern that does not follow the DSL grammar."""

from __future__ import annotations


class PatternSyntaxError(ValueError):
    """A pattern string could not be parsed.

    ``position`` is the character offset into the *trimmed* input where parsing stopped;
    ``str(err)`` is ``parse error at {position}: {message}``.
    """

    def __init__(self, message: str, position: int, text: str = "") -> None:
        self.message = message
        self.position = position
        self.text = text
        super().__init__(f"parse error at {position}: {message}")

    def __reduce__(self) -> tuple[type[PatternSyntaxError], tuple[str, int, str]]:
        return (type(self), (self.message, self.position, self.text))

    def pointer(self) -> str:
        """The parsed text with a caret under the failing column (for error displays)."""
        return f"{self.text}\n{' ' * self.position}^ {self.message}"


PatternParseError = PatternSyntaxError
"""The reference implementation's name for :class:`PatternSyntaxError`."""
