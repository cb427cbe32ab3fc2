"""OpenAI Agents SDK graphs written as the SDK's docs write them, under handoff-sim.

Agents as tools (``as_tool(tool_name=..., tool_description=...)``), ``handoffs=[...]``
triage and ``@input_guardrail`` guardrails: models swapped by agent name, the policy's
admission on transfers, failures a retry cannot fix, and the small things a test needs.
"""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import ConfigurationError, FailureAction, HandoffPolicy
from handoff_sim.testing import ScriptedModel, override_models
from pytest_handoff import assert_handoffs_balanced
from tests.adapters._extras import installed, needs

if not installed("agents"):
    pytest.skip(needs("openai-agents"), allow_module_level=True)


def calls(*names: str, arguments: Any = None, ids: str = "") -> dict[str, Any]:
    """One model turn calling ``names``; ``ids`` prefixes the call ids (blank: the model's own)."""
    return {
        "tool_calls": [
            {
                "id": f"{ids}{i}" if ids else "",
                "name": n,
                "arguments": {} if arguments is None else arguments,
            }
            for i, n in enumerate(names)
        ]
    }


def translation_graph() -> Any:
    """The SDK docs' "agents as tools" orchestrator, with a triage handoff to billing."""
    from agents import Agent, handoff

    spanish = Agent(
        name="spanish_agent",
        instructions="You translate the user's message to Spanish",
        handoff_description="An english to spanish translator",
    )
    french = Agent(name="french_agent", instructions="You translate the user's message to French")
    billing = Agent(name="billing_agent", instructions="You handle billing questions")
    return Agent(
        name="orchestrator_agent",
        instructions="You are a translation agent. You use the tools given to you to translate.",
        model="gpt-4.1",
        tools=[
            spanish.as_tool(
                tool_name="translate_to_spanish",
                tool_description="Translate the user's message to Spanish",
            ),
            french.as_tool(
                tool_name="translate_to_french",
                tool_description="Translate the user's message to French",
            ),
        ],
        handoffs=[handoff(billing)],
    )


# -- handoff_models / override_models on an SDK graph --------------------------------------


def test_override_models_swaps_agents_reached_through_as_tool_and_handoffs_by_name() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    graph = translation_graph()
    spanish = graph.tools[0]._agent_instance
    orchestrator = ScriptedModel(
        [
            calls("translate_to_spanish", "translate_to_french", arguments={"input": "hi"}),
            calls("transfer_to_billing_agent"),
        ]
    )
    fakes = {"orchestrator_agent": orchestrator, "spanish_agent": ScriptedModel(["hola"])}
    with override_models(graph, {**fakes, "*": ScriptedModel(["salut", "your bill"])}) as tree:
        assert tree.names == [
            "billing_agent",
            "french_agent",
            "orchestrator_agent",
            "spanish_agent",
        ]
        run = simulate_run(Runner.run(graph, "hi"))
    assert run.final_output == "your bill"
    assert [(h.subagent, h.output) for h in run.trace.handoffs()] == [
        ("spanish_agent", "hola"),
        ("french_agent", "salut"),
    ]
    assert graph.model == "gpt-4.1"  # put back after the block
    assert spanish.model is None


def test_override_models_on_an_sdk_graph_names_the_known_agents_for_an_unknown_name() -> None:
    swap = override_models(translation_graph(), {"translator": ScriptedModel(["x"])})
    with pytest.raises(ConfigurationError) as caught:
        swap.__enter__()
    assert str(caught.value) == (
        "override_models: no agent named 'translator' in the openai-agents graph of "
        "'orchestrator_agent'; known agents: billing_agent, french_agent, orchestrator_agent, "
        "spanish_agent (or '*' for every other agent)"
    )


def test_override_models_finds_the_agent_of_a_governed_tool() -> None:
    from agents import Agent

    from handoff_sim.adapters.openai_agents import governed

    researcher = Agent(name="researcher", instructions="Find facts")
    triage = Agent(name="triage", tools=[governed(researcher, tool_name="research")])
    with override_models(triage, {"researcher": ScriptedModel(["facts"])}) as tree:
        assert tree.names == ["researcher", "triage"]
        assert type(researcher.model).__name__ == "SimModel"
    assert researcher.model is None


# -- governed_handoffs: admission on handoffs=[...] ------------------------------------------


