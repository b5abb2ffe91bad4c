"""MailboxConfig: lease timing, maintenance intervals and retry policy of the mailbox service."""

from __future__ import annotations

from datetime import timedelta

from awaken_contract.contract.mailbox import retry_delay_ms
from awaken_contract.contract.retention import RetentionPolicy
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MailboxConfig"]


class MailboxConfig(BaseModel):
    """Defaults are the book's; durations accept seconds (numbers) or ``timedelta``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    lease_ms: int = Field(default=30_000, ge=1)
    """Lease of a running job; renewed every ``lease_renewal_interval``."""
    suspended_lease_ms: int = Field(default=600_000, ge=1)
    """Lease while the run waits for a human decision."""
    lease_renewal_interval: timedelta = timedelta(seconds=10)
    sweep_interval: timedelta = timedelta(seconds=30)
    """How often expired leases are reclaimed (a crashed worker's job is re-run)."""
    gc_interval: timedelta = timedelta(seconds=60)
    gc_ttl: timedelta = timedelta(hours=24)
    """Age after which finished jobs are purged."""
    default_max_attempts: int = Field(default=5, ge=1)
    default_retry_delay_ms: int = Field(default=250, ge=0)
    max_retry_delay_ms: int = Field(default=30_000, ge=0)
    poll_interval: timedelta = timedelta(seconds=1)
    """How often the dispatcher looks for work queued by other processes (stores with push
    notification wake it earlier)."""
    inline_claim_guard_ms: int = Field(default=60_000, ge=0)
    """``available_at`` offset of foreground jobs so that no other worker steals them."""
    cancel_wait: timedelta = timedelta(seconds=5)
    """How long a foreground submit waits for the thread's active run to release."""
    replay_buffer_ttl: timedelta = timedelta(seconds=300)
    """Closed SSE replay buffers older than this are dropped on each GC tick."""
    retention: RetentionPolicy = Field(default_factory=RetentionPolicy)
    """Finished runs (records + journals) pruned on each GC tick; off unless a rule is set."""

    def retry_delay(self, attempt_count: int) -> int:
        """Backoff (ms) before the next attempt of a job that failed ``attempt_count`` times."""
        return retry_delay_ms(attempt_count, self.default_retry_delay_ms, self.max_retry_delay_ms)
