"""Progress on stderr while a dataset runs: a bar on a terminal, one line per case otherwise."""

from __future__ import annotations

import sys
from typing import TextIO

from awaken_runtime.evals.results import CaseResult

__all__ = ["StderrProgress"]


class StderrProgress:
    """A :data:`~awaken_runtime.evals.runner.ProgressCallback` writing to ``stream``."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.failed = 0
        self.live = self.stream.isatty()

    def __call__(self, result: CaseResult, done: int, total: int) -> None:
        self.failed += 0 if result.passed else 1
        mark = "PASS" if result.passed else "FAIL"
        if self.live:
            filled = self.width * done // max(total, 1)
            bar = "#" * filled + "." * (self.width - filled)
            end = "\n" if done == total else ""
            self.stream.write(
                f"\r[{bar}] {done}/{total} failed {self.failed}  {result.case_id[:40]:<40}{end}"
            )
        else:
            self.stream.write(
                f"[{done}/{total}] {mark} {result.case_id} ({result.duration_ms} ms)\n"
            )
        self.stream.flush()
