"""SoPhi style, risk: K4 (tiers, worst-tier delegation, SAFE pre-grants, batched confirmation)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from handoff_sim import Agent, ConfigurationError, UnknownToolError, simulate, tool
from handoff_sim._tools import ToolSetExecutor
from handoff_sim.styles.sophi import (
    DENY_ALL,
    ConfirmationGate,
    ConfirmationRequest,
    RiskLevel,
    SubagentDispatcher,
    ToolRegistry,
    sophi_agent,
    with_risk,
)
from handoff_sim.styles.sophi._confirmation import GatedExecutor
from handoff_sim.styles.sophi._risk import risk_of
from handoff_sim.testing import ScriptedModel
from tests.styles._support import Counter, call, counting_tool, definition, delegation, turn

SAFE, CAUTION, DESTRUCTIVE = RiskLevel.SAFE, RiskLevel.CAUTION, RiskLevel.DESTRUCTIVE


class Recorder:
    """A confirmation policy that records each batch and approves the tools in ``approve``."""

    def __init__(self, *approve: str) -> None:
        self.approve = set(approve)
        self.batches: list[list[tuple[str, str, RiskLevel]]] = []

    def __call__(self, requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        self.batches.append([(r.call_id, r.tool_name, r.risk) for r in requests])
        return {r.call_id: r.tool_name in self.approve for r in requests}


def never_consulted(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
    raise AssertionError(f"the policy was consulted for {requests}")


def tools(counter: Counter) -> ToolRegistry:
    return ToolRegistry(
        [
            counting_tool("read_file", counter, SAFE),
            counting_tool("bash", counter, CAUTION),
            counting_tool("danger", counter, DESTRUCTIVE),
        ]
    )


# tiers and the registry (ToolRegistry cases) --------------------------------------------------


def test_k4_tiers_are_ordered_safe_caution_destructive() -> None:
    assert SAFE < CAUTION < DESTRUCTIVE
    assert max(SAFE, DESTRUCTIVE, CAUTION) is DESTRUCTIVE
    assert RiskLevel.parse("destructive") is DESTRUCTIVE
    assert str(CAUTION) == "CAUTION"


def test_k4_a_tool_without_a_declared_tier_is_safe_and_a_bad_tier_is_rejected() -> None:
    plain = tool(lambda: "x", name="plain")
    assert risk_of(plain) is SAFE
    plain.metadata["risk"] = "lethal"
    with pytest.raises(ConfigurationError, match="tool 'plain': risk must be one of"):
        ToolRegistry([plain])


def test_k4_a_tier_may_depend_on_the_arguments_and_fails_closed() -> None:
    def tier(arguments: dict[str, Any]) -> str:
        return "caution" if arguments.get("command", "").startswith("ls") else "destructive"

    bash = with_risk(tool(lambda command="": command, name="bash"), tier)
    assert risk_of(bash, {"command": "ls -la"}) is CAUTION
    assert risk_of(bash, {"command": "rm -rf /"}) is DESTRUCTIVE
    broken = with_risk(tool(lambda: "x", name="broken"), lambda args: 1 / 0)  # type: ignore[arg-type,return-value]
    assert risk_of(broken) is DESTRUCTIVE


def test_k4_registry_basics() -> None:
    counter = Counter()
    empty = ToolRegistry()
    assert (empty.names(), empty.definitions()) == ([], [])
    read = counting_tool("read_file", counter)
    registry = ToolRegistry()
    assert registry.register(read) is registry
    assert registry.get("read_file") is read
    with pytest.raises(UnknownToolError, match="Tool not found: nope"):
        registry.get("nope")
    assert registry.get_or_none("nope") is None
    registry.register(counting_tool("alpha", counter))
    assert registry.names() == ["alpha", "read_file"]
    assert [d.name for d in registry.definitions()] == ["read_file", "alpha"]
    assert registry.unregister("nope") is registry
    assert registry.unregister("alpha").names() == ["read_file"]


def test_k4_subset_keeps_only_known_named_tools() -> None:
    counter = Counter()
    full = ToolRegistry([counting_tool(n, counter) for n in ("read_file", "write_file", "grep")])
    assert full.subset(["read_file"]).names() == ["read_file"]
    assert full.subset(["read_file", "does_not_exist"]).names() == ["read_file"]
    assert full.subset([]).names() == []
    assert full.subset(None).names() == []


def test_k4_safe_grants_keep_only_known_safe_tools() -> None:
    registry = tools(Counter())
    assert registry.safe_grants_from(["read_file", "bash", "danger"]) == {"read_file"}
    assert registry.safe_grants_from(["read_file", "ghost"]) == {"read_file"}
    assert registry.safe_grants_from(None) == frozenset()
    assert registry.safe_grants_from([]) == frozenset()


def test_k4_worst_risk_among_named_tools() -> None:
    registry = tools(Counter())
    assert registry.worst_risk_among(["read_file"]) is SAFE
    assert registry.worst_risk_among(["read_file", "bash"]) is CAUTION
    assert registry.worst_risk_among(["read_file", "bash", "danger"]) is DESTRUCTIVE
    assert registry.worst_risk_among(["ghost"]) is SAFE
    assert registry.worst_risk_among(None) is SAFE
    assert registry.worst_risk_among([]) is SAFE


# the delegation call's own tier ---------------------------------------------------------------


def delegation_args(**extra: Any) -> str:
    return json.dumps({"subagent_type": "explore", "prompt": "p", **extra})


def test_k4_delegation_without_expected_tools_is_safe() -> None:
    dispatcher = SubagentDispatcher([], registry=tools(Counter()))
    assert dispatcher.risk_level(delegation_args()) is SAFE


def test_k4_delegation_takes_the_worst_tier_of_its_expected_tools() -> None:
    dispatcher = SubagentDispatcher([], registry=tools(Counter()))
    assert dispatcher.risk_level(delegation_args(expected_tools=["read_file"])) is SAFE
    assert dispatcher.risk_level(delegation_args(expected_tools=["read_file", "bash"])) is CAUTION
    assert (
        dispatcher.risk_level(delegation_args(expected_tools=["read_file", "danger"]))
        is DESTRUCTIVE
    )
    assert dispatcher.risk_level(delegation_args(expected_tools=["ghost"])) is SAFE


def test_k4_delegation_arguments_that_do_not_parse_fail_closed() -> None:
    dispatcher = SubagentDispatcher([], registry=tools(Counter()))
    assert dispatcher.risk_level("not json") is DESTRUCTIVE
    assert dispatcher.risk_level("{}") is DESTRUCTIVE


# confirmation inside the sub-agent ----------------------------------------------------------------


def run_operator(
    sub_steps: list[Any],
    policy: Any,
    *,
    expected: list[str] | None = None,
    allowed: tuple[str, ...] = ("read_file", "bash", "danger"),
    counter: Counter | None = None,
) -> tuple[Any, ScriptedModel, Counter]:
    counter = counter or Counter()
    sub_model = ScriptedModel(sub_steps)
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("operator", expected_tools=expected, id="d1")), "ok"]),
        definitions=[definition("operator", *allowed)],
        registry=tools(counter),
        models={"operator": sub_model},
        confirmation_policy=policy,
    )
    return simulate(agent, "go"), sub_model, counter


def test_k4_a_destructive_call_the_policy_denies_never_runs() -> None:
    _, sub_model, counter = run_operator([turn(call("danger", {}, "x1")), "done"], DENY_ALL)
    (message,) = sub_model.requests[1].last_tool_results()
    assert message.content == "Error: Tool 'danger' execution denied by confirmation policy"
    assert message.is_error
    assert counter["danger"] == 0


def test_k4_a_destructive_call_the_policy_allows_runs() -> None:
    policy = Recorder("danger")
    _, _, counter = run_operator([turn(call("danger", {}, "x1")), "done"], policy)
    assert counter["danger"] == 1
    assert policy.batches == [[("x1", "danger", DESTRUCTIVE)]]


def test_k4_a_safe_call_never_consults_the_policy() -> None:
    _, _, counter = run_operator([turn(call("read_file", {}, "x1")), "done"], never_consulted)
    assert counter["read_file"] == 1


def test_k4_a_safe_expected_tool_is_used_without_asking() -> None:
    result, _, counter = run_operator(
        [turn(call("read_file", {}, "x1")), "done"], never_consulted, expected=["read_file"]
    )
    assert result.messages[2].content == "done"
    assert counter["read_file"] == 1


def test_k4_caution_calls_need_confirmation_too() -> None:
    policy = Recorder()
    _, _, counter = run_operator([turn(call("bash", {}, "x1")), "done"], policy)
    assert policy.batches == [[("x1", "bash", CAUTION)]]
    assert counter["bash"] == 0


@pytest.mark.parametrize("parallel", [False, True])
def test_k4_risky_calls_of_one_turn_are_confirmed_in_one_batch(parallel: bool) -> None:
    counter = Counter()
    policy = Recorder("danger")
    agent = sophi_agent(
        "main",
        ScriptedModel(
            [
                turn(
                    call("danger", {}, "a"),
                    call("read_file", {}, "b"),
                    call("bash", {}, "c"),
                    call("danger", {}, "d"),
                ),
                "ok",
            ]
        ),
        definitions=[],
        registry=tools(counter),
        confirmation_policy=policy,
        parallel_tool_calls=parallel,
    )
    result = simulate(agent, "go")
    assert policy.batches == [
        [("a", "danger", DESTRUCTIVE), ("c", "bash", CAUTION), ("d", "danger", DESTRUCTIVE)]
    ]
    assert (counter["danger"], counter["read_file"], counter["bash"]) == (2, 1, 0)
    denied = [m.content for m in result.messages if m.role == "tool" and m.is_error]
    assert denied == ["Error: Tool 'bash' execution denied by confirmation policy"]


def test_k4_each_turn_is_its_own_batch() -> None:
    policy = Recorder("danger")
    run_operator([turn(call("danger", {}, "x1")), turn(call("danger", {}, "x2")), "done"], policy)
    assert policy.batches == [[("x1", "danger", DESTRUCTIVE)], [("x2", "danger", DESTRUCTIVE)]]


def test_k4_an_async_policy_is_awaited() -> None:
    async def approve(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        return {r.call_id: True for r in requests}

    _, _, counter = run_operator([turn(call("danger", {}, "x1")), "done"], approve)
    assert counter["danger"] == 1


def test_k4_a_granted_destructive_tool_runs_without_consulting_the_policy() -> None:
    counter = Counter()
    registry = tools(counter)
    gate = ConfirmationGate(
        never_consulted,
        lambda c: risk_of(registry.get(c.name)) if c.name in registry else None,
        grants={"danger"},
    )
    agent = Agent(
        "main",
        ScriptedModel([turn(call("danger", {}, "x1")), "ok"]),
        tools=registry.tools(),
        tool_executor=GatedExecutor(ToolSetExecutor(registry.tools()), gate),  # type: ignore[arg-type]
    )
    simulate(agent, "go")
    assert counter["danger"] == 1


# the self-grant bypass stays closed ---------------------------------------------------------------


def test_k4_naming_a_destructive_tool_grants_nothing_and_makes_the_delegation_destructive() -> None:
    policy = Recorder("delegate_to_subagent")  # approves the delegation, refuses everything else
    _, sub_model, counter = run_operator(
        [turn(call("danger", {}, "x1")), "done"], policy, expected=["read_file", "danger"]
    )
    assert policy.batches == [
        [("d1", "delegate_to_subagent", DESTRUCTIVE)],
        [("x1", "danger", DESTRUCTIVE)],
    ]
    assert counter["danger"] == 0
    assert sub_model.requests[1].last_tool_results()[0].content == (
        "Error: Tool 'danger' execution denied by confirmation policy"
    )


def test_k4_a_refused_delegation_never_starts_the_subagent() -> None:
    result, sub_model, _ = run_operator(["never"], DENY_ALL, expected=["danger"])
    assert result.messages[2].content == (
        "Error: Tool 'delegate_to_subagent' execution denied by confirmation policy"
    )
    assert sub_model.requests == []
    (record,) = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("denied", "not_allowed", 0)


def test_k4_a_grant_never_covers_a_call_whose_real_arguments_are_riskier() -> None:
    counter = Counter()

    def wipe(path: str = "") -> str:
        counter.calls["wipe"] = counter["wipe"] + 1
        return "wiped"

    # SAFE for the empty-arguments probe, DESTRUCTIVE for a real path (ADR-027's residual gap)
    risky = with_risk(tool(wipe, name="wipe"), lambda a: "destructive" if a else "safe")
    sub_model = ScriptedModel([turn(call("wipe", {"path": "/"}, "x1")), "done"])
    policy = Recorder()
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("operator", expected_tools=["wipe"], id="d1")), "ok"]),
        definitions=[definition("operator", "wipe")],
        registry=[risky],
        models={"operator": sub_model},
        confirmation_policy=policy,
    )
    simulate(agent, "go")
    assert policy.batches == [[("x1", "wipe", DESTRUCTIVE)]]
    assert counter["wipe"] == 0


def test_k4_the_dispatcher_itself_can_never_be_pre_granted() -> None:
    policy = Recorder()
    inner = ScriptedModel(
        [turn(delegation("recursive", expected_tools=["danger"], id="n1")), "inner done"]
    )
    agent = sophi_agent(
        "main",
        ScriptedModel(
            [turn(delegation("recursive", expected_tools=["delegate_to_subagent"], id="d1")), "ok"]
        ),
        definitions=[definition("recursive", "delegate_to_subagent", "danger")],
        registry=tools(Counter()),
        models={"recursive": inner},
        confirmation_policy=policy,
    )
    result = simulate(agent, "go")
    assert policy.batches == [[("n1", "delegate_to_subagent", DESTRUCTIVE)]]
    assert inner.requests[1].last_tool_results()[0].content == (
        "Error: Tool 'delegate_to_subagent' execution denied by confirmation policy"
    )
    assert [h.status for h in result.trace.handoffs()] == ["completed", "denied"]


def test_k4_a_dispatcher_mounted_on_a_plain_agent_confirms_its_own_calls() -> None:
    sub_model = ScriptedModel([])
    dispatcher = SubagentDispatcher(
        [definition("operator", "danger")],
        model=sub_model,
        registry=tools(Counter()),
        confirmation_policy=DENY_ALL,
    )
    agent = Agent(
        "main",
        ScriptedModel([turn(delegation("operator", expected_tools=["danger"], id="d1")), "ok"]),
        subagents=[dispatcher],
    )
    result = simulate(agent, "go")
    assert result.messages[2].content == (
        "Error: Tool 'delegate_to_subagent' execution denied by confirmation policy"
    )
    assert sub_model.requests == []


def test_k4_a_policy_that_returns_no_mapping_fails_the_call_loudly() -> None:
    _, sub_model, counter = run_operator(
        [turn(call("danger", {}, "x1")), "done"], lambda requests: True
    )
    assert counter["danger"] == 0
    assert sub_model.requests[1].last_tool_results()[0].content == (
        "Error: TypeError: a confirmation policy must return a mapping of call id to bool, got bool"
    )