def triage_graph(
    policy: HandoffPolicy,
    *scripts: Any,
    billing: list[Any] | None = None,
    max_transfers: int | None = None,
) -> Any:
    """The SDK docs' triage agent handing off to billing and refunds (billing hands back)."""
    from agents import Agent, handoff

    from handoff_sim.adapters.openai_agents import SimModel, governed_handoffs

    billing_agent = Agent(
        name="billing_agent",
        instructions="Billing",
        model=SimModel(ScriptedModel(billing or ["billing here"])),
    )
    refunds = Agent(
        name="refund_agent", instructions="Refunds", model=SimModel(ScriptedModel(["refunded"]))
    )
    triage = Agent(
        name="triage_agent",
        instructions="Hand off to the right agent",
        handoffs=[billing_agent, handoff(refunds)],
        model=SimModel(ScriptedModel(list(scripts))),
    )
    billing_agent.handoffs = [triage]
    governed_handoffs(triage, policy=policy, max_transfers=max_transfers)
    governed_handoffs(billing_agent, policy=policy, max_transfers=max_transfers)
    return triage


def test_a_denied_transfer_is_reported_to_the_model_and_the_run_stays_with_the_agent() -> None:
    from agents import Runner

    from handoff_sim import check_invariants
    from handoff_sim.adapters.openai_agents import simulate_run

    policy = HandoffPolicy(
        denied_tools={"transfer_to_refund_agent"}, on_denied=FailureAction.REPORT_TO_MODEL
    )
    triage = triage_graph(
        policy,
        calls("transfer_to_refund_agent"),
        {
            **calls("transfer_to_billing_agent"),
            "expect": {
                "last_tool_result_contains": "handoff denied for subagent tool "
                "transfer_to_refund_agent: tool is in denied_tools"
            },
        },
    )
    run = simulate_run(Runner.run(triage, "refund my order"))
    assert run.final_output == "billing here"
    assert [(t.from_agent, t.to_agent) for t in run.transfers] == [
        ("triage_agent", "billing_agent")
    ]
    denied = run.trace.handoffs()
    assert [(h.tool, h.status, h.reason, h.attempts) for h in denied] == [
        ("transfer_to_refund_agent", "denied", "denied_tool", 0)
    ]
    runs = [e.agent for e in run.trace.events if e.type == "run_start"]
    assert runs == ["triage_agent", "billing_agent"]  # the denied transfer opened no run
    assert check_invariants(run.trace) == []
    assert_handoffs_balanced(run)


def test_a_denied_transfer_under_fail_ends_the_run_with_the_denial() -> None:
    from agents import Runner

    from handoff_sim import HandoffDeniedError
    from handoff_sim.adapters.openai_agents import simulate_run

    triage = triage_graph(
        HandoffPolicy(allowed_tools={"transfer_to_billing_agent"}),
        calls("transfer_to_refund_agent"),
    )
    run = simulate_run(Runner.run(triage, "refund"), raise_errors=False)
    assert isinstance(run.error, HandoffDeniedError)
    assert run.error.reason == "not_allowed"
    assert str(run.error) == (
        "handoff denied for subagent tool transfer_to_refund_agent: tool is not in allowed_tools"
    )
    [tool_end] = [e for e in run.trace.events if e.type == "tool_end"]
    assert (tool_end.status, tool_end.output) == ("error", str(run.error))


def test_max_transfers_stops_a_ping_pong_between_two_agents() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    triage = triage_graph(
        HandoffPolicy(on_denied=FailureAction.REPORT_TO_MODEL),
        calls("transfer_to_billing_agent", ids="t1-"),
        calls("transfer_to_billing_agent", ids="t2-"),
        billing=[
            calls("transfer_to_triage_agent", ids="b1-"),
            calls("transfer_to_triage_agent", ids="b2-"),
            {"text": "stop", "expect": {"last_tool_result_contains": "max_transfers 3"}},
        ],
        max_transfers=3,
    )
    run = simulate_run(Runner.run(triage, "loop"))
    assert run.final_output == "stop"
    assert [t.to_agent for t in run.transfers] == ["billing_agent", "triage_agent", "billing_agent"]
    [denied] = run.trace.handoffs()
    assert (denied.status, denied.reason, denied.error) == (
        "denied",
        "not_allowed",
        "transfer 4 of this run exceeds max_transfers 3",
    )


