"""The README quickstart: an agent with one tool and a scripted model (no API key needed).

Run: ``uv run python examples/quickstart.py``
"""

from awaken import Agent, tool
from awaken.testing import ScriptedLlm, text_step, tool_call_step


@tool
async def get_weather(city: str) -> dict:
    """Weather for a city."""
    return {"forecast": f"sunny in {city}"}


script = [tool_call_step("c1", "get_weather", {"city": "Tokyo"}), text_step("Sunny in Tokyo.")]
agent = Agent(ScriptedLlm(script), tools=[get_weather], instructions="Be helpful.")
result = agent.run_sync("Weather in Tokyo?")
print(result.response, result.steps)  # Sunny in Tokyo. 2
