"""Structured output in the loop: ask for the answer's shape, accept it or send it back.

:func:`shape_request` runs on every inference request of an agent with an ``output_schema``:
when the executor supports provider-native structured output the request carries a
:class:`~awaken_contract.contract.executor.ResponseFormat`, else the ``final_result`` tool is
offered. :func:`settle_output` runs before the step's tool calls: a ``final_result`` call or
a text-only answer is validated; a valid answer ends the run (its JSON becomes the final
assistant message, marked ``structured_output``), an invalid one is sent back to the model
with the validation errors — at most ``output_schema.max_retries`` times, then the run fails
with :class:`~awaken_contract.errors.OutputValidationFailed`. Steps with other tool calls run
as usual.
"""

from __future__ import annotations

from awaken_contract.contract.event import ToolCallDone
from awaken_contract.contract.executor import InferenceRequest, ResponseFormat
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import Message, MessageMetadata, ToolCall
from awaken_contract.contract.suspension import ToolCallOutcome
from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import OutputValidationFailed

from awaken_runtime.loop_runner.run_context import LoopContext, StepOutcome, StepResult
from awaken_runtime.structured import (
    FINAL_RESULT_TOOL,
    InvalidOutput,
    OutputValidator,
    ValidatedOutput,
)

__all__ = ["settle_output", "shape_request"]

_ACCEPTED = "Final result accepted."
_SKIPPED = "Not executed: the final_result call in the same turn ended the run."
_SKIPPED_RETRY = "Not executed: call other tools first, then final_result on its own."


def _validator(run: LoopContext) -> OutputValidator | None:
    schema = run.spec.output_schema
    return None if schema is None else run.output.validator_for(schema)


def shape_request(run: LoopContext, request: InferenceRequest) -> None:
    """Ask for the agent's output shape: natively when the executor can, else by tool."""
    validator = _validator(run)
    if validator is None:
        return
    run.output.native = run.agent.llm_executor.supports_response_format(request)
    if run.output.native:
        request.response_format = ResponseFormat(
            name=validator.output.name, schema=validator.schema, strict=validator.strict
        )
    else:
        request.tools = [*request.tools, validator.tool()]


async def settle_output(run: LoopContext, result: StreamResult) -> StepResult | None:
    """The step's end when the answer is (or should be) the structured output; ``None``
    when the step goes on to ordinary tool calls."""
    validator = _validator(run)
    if validator is None:
        return None
    calls = result.tool_calls
    final = next((c for c in calls if c.name == FINAL_RESULT_TOOL), None)
    if final is None and calls:
        return None
    if final is None:
        try:
            valid = validator.validate_text(result.text)
        except InvalidOutput as exc:
            run.messages.append(Message.assistant(result.text))
            hint = (
                "Reply with the JSON value only."
                if run.output.native
                else f"Call the {FINAL_RESULT_TOOL} tool with your answer."
            )
            run.messages.append(Message.internal_user(_feedback(exc, hint)))
            return _retry(run, exc)
        return _accept(run, valid)
    run.messages.append(Message.assistant_with_tool_calls(result.text, calls))
    try:
        valid = validator.validate_arguments(final.arguments)
    except InvalidOutput as exc:
        feedback = _feedback(exc, f"Call {FINAL_RESULT_TOOL} again with a corrected answer.")
        _answer_calls(run, calls, final, feedback, _SKIPPED_RETRY)
        await _done(run, final, ToolResult.error(FINAL_RESULT_TOOL, feedback))
        return _retry(run, exc)
    _answer_calls(run, calls, final, _ACCEPTED, _SKIPPED)
    await _done(run, final, ToolResult.success(FINAL_RESULT_TOOL, valid.data))
    return _accept(run, valid)


def _feedback(exc: InvalidOutput, hint: str) -> str:
    return f"Your answer does not match the required output schema: {exc}. {hint}"


def _answer_calls(
    run: LoopContext, calls: list[ToolCall], final: ToolCall, final_text: str, other: str
) -> None:
    for call in calls:
        run.messages.append(Message.tool(call.id, final_text if call is final else other))


async def _done(run: LoopContext, call: ToolCall, result: ToolResult) -> None:
    outcome = ToolCallOutcome.SUCCEEDED if result.is_success else ToolCallOutcome.FAILED
    await run.sink.emit(ToolCallDone(id=call.id, result=result, outcome=outcome))


def _retry(run: LoopContext, exc: InvalidOutput) -> StepResult:
    state = run.output
    state.failures += 1
    output = state.validator.output if state.validator is not None else None
    limit = output.max_retries if output is not None else 0
    if state.failures > limit:
        raise OutputValidationFailed(state.failures, str(exc))
    return StepOutcome.CONTINUE, None


def _accept(run: LoopContext, valid: ValidatedOutput) -> StepResult:
    run.output.result = valid
    message = Message.assistant(valid.text)
    message.metadata = MessageMetadata(structured_output=True)
    run.messages.append(message)
    return StepOutcome.NATURAL_END, None
