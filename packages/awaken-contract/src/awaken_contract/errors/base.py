"""The base of every Awaken error and the errors no family owns."""

from __future__ import annotations


class AwakenError(Exception):
    """Base class of every error raised by Awaken.

    ``retryable`` says whether trying the same work again may succeed (a provider hiccup, a
    store that was briefly unavailable); the mailbox retries such runs with backoff and
    dead-letters the others. Families override the class default; an instance may too.
    """

    retryable: bool = False


class DecodeError(AwakenError, ValueError):
    """A JSON document could not be decoded into the expected Awaken type."""

    def __init__(self, type_name: str, message: str) -> None:
        self.type_name = type_name
        self.message = message
        super().__init__(f"invalid {type_name}: {message}")


class ConfigLoadError(AwakenError):
    """A configuration file could not be read or parsed."""


class InvalidId(AwakenError, ValueError):
    """A client-supplied id breaks the shared id rule (``awaken_contract.ids.check_id``)."""

    def __init__(self, what: str, problem: str) -> None:
        self.what = what
        self.problem = problem
        super().__init__(f"{what} {problem}")


class UserIdRequired(AwakenError, LookupError):
    """A run without a user id touched a profile key kept per user (``PER`` user/agent_user)."""

    def __init__(self, per: str) -> None:
        self.per = per
        super().__init__(
            f"profile key kept per {per} needs the run's user id"
            " (RunRequest.with_user_id, or userId in the request body)"
        )
