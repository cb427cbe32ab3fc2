"""Issue 14, item 8: ``clock: real`` runs a scenario's turns through ``Agent.arun`` on a
real event loop, with latencies and timeouts bounded at load and a deadline on the run.

Real time is spent here on purpose, a few milliseconds per test: every latency and
timeout below is 1 to 20 ms, and the slow sub-agents are cancelled, never awaited.
"""

from __future__ import annotations

import asyncio
from typing import Any

import jsonschema
import pytest

from handoff_sim import hookimpl
from handoff_sim.cli import main
from handoff_sim.errors import RunError
from handoff_sim.events import Event
from handoff_sim.scenarios import (
    ScenarioFileError,
    load_dict,
    load_file,
    run_scenario,
    scenario_json_schema,
)
from handoff_sim.simulation import VirtualTimeLoop
from handoff_sim.testing import FunctionModel

from ._util import BUNDLED, delegation


def _real(**overrides: Any) -> dict[str, Any]:
    data = delegation(clock="real", **overrides)
    data["agents"]["reviewer"]["model"]["script"][0]["latency"] = "1ms"
    return data


class LoopSeen:
    """An observer noting the event loop each event is emitted on."""

    def __init__(self) -> None:
        self.loops: set[type[asyncio.AbstractEventLoop]] = set()

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        self.loops.add(type(asyncio.get_running_loop()))


def test_a_real_clock_scenario_runs_on_a_real_event_loop() -> None:
    seen = LoopSeen()
    result = run_scenario(_real(expect={"output": "done"}), observers=[seen])
    assert result.passed, result.render_failure()
    assert seen.loops
    assert not any(issubclass(loop, VirtualTimeLoop) for loop in seen.loops)


def test_a_virtual_clock_scenario_runs_in_virtual_time() -> None:
    seen = LoopSeen()
    run_scenario(delegation(), observers=[seen])
    assert all(issubclass(loop, VirtualTimeLoop) for loop in seen.loops)


def test_turns_share_one_session_and_seeded_ids_on_the_real_loop() -> None:
    data = _real(run=["go", "again"])
    script = data["agents"]["manager"]["model"]["script"]
    roles = ["user", "assistant", "tool", "assistant", "user"]  # turn 1 is in the session
    script.append({"text": "second", "expect": {"message_roles": roles}})
    first, second = run_scenario(data), run_scenario(data)
    assert first.outputs == ["done", "second"], first.render_failure()
    assert first.passed

    def untimed(result: Any) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in e.to_dict().items() if k not in ("t", "duration_ms")}
            for e in result.trace
        ]

    assert untimed(first) == untimed(second)  # same seed: same ids, same order


def test_a_timeout_fires_in_real_time_and_cancels_the_slow_sub_agent() -> None:
    data = _real(expect={"handoffs": [{"status": "failed", "reason": "timeout", "attempts": 1}]})
    data["agents"]["manager"]["policy"] = {"timeout": "5ms", "on_error": "report_to_model"}
    data["agents"]["reviewer"]["model"]["script"][0]["latency"] = "1s"
    result = run_scenario(data)
    assert result.passed, result.render_failure()
    assert 5 <= result.elapsed_ms < 1000  # the 1s answer was never waited for
    assert result.trace.unbalanced() == []


def test_the_runs_own_timeout_error_is_not_taken_for_the_deadline() -> None:
    def provider(request: object) -> object:
        raise TimeoutError("the provider timed out")

    def factory(agent: str, spec: dict[str, Any]) -> FunctionModel | None:
        return FunctionModel(provider) if spec.get("kind") == "timing-out" else None

    data = _real(expect={"error": {"type": "TimeoutError", "match": "^the provider timed out$"}})
    data["agents"]["manager"]["model"] = {"kind": "timing-out"}
    result = run_scenario(data, model_factories=[factory])
    assert result.passed, result.render_failure()


