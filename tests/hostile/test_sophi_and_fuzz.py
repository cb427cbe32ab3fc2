"""Hostile cases for the SoPhi style: a confirmation that outlives its attempt, hostile definitions.

Issue items: an async confirmation policy cut off by a per-attempt timeout leaves
no task behind; one hostile definition file (nested thousands deep, binary, not
UTF-8, a directory, huge) is skipped and reported, and the others still load.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from handoff_sim import Agent, HandoffPolicy, hookimpl
from handoff_sim.events import Event
from handoff_sim.scenarios import ScenarioFileError, load_file, render_failure, run_scenario
from handoff_sim.styles.sophi import (
    AgentDefinitionError,
    ConfirmationRequest,
    RiskLevel,
    load_agent_definitions,
    sophi_agent,
)
from handoff_sim.styles.sophi._definitions import load_agent_definition
from handoff_sim.testing import ScriptedModel
from tests.hostile._support import run_hostile
from tests.styles._support import Counter, call, counting_tool, definition, delegation, turn

FILES = Path(__file__).parent / "files"
GOOD = "---\nname: {name}\ndescription: {name} agent\n---\nYou are {name}.\n"


class SlowPolicy:
    """An async confirmation policy that takes ``latency`` seconds (forever when None)."""

    def __init__(self, latency: float | None) -> None:
        self.latency = latency
        self.asked: list[list[str]] = []
        self.cancelled = 0

    async def __call__(self, requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        self.asked.append([r.call_id for r in requests])
        try:
            if self.latency is None:
                await asyncio.Event().wait()
            else:
                await asyncio.sleep(self.latency)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return {r.call_id: True for r in requests}


def cleaner_tree(
    policy: SlowPolicy, sub_steps: Sequence[object], *, parallel: bool = False, timeout: float = 1
) -> tuple[Agent, Counter]:
    """A main agent delegating to ``cleaner``, whose risky ``rm`` needs ``policy``'s approval."""
    counter = Counter()
    rm = counting_tool("rm", counter, RiskLevel.DESTRUCTIVE)
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("cleaner", id="d1")), "ok"]),
        definitions=[definition("cleaner", "rm")],
        registry=[rm],
        models={"cleaner": ScriptedModel(list(sub_steps))},
        confirmation_policy=policy,
        handoff_policy=HandoffPolicy(timeout=timeout),
        parallel_tool_calls=parallel,
    )
    return agent, counter


# An async confirmation policy cut off by the attempt timeout -----------------------------


def test_confirmation_policy_slower_than_the_attempt_timeout_leaves_no_task() -> None:
    policy = SlowPolicy(latency=5)
    agent, counter = cleaner_tree(policy, [turn(call("rm", id="r1")), "done"])

    outcome = run_hostile(agent)  # asserts balanced events and an empty loop

    assert outcome.result.output == "ok"
    assert (policy.asked, policy.cancelled, counter["rm"]) == ([["r1"]], 1, 0)
    (record,) = outcome.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("failed", "timeout", 1)
    assert outcome.trace.events[-1].t == 1.0  # cut at the timeout, not when the policy answers


def test_parallel_calls_sharing_one_confirmation_leave_no_task_when_the_attempt_times_out() -> None:
    policy = SlowPolicy(latency=None)  # never answers
    steps = [turn(call("rm", id="r1"), call("rm", id="r2")), "done"]
    agent, counter = cleaner_tree(policy, steps, parallel=True)

    outcome = run_hostile(agent)

    assert (policy.asked, policy.cancelled, counter["rm"]) == ([["r1", "r2"]], 1, 0)
    tool_ends = [e.to_dict() for e in outcome.trace.events if e.type == "tool_end"]
    assert sorted((e["call_id"], e["status"]) for e in tool_ends) == [
        ("d1", "error"),
        ("r1", "cancelled"),
        ("r2", "cancelled"),
    ]


