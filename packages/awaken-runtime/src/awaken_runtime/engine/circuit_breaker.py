"""Per-model circuit breaker: stop calling a model that keeps failing, probe it after a cooldown."""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from awaken_contract.errors import ProviderError
from awaken_contract.registry_spec import CircuitBreakerConfig

__all__ = ["CircuitBreaker", "CircuitBreakerConfig", "CircuitState"]

logger = logging.getLogger("awaken.engine.circuit_breaker")


class CircuitState(enum.StrEnum):
    """State of one model's breaker."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass
class _ModelCircuit:
    consecutive_failures: int = 0
    last_failure: float | None = None
    state: CircuitState = CircuitState.CLOSED
    half_open_attempts: int = 0


class CircuitBreaker:
    """Closed → open after ``failure_threshold`` consecutive failures; after ``cooldown`` it
    lets ``half_open_max`` probe calls through (half-open); a success closes it, a failure
    re-opens it. ``clock`` returns seconds (monotonic by default; inject one in tests)."""

    def __init__(
        self,
        config: CircuitBreakerConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or CircuitBreakerConfig()
        self._clock = clock
        self._models: dict[str, _ModelCircuit] = {}

    def state(self, model: str) -> CircuitState:
        """The breaker state of ``model`` (closed when never seen)."""
        circuit = self._models.get(model)
        return circuit.state if circuit else CircuitState.CLOSED

    def consecutive_failures(self, model: str) -> int:
        """Failures since the last success of ``model``."""
        circuit = self._models.get(model)
        return circuit.consecutive_failures if circuit else 0

    def allow(self, model: str) -> bool:
        """Whether a call to ``model`` may proceed now (counts half-open probes)."""
        circuit = self._models.get(model)
        if circuit is None or circuit.state is CircuitState.CLOSED:
            return True
        if circuit.state is CircuitState.OPEN:
            elapsed = self._clock() - (circuit.last_failure or 0.0)
            if elapsed >= self.config.cooldown.total_seconds():
                self._transition(model, circuit, CircuitState.HALF_OPEN)
                circuit.half_open_attempts = 1
                return True
            return False
        if circuit.half_open_attempts < self.config.half_open_max:
            circuit.half_open_attempts += 1
            return True
        return False

    def check(self, model: str) -> None:
        """Raise ``ProviderError("circuit breaker open for model <model>")`` when not allowed."""
        if not self.allow(model):
            raise ProviderError(f"circuit breaker open for model {model}")

    def record_success(self, model: str) -> None:
        """A call to ``model`` succeeded: close the breaker."""
        circuit = self._models.get(model)
        if circuit is None:
            return
        circuit.consecutive_failures = 0
        circuit.half_open_attempts = 0
        self._transition(model, circuit, CircuitState.CLOSED)

    def record_failure(self, model: str) -> None:
        """A call to ``model`` failed."""
        circuit = self._models.setdefault(model, _ModelCircuit())
        circuit.consecutive_failures += 1
        circuit.last_failure = self._clock()
        if (
            circuit.state is CircuitState.HALF_OPEN
            or circuit.consecutive_failures >= self.config.failure_threshold
        ):
            self._transition(model, circuit, CircuitState.OPEN)

    @staticmethod
    def _transition(model: str, circuit: _ModelCircuit, state: CircuitState) -> None:
        if circuit.state is not state:
            logger.warning(
                "circuit breaker for model %s: %s -> %s (%d consecutive failures)",
                model,
                circuit.state.value,
                state.value,
                circuit.consecutive_failures,
            )
            circuit.state = state
