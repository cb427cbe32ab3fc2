"""pydantic-ai's agent delegation example (its multi-agent docs), with fakes for the models.

``joke_selection_agent`` delegates to ``joke_generation_agent`` through its own
``joke_factory`` tool, which passes ``deps=ctx.deps`` and ``usage=ctx.usage``; the
generation agent returns ``list[str]`` (structured output) and fetches jokes with
``ctx.deps``. pydantic-ai reads a tool's type hints in its module's globals, so this
module imports pydantic-ai at the top; the test module imports it inside its tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.models import Model
from pydantic_ai.usage import UsageLimits

from handoff_sim.adapters.pydantic_ai import governed_tool

Decorator = Callable[[Any], Any]


@dataclass
class JokeClient:
    """Stands in for the docs' ``httpx.AsyncClient``: remembers who asked, with which key."""

    keys: list[str] = field(default_factory=list)

    async def get(self, count: int, *, api_key: str) -> str:
        self.keys.append(api_key)
        return "\n".join(f"joke {i}" for i in range(count))


@dataclass
class ClientAndKey:
    http_client: JokeClient
    api_key: str


@dataclass
class JokeGraph:
    selection: Agent[ClientAndKey, str]
    generation: Agent[ClientAndKey, list[str]]
    bodies: list[int] = field(default_factory=list)


def joke_graph(
    selection_model: Model,
    generation_model: Model,
    *,
    govern: Decorator | None = None,
    delegate_limits: UsageLimits | None = None,
    most: int | None = None,
) -> JokeGraph:
    """The docs' two agents; ``govern`` decorates ``joke_factory`` (``governed_tool(...)``)."""
    joke_selection_agent = Agent(
        selection_model,
        deps_type=ClientAndKey,
        instructions=(
            "Use the `joke_factory` tool to generate some jokes on the given subject, "
            "then choose the best. You must return just a single joke."
        ),
    )
    joke_generation_agent = Agent(
        generation_model,
        deps_type=ClientAndKey,
        output_type=list[str],
        instructions=(
            'Use the "get_jokes" tool to get some jokes on the given subject, '
            "then extract each joke into a list."
        ),
    )
    graph = JokeGraph(joke_selection_agent, joke_generation_agent)

    async def joke_factory(ctx: RunContext[ClientAndKey], count: int) -> list[str]:
        graph.bodies.append(count)
        if most is not None and count > most:
            raise ModelRetry(f"ask for {most} jokes at most")
        r = await joke_generation_agent.run(
            f"Please generate {count} jokes.",
            deps=ctx.deps,
            usage=ctx.usage,
            usage_limits=delegate_limits,
        )
        return r.output

    joke_selection_agent.tool(govern(joke_factory) if govern is not None else joke_factory)

    @joke_generation_agent.tool
    async def get_jokes(ctx: RunContext[ClientAndKey], count: int) -> str:
        return await ctx.deps.http_client.get(count, api_key=ctx.deps.api_key)

    return graph


def governed_factory(**options: Any) -> Decorator:
    """``governed_tool(**options)``, the decorator a test puts under ``@agent.tool``."""
    return governed_tool(**options)


def sql_router(router_model: Model, sql_model: Model) -> Agent[None, str]:
    """The docs' hand-off through an output function: the router's output is the SQL agent's."""
    sql_agent = Agent(sql_model, name="sql_agent")

    async def hand_off_to_sql_agent(ctx: RunContext[None], query: str) -> str:
        """Hand off to the SQL agent, whose answer is the router's output."""
        r = await sql_agent.run(query, usage=ctx.usage)
        return r.output

    return Agent(router_model, name="router", output_type=hand_off_to_sql_agent)