# -- failures a retry cannot fix ------------------------------------------------------------


def guarded_researcher() -> Any:
    """A delegate whose ``@input_guardrail`` trips on every input, as the SDK docs write one."""
    from agents import Agent, GuardrailFunctionOutput, input_guardrail

    from handoff_sim.adapters.openai_agents import SimModel

    @input_guardrail
    async def no_homework(ctx: Any, agent: Any, text: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info="homework", tripwire_triggered=True)

    return Agent(
        name="researcher",
        instructions="Research",
        input_guardrails=[no_homework],
        model=SimModel(ScriptedModel(["never asked"] * 3)),
    )


def delegating(policy: HandoffPolicy, arguments: Any, expect: str) -> Any:
    from agents import Agent

    from handoff_sim.adapters.openai_agents import SimModel, governed

    research = governed(guarded_researcher(), tool_name="research", policy=policy)
    script = [
        calls("research", arguments=arguments),
        {"text": "done", "expect": {"last_tool_result_contains": expect}},
    ]
    return Agent(name="triage", tools=[research], model=SimModel(ScriptedModel(script)))


SDK_WORDING = "An error occurred while running the tool. Please try again."


def test_a_guardrail_tripwire_in_a_governed_delegate_is_not_retried() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    triage = delegating(HandoffPolicy(max_retries=2), {"input": "do my homework"}, SDK_WORDING)
    run = simulate_run(Runner.run(triage, "go"))
    [research] = run.trace.handoffs()
    assert (research.status, research.attempts) == ("failed", 1)
    assert research.error == "Guardrail InputGuardrail triggered tripwire"  # the SDK's message
    [tool_end] = [e for e in run.trace.events if e.type == "tool_end"]
    assert tool_end.output == SDK_WORDING  # as as_tool answers any failure, not Error: <Class>


def test_the_sdk_refusal_of_a_calls_arguments_is_not_retried() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    triage = delegating(HandoffPolicy(max_retries=2), {"question": "x"}, SDK_WORDING)
    run = simulate_run(Runner.run(triage, "go"))
    [research] = run.trace.handoffs()
    assert (research.status, research.attempts) == ("failed", 1)
    assert research.error is not None
    assert research.error.startswith("Invalid JSON input for tool research")


def test_a_policy_retry_on_overrides_the_sdk_classification() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    policy = HandoffPolicy(max_retries=2, retry_on=lambda error: True)
    run = simulate_run(Runner.run(delegating(policy, {"input": "x"}, SDK_WORDING), "go"))
    assert [h.attempts for h in run.trace.handoffs()] == [3]


# -- what a newcomer's test reaches for -----------------------------------------------------


def test_simulated_run_final_output_is_the_sdk_results_final_output() -> None:
    from agents import Agent, Runner

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run

    agent = Agent(name="helper", model=SimModel(ScriptedModel(["42"])))
    run = simulate_run(Runner.run(agent, "the answer?"))
    assert run.final_output == "42"
    assert run.output == "42"
    failed = simulate_run(Runner.run(agent, "again"), raise_errors=False)  # script used up
    assert failed.error is not None
    assert failed.final_output is None


def test_a_governed_tool_without_a_description_is_described_by_the_agents_handoff_description() -> (
    None
):
    from agents import Agent

    from handoff_sim.adapters.openai_agents import governed

    spanish = Agent(name="spanish_agent", handoff_description="An english to spanish translator")
    assert governed(spanish).description == "An english to spanish translator"
    assert governed(spanish, tool_description="Spanish").description == "Spanish"


def test_what_a_test_needs_imports_from_the_top_level() -> None:
    import handoff_sim
    from handoff_sim import HandoffDeniedError, check_invariants
    from handoff_sim.adapters import Transfer

    assert "Transfer" not in handoff_sim.__all__  # one home: handoff_sim.adapters
    assert Transfer.__module__.startswith("handoff_sim.adapters.")
    assert handoff_sim.HandoffDeniedError is HandoffDeniedError
    assert handoff_sim.check_invariants is check_invariants


