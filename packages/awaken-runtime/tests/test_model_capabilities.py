"""Model capabilities of the catalog take effect: load-time checks, the context window clamp
and input modalities refused before the call."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_contract.contract.content import (
    AudioBlock,
    Base64Source,
    ContentBlock,
    ToolResultBlock,
)
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.errors import ConfigLoadError, UnsupportedModality
from awaken_contract.registry_spec import AgentSpec, ContextWindowPolicy, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_runtime.engine.capabilities import ModalityCheckedExecutor
from pydantic import ValidationError


def model(**capabilities: Any) -> ModelSpec:
    return ModelSpec(id="m", provider="llm", model="model-1", **capabilities)


def runtime_for(llm: ScriptedLlm, spec: AgentSpec, catalog: ModelSpec) -> Any:
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(spec.with_model("m"))
        .with_provider("llm", llm)
        .with_model("m", catalog)
        .build()
    )


# --------------------------------------------------------------------------- load-time checks


def test_max_output_tokens_beyond_the_window_is_rejected() -> None:
    with pytest.raises(ValidationError, match=r"max_output_tokens \(9000\) exceeds the context_w"):
        model(context_window=8192, max_output_tokens=9000)
    assert model(context_window=8192, max_output_tokens=8192).max_output_tokens == 8192


@pytest.mark.parametrize("cutoff", ["2024-13", "2024-02-30", "June 2024", "24-06", "2024-6"])
def test_invalid_knowledge_cutoff_is_rejected(cutoff: str) -> None:
    with pytest.raises(ValidationError, match="knowledge_cutoff must be a date"):
        model(knowledge_cutoff=cutoff)


@pytest.mark.parametrize("cutoff", ["2024-06", "2024-06-30"])
def test_iso_knowledge_cutoff_is_accepted(cutoff: str) -> None:
    assert model(knowledge_cutoff=cutoff).knowledge_cutoff == cutoff


def test_a_bad_catalog_file_names_the_problem_at_load() -> None:
    text = "id: m\nprovider: llm\nmodel: x\ncontext_window: 100\nmax_output_tokens: 200\n"
    with pytest.raises((ConfigLoadError, ValidationError), match="exceeds the context_window"):
        ModelSpec.from_yaml(text)


# --------------------------------------------------------------------------- context window


def test_the_context_policy_is_clamped_to_the_model() -> None:
    spec = AgentSpec("a").with_context_policy(ContextWindowPolicy())  # 200k / 16k defaults
    llm = ScriptedLlm([])
    resolved = runtime_for(llm, spec, model(context_window=4096, max_output_tokens=1024))
    policy = resolved.resolve("a").spec.context_policy
    assert (policy.max_context_tokens, policy.max_output_tokens) == (4096, 1024)
    roomy = runtime_for(llm, spec, model(context_window=1_000_000)).resolve("a")
    assert roomy.spec.context_policy.max_context_tokens == 200_000  # a smaller budget stays


async def test_a_long_history_is_truncated_to_the_model_window() -> None:
    spec = AgentSpec("a").with_context_policy(ContextWindowPolicy(min_recent_messages=1))
    llm = ScriptedLlm([text_step("ok")])
    runtime = runtime_for(llm, spec, model(context_window=600, max_output_tokens=100))
    history = [Message.user(f"message {i}: " + "word " * 40) for i in range(40)]
    result = await runtime.run(RunRequest("t", history).with_agent_id("a"), VecEventSink())
    assert result.response == "ok"
    sent = llm.requests[0].messages
    assert 0 < len(sent) < len(history)  # without the clamp all 40 (≈2,000 tokens) are sent
    assert sent[-1].content == history[-1].content


# --------------------------------------------------------------------------- input modalities

IMAGE = ContentBlock.image_base64("image/png", "iVBORw0KGgo=")


async def test_image_input_to_a_text_only_model_fails_before_the_call() -> None:
    llm = ScriptedLlm([text_step("I see a cat")])
    runtime = runtime_for(llm, AgentSpec("a"), model(input_modalities=["text"]))
    question = Message.user_with_content([ContentBlock.text("What is this?"), IMAGE])
    result = await runtime.run(RunRequest("t", [question]).with_agent_id("a"), VecEventSink())
    assert result.termination == TerminationReason.error(
        "inference failed: unsupported input: model m does not accept image input "
        "(input_modalities: text)"
    )
    assert llm.requests == []  # the provider was never called


async def test_declared_modalities_pass_and_undeclared_models_are_not_checked() -> None:
    question = Message.user_with_content([ContentBlock.text("What is this?"), IMAGE])
    for catalog in (model(input_modalities=["text", "image"]), model()):
        llm = ScriptedLlm([text_step("a cat")])
        runtime = runtime_for(llm, AgentSpec("a"), catalog)
        result = await runtime.run(RunRequest("t", [question]).with_agent_id("a"), VecEventSink())
        assert result.response == "a cat"
        assert len(llm.requests) == 1


def test_the_check_sees_media_inside_tool_results() -> None:
    guard = ModalityCheckedExecutor(ScriptedLlm([]), model(input_modalities=["text", "image"]))
    audio = AudioBlock(source=Base64Source(media_type="audio/wav", data="UklGRg=="))
    nested = Message.user_with_content([ToolResultBlock(tool_use_id="c1", content=[audio])])
    with pytest.raises(UnsupportedModality, match="does not accept audio input"):
        guard.check(InferenceRequest(upstream_model="model-1", messages=[nested]))
