"""A triage agent that delegates research and writing to two agents used as tools.

The application code of this example project: it builds the agents, and the
delegations go through handoff-sim's ``governed(...)``, which gives them a policy
(depth, per-attempt timeout, retries) that the OpenAI Agents SDK does not have.
Each model is a parameter, so that tests can put fakes in.
"""

from __future__ import annotations

from agents import Agent, Runner
from agents.models.interface import Model

from handoff_sim import HandoffPolicy
from handoff_sim.adapters.openai_agents import governed

POLICY = HandoffPolicy(max_depth=1, max_retries=2, timeout=30)
"""One level of delegation; each attempt gets 30 s, a failed one is retried twice."""


def build_triage(
    triage_model: Model | str = "gpt-4.1",
    research_model: Model | str = "gpt-4.1-mini",
    writer_model: Model | str = "gpt-4.1-mini",
) -> Agent:
    """The triage agent, with ``research`` and ``write`` as governed agent tools."""
    researcher = Agent(
        name="researcher",
        instructions="Find the facts the question needs. Answer with the facts only.",
        model=research_model,
    )
    writer = Agent(
        name="writer",
        instructions="Write a short, clear answer from the notes you are given.",
        model=writer_model,
    )
    return Agent(
        name="triage",
        instructions="Ask the researcher for facts and the writer for the answer.",
        model=triage_model,
        tools=[
            governed(researcher, tool_name="research", tool_description="Facts.", policy=POLICY),
            governed(writer, tool_name="write", tool_description="The answer.", policy=POLICY),
        ],
    )


async def answer(question: str, agent: Agent | None = None) -> str:
    """Run the triage agent on ``question`` and return its final answer."""
    result = await Runner.run(agent or build_triage(), question)
    return str(result.final_output)
