"""A delegating tool for the pydantic-ai adapter tests, in a module that imports pydantic-ai.

pydantic-ai reads a tool's type hints in the globals of the tool's module, so
``RunContext`` is imported at the top of this one; the test module imports pydantic-ai
only inside its tests, to keep collecting it cheap.
"""

from __future__ import annotations

from pydantic_ai import Agent, RunContext


def delegating(parent: Agent[None, str], child: Agent[None, str], tool_name: str) -> None:
    """Delegation the way pydantic-ai documents it: a tool that runs another agent."""

    async def delegate(ctx: RunContext[None], task: str) -> str:
        return (await child.run(task, usage=ctx.usage)).output

    parent.tool(delegate, name=tool_name)
