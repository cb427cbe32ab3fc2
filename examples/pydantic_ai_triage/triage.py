"""A triage agent that delegates research and writing to two agents, through tools.

The application code of this example project. pydantic-ai delegates through a tool
that runs another agent; handoff-sim's ``governed(...)`` is that tool with a policy
(depth, per-attempt timeout, retries), which pydantic-ai does not have. An editor
delegates the way pydantic-ai's docs write it, through its own tool function that
passes ``deps`` and ``usage`` on; ``governed_tool`` puts the same policy on that
function. Each model is a parameter, so that tests can put fakes in
(``agent.override(model=...)`` works too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic_ai import Agent, RunContext
from pydantic_ai.models import Model

from handoff_sim import HandoffPolicy
from handoff_sim.adapters.pydantic_ai import governed, governed_tool

POLICY = HandoffPolicy(max_depth=1, max_retries=2, timeout=30)
"""One level of delegation; each attempt gets 30 s, a failed one is retried twice."""


def build_triage(
    triage_model: Model | str = "openai:gpt-4.1",
    research_model: Model | str = "openai:gpt-4.1-mini",
    writer_model: Model | str = "openai:gpt-4.1-mini",
) -> Agent[None, str]:
    """The triage agent, with ``research`` and ``write`` as governed delegation tools."""
    researcher: Agent[None, str] = Agent(
        research_model,
        name="researcher",
        instructions="Find the facts the question needs. Answer with the facts only.",
        defer_model_check=True,
    )
    writer: Agent[None, str] = Agent(
        writer_model,
        name="writer",
        instructions="Write a short, clear answer from the notes you are given.",
        defer_model_check=True,
    )
    tools: list[Any] = [
        governed(researcher, name="research", description="Facts.", policy=POLICY),
        governed(writer, name="write", description="The answer.", policy=POLICY),
    ]
    return Agent(
        triage_model,
        name="triage",
        instructions="Ask the researcher for facts and the writer for the answer.",
        tools=tools,
        defer_model_check=True,
    )


async def answer(question: str, agent: Agent[None, str] | None = None) -> str:
    """Run the triage agent on ``question`` and return its final answer."""
    result = await (agent or build_triage()).run(question)
    return result.output


@dataclass
class StyleGuide:
    """The house rules: the editor's deps, which its delegation passes to the writer."""

    rules: str


class Draft(BaseModel):
    """The writer's structured output."""

    title: str
    body: str


def build_editor(
    editor_model: Model | str = "openai:gpt-4.1",
    writer_model: Model | str = "openai:gpt-4.1-mini",
) -> Agent[StyleGuide, str]:
    """An editor that has drafts written through its own ``draft`` tool, under ``POLICY``."""
    writer: Agent[StyleGuide, Draft] = Agent(
        writer_model,
        name="writer",
        deps_type=StyleGuide,
        output_type=Draft,
        instructions="Read the house rules, then write a draft on the topic.",
        defer_model_check=True,
    )

    @writer.tool
    async def house_rules(ctx: RunContext[StyleGuide]) -> str:
        """The rules every draft follows."""
        return ctx.deps.rules

    editor: Agent[StyleGuide, str] = Agent(
        editor_model,
        name="editor",
        deps_type=StyleGuide,
        instructions="Have the writer draft the piece, then answer with its title.",
        defer_model_check=True,
    )

    @editor.tool
    @governed_tool(policy=POLICY, subagent="writer")
    async def draft(ctx: RunContext[StyleGuide], topic: str) -> Draft:
        """A draft on ``topic``, by the writer."""
        result = await writer.run(f"Draft a piece on {topic}.", deps=ctx.deps, usage=ctx.usage)
        return result.output

    return editor
