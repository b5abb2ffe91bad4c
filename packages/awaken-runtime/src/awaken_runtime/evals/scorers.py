"""Scorers: each turns a case and its outcome into a :class:`Score`.

``exact``, ``contains``, ``regex`` and ``json_schema`` read the final answer; ``tool_calls``
compares the calls the run made with the expected ones; ``termination`` checks how the run
ended; ``judge`` (see :mod:`awaken_runtime.evals.judge`) asks an LLM.
"""

from __future__ import annotations

import abc
import json
import re

import jsonschema

from awaken_runtime.evals.dataset import (
    ArgumentMatch,
    ContainsSpec,
    EvalCase,
    ExactSpec,
    ExpectedToolCall,
    JsonSchemaSpec,
    RegexSpec,
    TerminationSpec,
    ToolCallsSpec,
)
from awaken_runtime.evals.results import CaseOutcome, ObservedToolCall, Score
from awaken_runtime.structured import extract_json

__all__ = [
    "ContainsScorer",
    "ExactScorer",
    "JsonSchemaScorer",
    "RegexScorer",
    "Scorer",
    "TerminationScorer",
    "ToolCallScorer",
    "extract_json",
]


class Scorer(abc.ABC):
    """Judges one case's outcome."""

    name: str

    @abc.abstractmethod
    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        """The verdict on ``outcome``."""

    def verdict(self, passed: bool, reason: str = "", value: float | None = None) -> Score:
        """A :class:`Score` of this scorer (``value`` defaults to 1/0 by ``passed``)."""
        return Score(self.name, passed, float(passed) if value is None else value, reason)


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ExactScorer(Scorer):
    """The trimmed answer equals the expected text."""

    name = "exact"

    def __init__(self, spec: ExactSpec) -> None:
        self.spec = spec

    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        expected = self.spec.value if self.spec.value is not None else case.expected.output
        if expected is None:
            return self.verdict(False, "no expected output to compare with")
        actual = outcome.response.strip()
        wanted = expected.strip()
        if not self.spec.case_sensitive:
            actual, wanted = actual.casefold(), wanted.casefold()
        if actual == wanted:
            return self.verdict(True)
        return self.verdict(False, f"expected {_clip(expected)!r}, got {_clip(outcome.response)!r}")


class ContainsScorer(Scorer):
    """The answer contains every expected string."""

    name = "contains"

    def __init__(self, spec: ContainsSpec) -> None:
        self.spec = spec

    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        needles = self.spec.needles()
        haystack = outcome.response
        if not self.spec.case_sensitive:
            haystack = haystack.casefold()
        missing = [
            n for n in needles if (n if self.spec.case_sensitive else n.casefold()) not in haystack
        ]
        found = len(needles) - len(missing)
        value = found / len(needles) if needles else 1.0
        if missing:
            return self.verdict(False, f"missing {missing!r} in {_clip(outcome.response)!r}", value)
        return self.verdict(True, value=value)


class RegexScorer(Scorer):
    """The answer matches a regular expression."""

    name = "regex"

    def __init__(self, spec: RegexSpec) -> None:
        self.pattern = re.compile(spec.pattern, re.IGNORECASE if spec.ignore_case else 0)

    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        if self.pattern.search(outcome.response):
            return self.verdict(True)
        return self.verdict(
            False, f"/{self.pattern.pattern}/ not found in {_clip(outcome.response)!r}"
        )


class JsonSchemaScorer(Scorer):
    """The answer is JSON valid against a JSON Schema."""

    name = "json_schema"

    def __init__(self, spec: JsonSchemaSpec) -> None:
        validator_cls = jsonschema.validators.validator_for(spec.json_schema)
        validator_cls.check_schema(spec.json_schema)
        self.validator = validator_cls(spec.json_schema)

    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        try:
            value = extract_json(outcome.response)
        except ValueError:
            return self.verdict(False, f"answer is not JSON: {_clip(outcome.response)!r}")
        errors = sorted(self.validator.iter_errors(value), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "<root>"
            return self.verdict(False, f"{where}: {errors[0].message}")
        return self.verdict(True)


def _arguments_match(
    expected: ExpectedToolCall, actual: ObservedToolCall, mode: ArgumentMatch
) -> bool:
    if mode is ArgumentMatch.IGNORE or expected.arguments is None:
        return True
    if mode is ArgumentMatch.EXACT:
        return bool(actual.arguments == expected.arguments)
    args = actual.arguments if isinstance(actual.arguments, dict) else {}
    return all(key in args and args[key] == value for key, value in expected.arguments.items())


def _describe(call: ExpectedToolCall | ObservedToolCall) -> str:
    args = call.arguments
    return f"{call.name}({json.dumps(args, sort_keys=True)})" if args is not None else call.name


class ToolCallScorer(Scorer):
    """The run made the expected tool calls (order and extras per the spec).

    The value is the fraction of expected calls matched.
    """

    name = "tool_calls"

    def __init__(self, spec: ToolCallsSpec) -> None:
        self.spec = spec

    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        expected = self.spec.calls if self.spec.calls is not None else case.expected.tool_calls
        if expected is None:
            return self.verdict(False, "no expected tool calls to compare with")
        actual = list(outcome.tool_calls)
        used: set[int] = set()
        matched = 0
        missing: list[str] = []
        position = 0
        for want in expected:
            start = position if self.spec.ordered else 0
            hit = next(
                (
                    i
                    for i in range(start, len(actual))
                    if i not in used
                    and actual[i].name == want.name
                    and _arguments_match(want, actual[i], self.spec.arguments)
                ),
                None,
            )
            if hit is None:
                missing.append(_describe(want))
                continue
            used.add(hit)
            matched += 1
            position = hit + 1
        extra = [_describe(c) for i, c in enumerate(actual) if i not in used]
        value = matched / len(expected) if expected else float(not actual or self.spec.allow_extra)
        problems = []
        if missing:
            made = ", ".join(_describe(c) for c in actual) or "none"
            problems.append(f"missing {', '.join(missing)} (calls made: {made})")
        if extra and not self.spec.allow_extra:
            problems.append(f"unexpected {', '.join(extra)}")
        return self.verdict(not problems, "; ".join(problems), value)


class TerminationScorer(Scorer):
    """The run ended the expected way (``natural_end``, ``suspended``, ``stopped``, …)."""

    name = "termination"

    def __init__(self, spec: TerminationSpec) -> None:
        self.spec = spec

    async def score(self, case: EvalCase, outcome: CaseOutcome) -> Score:
        expected = self.spec.value or case.expected.termination
        if expected is None:
            return self.verdict(False, "no expected termination to compare with")
        if outcome.termination == expected.value:
            return self.verdict(True)
        return self.verdict(False, f"expected {expected.value}, got {outcome.termination}")