def test_a_retried_attempt_asks_the_policy_again_and_leaves_no_task() -> None:
    policy = SlowPolicy(latency=5)
    counter = Counter()
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("cleaner", id="d1")), "ok"]),
        definitions=[definition("cleaner", "rm")],
        registry=[counting_tool("rm", counter, RiskLevel.DESTRUCTIVE)],
        models={"cleaner": ScriptedModel([turn(call("rm", id="r1")), turn(call("rm", id="r2"))])},
        confirmation_policy=policy,
        handoff_policy=HandoffPolicy(timeout=1, max_retries=1),
    )

    outcome = run_hostile(agent)

    assert (policy.asked, policy.cancelled, counter["rm"]) == ([["r1"], ["r2"]], 2, 0)
    (record,) = outcome.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("failed", "timeout", 2)


def test_nested_delegation_confirmation_cut_off_by_the_outer_timeout_leaves_no_task() -> None:
    """The depth-1 agent's gate confirms a deeper delegation; the depth-1 attempt times out."""
    policy = SlowPolicy(latency=30)
    planner = definition("planner", "delegate_to_subagent", "rm")
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("planner", id="d1")), "ok"]),
        definitions=[planner, definition("cleaner", "rm")],
        registry=[counting_tool("rm", Counter(), RiskLevel.DESTRUCTIVE)],
        models={
            "planner": ScriptedModel(
                [turn(delegation("cleaner", expected_tools=["rm"], id="d2")), "planned"]
            ),
            "cleaner": ScriptedModel(["cleaned"]),
        },
        confirmation_policy=policy,
        handoff_policy=HandoffPolicy(timeout=2),
    )

    outcome = run_hostile(agent)

    assert (policy.asked, policy.cancelled) == ([["d2"]], 1)
    by_call = {r.call_id: (r.status, r.reason) for r in outcome.trace.handoffs()}
    assert by_call == {"d1": ("failed", "timeout"), "d2": ("cancelled", None)}


