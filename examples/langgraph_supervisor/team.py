"""A research agent and a math agent under a supervisor, a swarm, and a governed agent tool.

Written the way LangGraph's multi-agent docs write them (``create_supervisor``,
``create_swarm``, an agent used as a tool); the models are passed in, so tests give
handoff-sim's scripted models and production gives a provider's chat model.
"""

from langchain.agents import create_agent
from langgraph_supervisor import create_handoff_tool, create_supervisor
from langgraph_swarm import create_handoff_tool as create_swarm_handoff_tool
from langgraph_swarm import create_swarm

from handoff_sim import FailureAction, HandoffPolicy
from handoff_sim.adapters.langgraph import governed, governed_handoffs

POLICY = HandoffPolicy(
    max_depth=1, timeout=30, max_retries=2, on_error=FailureAction.REPORT_TO_MODEL
)
"""One level deep, 30 s per attempt, two retries; a failure is told to the model."""


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


def web_search(query: str) -> str:
    """Search the web for information."""
    return (
        "Here are the headcounts for each of the FAANG companies in 2024: "
        "Meta 67,317; Apple 164,000; Amazon 1,551,000; Netflix 14,000; Google 181,269."
    )


def build_experts(research_model, math_model):
    """The research expert and the math expert."""
    research_agent = create_agent(
        research_model,
        tools=[web_search],
        system_prompt=(
            "You are a world class researcher with access to web search. Do not do any math."
        ),
        name="research_expert",
    )
    math_agent = create_agent(
        math_model,
        tools=[add, multiply],
        system_prompt="You are a math expert. Always use one tool at a time.",
        name="math_expert",
    )
    return research_agent, math_agent


def build_supervisor(supervisor_model, research_model, math_model, *, transfers=None):
    """The supervisor workflow of LangGraph's docs; ``transfers`` governs its handoffs."""
    research_agent, math_agent = build_experts(research_model, math_model)
    tools = None
    if transfers is not None:
        tools = governed_handoffs(
            [
                create_handoff_tool(agent_name="research_expert"),
                create_handoff_tool(agent_name="math_expert"),
            ],
            policy=transfers,
        )
    workflow = create_supervisor(
        [research_agent, math_agent],
        model=supervisor_model,
        tools=tools,
        prompt=(
            "You are a team supervisor managing a research expert and a math expert. "
            "For current events, use research_agent. For math problems, use math_agent."
        ),
    )
    return workflow.compile()


def build_orchestrator(orchestrator_model, research_model, math_model):
    """The experts as governed tools of one agent (LangChain's tool-calling multi-agent shape)."""
    research_agent, math_agent = build_experts(research_model, math_model)
    return create_agent(
        orchestrator_model,
        tools=[
            governed(research_agent, POLICY, name="research", description="Research a question."),
            governed(math_agent, POLICY, name="math", description="Solve a math problem."),
        ],
        system_prompt="Answer with the help of your experts.",
        name="orchestrator",
    )


def build_swarm(alice_model, bob_model):
    """The swarm of langgraph-swarm's README: Alice does math, Bob talks like a pirate."""
    alice = create_agent(
        alice_model,
        tools=[add, create_swarm_handoff_tool(agent_name="Bob", description="Transfer to Bob")],
        system_prompt="You are Alice, an addition expert.",
        name="Alice",
    )
    bob = create_agent(
        bob_model,
        tools=[create_swarm_handoff_tool(agent_name="Alice", description="Transfer to Alice")],
        system_prompt="You are Bob, you speak like a pirate.",
        name="Bob",
    )
    return create_swarm([alice, bob], default_active_agent="Alice").compile()
