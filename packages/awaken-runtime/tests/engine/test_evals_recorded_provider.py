"""An eval against the real OpenAI client code over a socket: the agent's answer and the LLM
judge's verdict both come from recorded provider streams replayed on a loopback server."""

from __future__ import annotations

from typing import Any

from awaken_contract.registry_spec import AgentSpec, ModelSpec, ProviderSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import GenaiExecutor
from awaken_runtime.evals import EvalDataset, render_table, run_eval


async def test_agent_and_judge_run_on_a_replayed_provider(replay: Any) -> None:
    replay.sse("openai_text.sse").sse("openai_judge_verdict.sse")
    provider = GenaiExecutor(
        ProviderSpec(id="openai", adapter="openai", base_url=replay.url + "/v1", api_key="k"),
        environ={},
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("greeter").with_model("mini"))
        .with_provider("openai", provider)
        .with_model("mini", ModelSpec(id="mini", provider="openai", model="gpt-4o-mini"))
        .with_model("grader", ModelSpec(id="grader", provider="openai", model="gpt-4o"))
        .build()
    )
    dataset = EvalDataset.from_data(
        {
            "agent": "greeter",
            "judge_model": "grader",
            "concurrency": 1,
            "cases": [
                {
                    "id": "greet",
                    "input": "Say hello to the world.",
                    "expected": {"output": "Hello, world!", "termination": "natural_end"},
                    "scorers": [
                        {"type": "exact"},
                        {"type": "termination"},
                        {"type": "judge", "rubric": "A friendly greeting to the world."},
                    ],
                }
            ],
        }
    )
    report = await run_eval(dataset, runtime)
    assert report.ok, render_table(report)
    judge = report.results[0].scores[2]
    assert (judge.value, judge.reason) == (0.8, "a friendly greeting")
    agent_call, judge_call = replay.requests
    assert agent_call.body["model"] == "gpt-4o-mini"
    assert agent_call.body["messages"][-1] == {"role": "user", "content": "Say hello to the world."}
    assert judge_call.body["model"] == "gpt-4o"
    prompt = judge_call.body["messages"][-1]["content"]
    assert "A friendly greeting to the world." in prompt and "Hello, world!" in prompt