def test_a_run_past_the_real_deadline_stops_with_every_handoff_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from handoff_sim.scenarios._run import _realtime

    monkeypatch.setattr(_realtime, "MAX_REAL_RUN_SECONDS", 0.01)
    data = _real(expect={"error": {"type": "RunError", "match": "went over 0.01s of real time"}})
    data["agents"]["reviewer"]["model"]["script"][0]["latency"] = "1s"
    result = run_scenario(data)
    assert isinstance(result.error, RunError)
    assert "went over 0.01s of real time" in str(result.error)
    # a missed deadline fails the scenario, whatever expect.error says (issue 19, item 7)
    assert [m.kind for m in result.mismatches] == ["deadline"], result.render_failure()
    assert result.trace.unbalanced() == []
    assert result.elapsed_ms < 1000


def test_a_real_clock_scenario_inside_a_running_loop_is_a_clear_error() -> None:
    async def inside() -> None:
        run_scenario(_real())

    with pytest.raises(RunError, match="cannot run inside a running one"):
        asyncio.run(inside())


def _set(data: dict[str, Any], path: str, value: object) -> None:
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if part.isdigit() else node.setdefault(part, {})
    node[int(last) if last.isdigit() else last] = value


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (
            "agents.reviewer.model.script.0.latency",
            "1.5s",
            "agents.reviewer.model.script.0.latency",
        ),
        ("agents.manager.policy", {"timeout": "2s"}, "agents.manager.policy.timeout"),
        ("tools", {"t": {"latency": 2}}, "tools.t.latency"),
        (
            "agents.manager.tool_executor",
            {"latency": "1001ms"},
            "agents.manager.tool_executor.latency",
        ),
        (
            "matrix",
            [{"id": "v", "policies": {"manager": {"timeout": "1m"}}}],
            "matrix.0.policies.manager.timeout",
        ),
        (
            "agents.reviewer.model",
            {"adversarial": {"behaviours": ["endless_latency"]}},
            "agents.reviewer.model.adversarial.behaviours.0",
        ),
        ("expect", {"elapsed": "1ms"}, "expect.elapsed"),
        ("expect", {"handoffs": [{"duration": "1ms"}]}, "expect.handoffs.0.duration"),
        ("expect", {"handoffs": [{"duration_ms": 1}]}, "expect.handoffs.0.duration_ms"),
        ("expect", {"trace": [{"type": "handoff_end", "t": "1ms"}]}, "expect.trace.0.t"),
        ("matrix", [{"id": "v", "expect": {"elapsed": 0}}], "matrix.0.expect.elapsed"),
    ],
)
def test_what_a_real_run_cannot_have_is_refused_at_load_at_its_key(
    path: str, value: object, field: str
) -> None:
    data = _real()
    _set(data, path, value)
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(data)
    assert [p.field for p in caught.value.problems] == [field]
    assert "clock: real" in caught.value.problems[0].message
    data["clock"] = "virtual"
    load_dict(data)  # the same values are fine in virtual time


def test_a_latency_at_the_bound_is_accepted_under_a_real_clock() -> None:
    data = _real()
    data["agents"]["manager"]["policy"] = {"timeout": "1s"}
    data["agents"]["reviewer"]["model"]["script"][0]["latency"] = 1
    assert load_dict(data)[0].spec.clock == "real"


@pytest.mark.parametrize(
    ("clock", "accepted"), [("real", True), ("virtual", True), ("wall", False), (None, False)]
)
def test_the_json_schema_accepts_clock_exactly_when_the_loader_does(
    clock: object, accepted: bool
) -> None:
    data = delegation(clock=clock)
    assert jsonschema.Draft202012Validator(scenario_json_schema()).is_valid(data) is accepted
    if accepted:
        load_dict(data)
    else:
        with pytest.raises(ScenarioFileError):
            load_dict(data)


def test_the_bundled_real_clock_scenario_passes(capsys: pytest.CaptureFixture[str]) -> None:
    path = BUNDLED / "ai4j" / "real_clock.yaml"
    [scenario] = load_file(path)
    assert scenario.spec.clock == "real"
    result = run_scenario(scenario)
    assert result.passed, result.render_failure()
    assert main(["run", str(path)]) == 0
