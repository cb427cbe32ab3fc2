"""pydantic-ai's agent delegation example, as its docs write it, with the models passed in.

pydantic-ai reads a tool's type hints in the globals of the tool's module, so
``RunContext`` is imported at the top of this one; the test module imports pydantic-ai
only inside its tests, to keep collecting it cheap.
"""

from __future__ import annotations

from pydantic_ai import Agent, RunContext
from pydantic_ai.models import Model


def joke_agents(selection_model: Model, generation_model: Model) -> Agent[None, str]:
    """The joke selection agent, delegating to a joke generation agent through its tool."""
    joke_selection_agent = Agent(
        selection_model, system_prompt="Use the `joke_factory` to generate some jokes."
    )
    joke_generation_agent = Agent(generation_model, output_type=list[str])

    @joke_selection_agent.tool
    async def joke_factory(ctx: RunContext[None], count: int) -> list[str]:
        r = await joke_generation_agent.run(f"Please generate {count} jokes.", usage=ctx.usage)
        return r.output

    return joke_selection_agent