def test_structured_output_is_scripted_as_the_json_text_the_sdk_validates() -> None:
    from agents import Agent, Runner
    from agents.exceptions import ModelBehaviorError
    from pydantic import BaseModel

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run

    class Weather(BaseModel):
        city: str
        degrees: int

    def agent(output_type: Any, text: str) -> Any:
        return Agent(name="w", output_type=output_type, model=SimModel(ScriptedModel([text])))

    run = simulate_run(Runner.run(agent(Weather, '{"city": "Oslo", "degrees": 3}'), "x"))
    assert run.final_output == Weather(city="Oslo", degrees=3)
    wrapped = simulate_run(Runner.run(agent(list[str], '{"response": ["a", "b"]}'), "x"))
    assert wrapped.final_output == ["a", "b"]  # not an object type: wrapped in "response"
    bad = simulate_run(Runner.run(agent(Weather, '{"city": "Oslo"}'), "x"), raise_errors=False)
    assert isinstance(bad.error, ModelBehaviorError)


def test_a_governed_delegate_may_not_transfer_under_the_default_max_depth() -> None:
    from agents import Agent, Runner

    from handoff_sim import check_invariants
    from handoff_sim.adapters.openai_agents import (
        SimModel,
        governed,
        governed_handoffs,
        simulate_run,
    )

    policy = HandoffPolicy(on_denied=FailureAction.REPORT_TO_MODEL)
    billing = Agent(name="billing_agent", model=SimModel(ScriptedModel(["billed"])))
    worker = Agent(
        name="worker",
        handoffs=[billing],
        model=SimModel(ScriptedModel([calls("transfer_to_billing_agent", ids="w"), "gave up"])),
    )
    governed_handoffs(worker, policy=policy)
    top = Agent(
        name="top",
        tools=[governed(worker, tool_name="work", policy=policy)],
        model=SimModel(ScriptedModel([calls("work", arguments={"input": "x"}, ids="t"), "done"])),
    )
    run = simulate_run(Runner.run(top, "go"))
    assert [(h.tool, h.status, h.reason, h.depth) for h in run.trace.handoffs()] == [
        ("work", "completed", None, 1),
        ("transfer_to_billing_agent", "denied", "max_depth", 2),
    ]
    assert run.trace.handoffs()[0].output == "gave up"  # the delegate's run went on
    assert run.transfers == ()
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"policy": "strict"}, "policy must be a HandoffPolicy, got 'strict'"),
        ({"max_transfers": -1}, "max_transfers must be an int >= 0 or None, got -1"),
        ({"max_transfers": True}, "max_transfers must be an int >= 0 or None, got True"),
    ],
)
def test_governed_handoffs_refuses_a_bad_argument_by_name(
    arguments: dict[str, Any], message: str
) -> None:
    from agents import Agent

    from handoff_sim.adapters import GovernanceError
    from handoff_sim.adapters.openai_agents import governed_handoffs

    with pytest.raises(GovernanceError) as caught:
        governed_handoffs(Agent(name="triage"), **arguments)
    assert str(caught.value) == f"governed_handoffs(): {message}"


def test_a_denied_transfer_outside_any_capture_still_reaches_the_model_as_its_result() -> None:
    import asyncio

    from agents import RunConfig, Runner

    policy = HandoffPolicy(
        denied_tools={"transfer_to_refund_agent"}, on_denied=FailureAction.REPORT_TO_MODEL
    )
    triage = triage_graph(
        policy,
        calls("transfer_to_refund_agent", ids="r"),
        {"text": "sorry", "expect": {"last_tool_result_contains": "tool is in denied_tools"}},
    )
    config = RunConfig(tracing_disabled=True)
    result = asyncio.run(Runner.run(triage, "refund", run_config=config))
    assert result.final_output == "sorry"
    assert result.last_agent is triage


@pytest.mark.parametrize("raise_errors", [True, False])
def test_runner_run_sync_in_virtual_time_is_refused_naming_the_async_call(
    raise_errors: bool,
) -> None:
    from agents import Agent, Runner
    from agents.exceptions import UserError

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run
    from handoff_sim.testing import ScriptedModel

    helper = Agent(name="helper", model=SimModel(ScriptedModel(["hi"])))
    with pytest.raises(UserError, match=r"await Runner\.run\(agent, \.\.\.\)") as caught:
        simulate_run(lambda: Runner.run_sync(helper, "go"), raise_errors=raise_errors)
    assert "cannot be called when an event loop is already running" not in str(caught.value)
    assert "simulate_run(lambda: Runner.run(agent, ...))" in str(caught.value)
    assert isinstance(caught.value.__cause__, RuntimeError)