def test_confirmation_cut_off_in_real_time_is_cancelled_before_arun_returns() -> None:
    policy = SlowPolicy(latency=None)
    agent, counter = cleaner_tree(policy, [turn(call("rm", id="r1")), "done"], timeout=0.005)

    async def main() -> tuple[str | None, list[asyncio.Task[object]]]:
        result = await agent.arun("go")
        return result.output, [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    output, leftover = asyncio.run(main())

    assert (output, leftover, policy.cancelled, counter["rm"]) == ("ok", [], 1, 0)


def test_confirmation_cut_off_under_agent_run_is_cancelled_before_the_run_ends() -> None:
    policy = SlowPolicy(latency=None)
    agent, _ = cleaner_tree(policy, [turn(call("rm", id="r1")), "done"], timeout=0.005)
    cancelled_at_run_end: list[int] = []

    class WatchRunEnd:
        @hookimpl
        def handoff_sim_event(self, event: Event) -> None:
            if event.type == "run_end" and event.agent == "main":
                cancelled_at_run_end.append(policy.cancelled)

    result = agent.run("go", observers=[WatchRunEnd()])

    assert (result.output, cancelled_at_run_end) == ("ok", [1])
    assert result.trace.unbalanced() == []


# Hostile definition files ---------------------------------------------------------------


def write_bad(folder: Path, kind: str) -> Path:
    """One hostile file (or thing) named ``bad.md`` in ``folder``."""
    path = folder / "bad.md"
    if kind == "nested 3000 deep (flow)":
        path.write_text("---\nname: " + "[" * 3000 + "]" * 3000 + "\ndescription: d\n---\nB\n")
    elif kind == "nested 300 deep (block)":
        lines = "\n".join(" " * (i + 1) + "- " for i in range(300))
        path.write_text(f"---\nname: x\ndescription: d\nmodel:\n{lines}\n---\nB\n")
    elif kind == "invalid UTF-8":
        path.write_bytes(b"---\nname: \xff\xfe\ndescription: d\n---\nB\n")
    elif kind == "a NUL byte":
        path.write_bytes(b"---\nname: n\ndescription: d\n---\nBody \x00 here\n")
    elif kind == "a directory":
        path.mkdir()
    elif kind == "huge":
        path.write_bytes(b"---\nname: h\ndescription: d\n---\n" + b"x" * 1_000_001)
    elif kind == "a 5000-digit integer":
        path.write_text("---\nname: " + "1" * 5000 + "\ndescription: d\n---\nB\n")
    elif kind == "a dangling link":
        path.symlink_to(folder / "nowhere")
    elif kind == "a link to itself":
        path.symlink_to(path)
    elif kind == "a FIFO":
        os.mkfifo(path)
    return path


REASONS = {
    "nested 3000 deep (flow)": "nested deeper than 50 levels",
    "nested 300 deep (block)": "nested deeper than 50 levels",
    "invalid UTF-8": "is not valid UTF-8 (byte offset 10)",
    "a NUL byte": "holds a NUL byte",
    "a directory": "is not a regular file (a directory)",
    "huge": "is larger than 1000000 bytes",
    "a 5000-digit integer": "Exceeds the limit (4300 digits)",
    "a dangling link": "cannot be read (No such file or directory)",
    "a link to itself": "cannot be read (Too many levels of symbolic links)",
    "a FIFO": "is not a regular file (a special file)",
}


@pytest.mark.parametrize("kind", list(REASONS))
def test_a_hostile_definition_file_is_skipped_and_reported_the_others_load(
    tmp_path: Path, kind: str
) -> None:
    if kind == "a FIFO" and not hasattr(os, "mkfifo"):
        pytest.skip("this platform has no named pipes")
    (tmp_path / "alpha.md").write_text(GOOD.format(name="alpha"), encoding="utf-8")
    (tmp_path / "zeta.md").write_text(GOOD.format(name="zeta"), encoding="utf-8")
    bad = write_bad(tmp_path, kind)

    load = load_agent_definitions(tmp_path, warn=False)

    assert [d.name for d in load.definitions] == ["alpha", "zeta"]
    (problem,) = load.problems
    assert problem.path == bad
    assert str(bad) in str(problem)
    assert REASONS[kind] in str(problem)


def test_a_hostile_definition_is_a_warning_naming_the_file_not_a_crash(tmp_path: Path) -> None:
    bad = write_bad(tmp_path, "nested 3000 deep (flow)")

    with pytest.warns(UserWarning, match="nested deeper than 50 levels") as caught:
        load = load_agent_definitions(tmp_path)

    assert (load.definitions, len(caught)) == ([], 1)
    assert str(bad) in str(caught[0].message)
    with pytest.raises(AgentDefinitionError, match="nested deeper than 50 levels"):
        load_agent_definition(bad)


def test_deep_front_matter_is_refused_even_deep_in_the_call_stack(tmp_path: Path) -> None:
    """Called with little stack left, the parser may hit the recursion limit: still refused."""
    bad = write_bad(tmp_path, "nested 3000 deep (flow)")
    limit = sys.getrecursionlimit()

    def deep(levels: int) -> AgentDefinitionError:
        if levels:
            return deep(levels - 1)
        with pytest.raises(AgentDefinitionError) as caught:
            load_agent_definition(bad)
        return caught.value

    error = deep(limit - 100)
    assert str(error).startswith(f"Agent definition file has invalid frontmatter: {bad}: ")


# The hostile scenario files -------------------------------------------------------------


def test_sophi_scenario_skipping_hostile_definitions_runs_with_the_good_one() -> None:
    (scenario,) = load_file(FILES / "sophi_hostile_definitions_skipped.yaml")

    outcome = run_scenario(scenario)

    assert outcome.passed, render_failure(outcome)
    assert list(scenario.agent_types) == ["helper"]


def test_sophi_scenario_with_a_hostile_definition_is_refused_at_its_agent_types_dir_line() -> None:
    path = FILES / "sophi_hostile_definition_refused.yaml"
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)

    text = str(caught.value)
    assert f"{path}:" in text
    assert "agent_types_dir" in text
    assert "nested deeper than 50 levels" in text
    assert "Traceback" not in text


def test_a_definition_folder_that_cannot_be_listed_is_a_scenario_error_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = FILES / "sophi_hostile_definitions_skipped.yaml"
    listdir = os.listdir

    def refuse_agents_deep(folder: str | os.PathLike[str]) -> list[str]:
        if str(folder).endswith("agents_deep"):
            raise PermissionError(13, "Permission denied")
        return listdir(folder)

    monkeypatch.setattr(os, "listdir", refuse_agents_deep)
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)

    assert "Cannot list agent definition folder" in str(caught.value)
    assert "Permission denied" in str(caught.value)
    assert f"{path}:5:" in str(caught.value)
