"""The tools phase of a step: record the model's answer, run its tool calls.

A text-only answer ends the run naturally; otherwise the step's calls go through the
:class:`~awaken_runtime.execution.pipeline.ToolPipeline` and the step ends blocked,
cancelled, terminated by a hook, suspended, or goes on to the next step.
"""

from __future__ import annotations

from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.message import Message

from awaken_runtime.loop_runner.output import settle_output
from awaken_runtime.loop_runner.run_context import LoopContext, StepOutcome, StepResult, done_batch

__all__ = ["tools_phase"]

# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_CONTINUE = StepOutcome.CONTINUE
_SUSPENDED = StepOutcome.SUSPENDED
_TERMINATED = StepOutcome.TERMINATED
_NATURAL_END = StepOutcome.NATURAL_END


async def tools_phase(run: LoopContext, result: StreamResult) -> StepResult:
    """Append the assistant message and execute its tool calls."""
    if run.spec.output_schema is not None:
        settled = await settle_output(run, result)
        if settled is not None:
            return settled  # a structured answer: accepted, or sent back with the errors
    text = result.text
    if not result.tool_calls:
        run.messages.append(Message.assistant(text))
        return _NATURAL_END, None
    run.messages.append(Message.assistant_with_tool_calls(text, result.tool_calls))
    blocked, suspended = await run.pipeline.run_calls(result.tool_calls)
    if blocked is not None:
        run.store.commit(done_batch(f"blocked:{blocked}"))
        return _TERMINATED, TerminationReason.blocked(blocked)
    if run.canceller.is_cancelled:
        return run.cancelled_step()
    termination = run.check_termination()
    if termination is not None:
        return _TERMINATED, termination
    if suspended:
        return _SUSPENDED, None
    return _CONTINUE, None
