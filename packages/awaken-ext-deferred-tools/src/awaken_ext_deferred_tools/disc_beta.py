"""Discounted-Beta usage model: when is a promoted tool idle enough to be deferred again?

Each tracked tool has a Beta(alpha, beta) posterior over "called in a step". Every observed
step discounts both parameters by ``omega`` and adds one success (called) or failure. A tool
stays eager while the upper 90 % bound of its usage rate is above the break-even rate
``(c - c_bar) / gamma`` times ``thresh_mult``: below it, listing only its name and paying a
ToolSearch round-trip now and then is cheaper than sending its schema every step.
"""

from __future__ import annotations

import math

import msgspec

__all__ = ["DiscBetaEntry", "observe", "prior_parameters", "z_score"]

_MIN_PARAM = 0.01
_EPSILON = 1e-10


def prior_parameters(p: float, n0: float) -> tuple[float, float]:
    """``(alpha, beta)`` of a prior usage probability ``p`` worth ``n0`` observations."""
    return max(p * n0, _MIN_PARAM), max((1.0 - p) * n0, _MIN_PARAM)


def z_score(confidence: float) -> float:
    """1.645 for ≥ 0.95, 1.282 for ≥ 0.90, else 1.0."""
    if confidence >= 0.95:
        return 1.645
    if confidence >= 0.90:
        return 1.282
    return 1.0


class DiscBetaEntry(msgspec.Struct, frozen=True, omit_defaults=True):
    """One tool's posterior and its token costs (``c`` full schema, ``c_bar`` name only)."""

    alpha: float
    beta_param: float
    c: float
    c_bar: float
    last_used_turn: int | None = None

    @classmethod
    def from_prior(cls, p: float, n0: float, c: float, c_bar: float) -> DiscBetaEntry:
        """An entry starting from prior probability ``p`` (never used)."""
        alpha, beta = prior_parameters(p, n0)
        return cls(alpha=alpha, beta_param=beta, c=c, c_bar=c_bar)

    def with_prior(self, p: float, n0: float) -> DiscBetaEntry:
        """The same entry with alpha/beta re-initialised from ``p`` (last use and costs kept)."""
        alpha, beta = prior_parameters(p, n0)
        return msgspec.structs.replace(self, alpha=alpha, beta_param=beta)

    @property
    def total(self) -> float:
        """``alpha + beta``."""
        return self.alpha + self.beta_param

    def mean(self) -> float:
        """Posterior mean (0 when the posterior is empty)."""
        total = self.total
        return 0.0 if total < _EPSILON else self.alpha / total

    def variance(self) -> float:
        """Posterior variance."""
        total = self.total
        if total < _EPSILON:
            return 0.0
        return self.alpha * self.beta_param / (total * total * (total + 1.0))

    def upper(self, confidence: float) -> float:
        """Upper credible bound ``min(1, mean + z·sd)`` (1 when the posterior is empty)."""
        if self.total < _EPSILON:
            return 1.0
        return min(1.0, self.mean() + z_score(confidence) * math.sqrt(self.variance()))

    def breakeven(self, gamma: float) -> float:
        """Usage rate above which keeping the schema eager pays off (``inf``: never)."""
        saving = self.c - self.c_bar
        if saving <= 0 or gamma <= 0:
            return math.inf
        return saving / gamma


def observe(entry: DiscBetaEntry, omega: float, turn: int, called: bool) -> DiscBetaEntry:
    """Discount by ``omega`` and add one observation of step ``turn``."""
    alpha = omega * entry.alpha
    beta = omega * entry.beta_param
    if called:
        return msgspec.structs.replace(
            entry, alpha=alpha + 1.0, beta_param=beta, last_used_turn=turn
        )
    return msgspec.structs.replace(entry, alpha=alpha, beta_param=beta + 1.0)
