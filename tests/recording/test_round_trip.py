"""Record a run, replay it: the same trace, byte for byte (virtual time), or the same
outputs and trace structure at the recorded latencies (a run in real time)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from handoff_sim import (
    Agent,
    ModelRequest,
    ModelResponse,
    SubAgent,
    Tool,
    ToolCall,
    Trace,
    simulate,
)
from handoff_sim.errors import ReplayMismatchError
from handoff_sim.recording import Redaction, record, replay
from handoff_sim.scenarios import LoadedScenario, load_path, run_scenario
from handoff_sim.scenarios._build import (
    BuildContext,
    build_entry_agent,
    build_models,
    build_type_models,
)
from handoff_sim.scenarios._expect import TurnSessions
from handoff_sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "scenarios").rglob("*.yaml"))
NO_REDACTION = Redaction(defaults=False)
"""The round trips keep every text: the redaction rules have tests of their own."""


def _unrecordable(loaded: LoadedScenario) -> str | None:
    """Why a recording of this scenario cannot be made or cannot say it, if so."""
    spec = loaded.spec
    if spec.clock == "real":
        return (
            "clock: real: its times are real, so no replay is byte-identical to it; "
            "test_S_real_clock_scenario_replays_in_virtual_time_identical_but_for_its_times"
        )
    if loaded.load_error is not None:
        return "its referenced material fails to load, as it expects: nothing runs"
    return None


def _build(loaded: LoadedScenario) -> Agent:
    """The scenario's agents as the default runtime builds them (agent types too)."""
    spec = loaded.spec

    def locate(field: str) -> str:
        return f"{loaded.path}:{field}"

    context = BuildContext(
        agent_types=loaded.agent_types,
        type_models=build_type_models(spec, (), locate),
        tool_runs={},
        scenario=loaded,
    )
    return build_entry_agent(spec, build_models(spec, (), locate), context)


def _run(loaded: LoadedScenario, agent: Agent) -> Trace:
    """The scenario's turns as the default runtime runs them; the first error ends them."""
    sessions = TurnSessions()
    with Simulation(seed=loaded.seed) as sim:
        try:
            for turn in loaded.spec.turns():
                result = sim.run(agent, turn.input, session=sessions.choose(turn))
                sessions.ran(turn, result.session_id)
        except Exception:  # an outcome the scenario may expect; the trace says what happened
            pass
        return sim.trace


GAPS: dict[str, str] = {}
"""Known differences of every replay of a recording, each expected to fail until fixed."""

STANDALONE_GAPS: dict[str, str] = {}
"""Known differences of a standalone replay, each expected to fail until it is fixed."""


def _cases(standalone: bool = False) -> list[Any]:
    cases: list[Any] = []
    for path in BUNDLED:
        for loaded in load_path(path):
            why = _unrecordable(loaded)
            name = f"{path.relative_to(ROOT / 'scenarios')}::{loaded.id}"
            marks: list[Any] = [pytest.mark.skip(reason=why)] if why else []
            gap = GAPS.get(loaded.id) or (STANDALONE_GAPS.get(loaded.id) if standalone else None)
            if gap is not None:
                marks.append(pytest.mark.xfail(reason=gap, strict=True))
            cases.append(pytest.param(loaded, id=name, marks=marks))
    return cases


@pytest.mark.parametrize("loaded", _cases())
def test_every_bundled_scenario_recorded_and_replayed_gives_a_byte_identical_trace(
    loaded: LoadedScenario, tmp_path: Path
) -> None:
    try:
        agent = _build(loaded)
    except Exception as exc:
        pytest.skip(f"the scenario expects its agents not to build ({type(exc).__name__})")
    recording = tmp_path / "recording.yaml"
    with record(agent, recording, redact=NO_REDACTION):
        recorded = _run(loaded, agent)
    assert recorded.to_jsonl() == run_scenario(loaded).trace.to_jsonl()  # recording changes nothing
    again = _build(loaded)
    with replay(again, recording):
        replayed = _run(loaded, again)
    assert replayed.to_jsonl() == recorded.to_jsonl()


@pytest.mark.parametrize("loaded", _cases(standalone=True))
def test_every_bundled_recording_runs_standalone_and_passes_its_expectations(
    loaded: LoadedScenario, tmp_path: Path
) -> None:
    try:
        agent = _build(loaded)
    except Exception as exc:
        pytest.skip(f"the scenario expects its agents not to build ({type(exc).__name__})")
    # A policy function named by import path (python: module:function) is written by that
    # name: the recording below, written elsewhere, finds the module the recorded run imported.
    recording = tmp_path / "recording.yaml"
    with record(agent, recording, redact=NO_REDACTION):
        recorded = _run(loaded, agent)
    result = run_scenario(recording)
    assert result.passed, result.render_failure()
    assert result.trace.to_jsonl() == recorded.to_jsonl()


def _timeless(trace: Trace) -> list[dict[str, Any]]:
    """The trace's events without their times (``t``, ``duration_ms``)."""
    events = [event.to_dict() for event in trace]
    for data in events:
        data.pop("t", None)
        data.pop("duration_ms", None)
    return events


def test_S_real_clock_scenario_replays_in_virtual_time_identical_but_for_its_times(
    tmp_path: Path,
) -> None:
    from handoff_sim.scenarios._run._realtime import real_time

    loaded = load_path(ROOT / "scenarios" / "ai4j" / "real_clock.yaml")[0]
    agent = _build(loaded)
    recording = tmp_path / "recording.yaml"
    with record(agent, recording, redact=NO_REDACTION), real_time(loaded.seed, ()) as run:
        sessions = TurnSessions()
        for turn in loaded.spec.turns():  # on a real loop: the timeout fires after 50 real ms
            sessions.ran(turn, run.run(agent, turn.input, session=sessions.choose(turn)).session_id)
        recorded = run.trace
    again = _build(loaded)
    with replay(again, recording):
        replayed = _run(loaded, again)
    assert _timeless(replayed) == _timeless(recorded)
    timed_out = [h for h in replayed.handoffs() if h.reason == "timeout"]
    assert [h.duration_ms for h in timed_out] == [pytest.approx(50.0)]  # virtual, exactly 50 ms
    result = run_scenario(recording)
    assert result.passed, result.render_failure()


# -- a real event loop: a model that really sleeps ------------------------------------------


@dataclass
class _Sleepy:
    """A ModelClient answering from a script after a real delay (the one real-time test)."""

    steps: list[tuple[float, ModelResponse]]
    model_name: str = "sleepy-1"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        delay, response = self.steps.pop(0)
        await asyncio.sleep(delay)
        return response


def _triage(billing_prompt: str = "You bill.", extra_tool: bool = False) -> Agent:
    """A triage agent delegating to billing (fast) and research (slow) in parallel."""
    from handoff_sim import tool

    @tool
    def lookup(order: int) -> str:
        """Look an order up."""
        return f"order {order}: shipped"

    calls = (
        ToolCall("call_b1", "billing", json.dumps({"input": "refund 42"})),
        ToolCall("call_r1", "research", json.dumps({"input": "why late"})),
    )
    triage_model = _Sleepy(
        [
            (0.02, ModelResponse(tool_calls=calls)),
            (0.02, ModelResponse(text="refunded; it was late")),
        ]
    )
    billing = Agent(
        "billing",
        _Sleepy(
            [
                (0.02, ModelResponse(tool_calls=(ToolCall("call_l1", "lookup", '{"order":42}'),))),
                (0.02, ModelResponse(text="refunded")),
            ]
        ),
        system_prompt=billing_prompt,
        tools=[lookup] if not extra_tool else [lookup, _extra_tool()],
    )
    research = Agent("research", _Sleepy([(0.08, ModelResponse(text="it was late"))]))
    return Agent(
        "triage",
        triage_model,
        subagents=[
            SubAgent("billing", agent=billing, tool_name="billing"),
            SubAgent("research", agent=research, tool_name="research"),
        ],
        parallel_tool_calls=True,
        system_prompt="You triage.",
    )


def _extra_tool() -> Tool:
    from handoff_sim import tool

    @tool
    def refund(order: int) -> str:
        """Refund an order."""
        return "ok"

    return refund


def _structure(trace: Trace) -> list[tuple[str, str, str]]:
    """What a trace did, without times and ids: (type, agent, tool or status) per event."""
    out = []
    for event in trace:
        data = event.to_dict()
        out.append((event.type, event.agent, str(data.get("tool", data.get("status", "")))))
    return out


@pytest.fixture(scope="module")
def recorded_triage(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """One real-time recording of the triage run, shared by the replay tests below."""
    path = tmp_path_factory.mktemp("real") / "triage.yaml"
    agent = _triage()
    with record(agent, path):
        result = agent.run("refund order 42")
    return path, result


def test_S_real_time_run_replays_in_virtual_time_with_the_same_outputs_and_structure(
    recorded_triage: tuple[Path, object],
) -> None:
    path, real = recorded_triage
    agent = _triage()
    with replay(agent, path):
        replayed = simulate(agent, "refund order 42")
    assert replayed.output == real.output == "refunded; it was late"  # type: ignore[attr-defined]
    assert sorted(_structure(replayed.trace)) == sorted(_structure(real.trace))  # type: ignore[attr-defined]
    assert [h.summary() for h in replayed.trace.handoffs()] == [
        h.summary()
        for h in real.trace.handoffs()  # type: ignore[attr-defined]
    ]


def test_S_replay_takes_the_recorded_latencies_to_the_millisecond(
    recorded_triage: tuple[Path, object],
) -> None:
    import yaml

    path, _ = recorded_triage
    document = yaml.safe_load(path.read_text())
    research = document["agents"]["research"]["model"]["script"][0]["latency"]
    assert research.endswith("ms")
    assert 75 <= int(research[:-2]) <= 400
    agent = _triage()
    with replay(agent, path):
        replayed = simulate(agent, "refund order 42")
    ended = {h.tool: h for h in replayed.trace.handoffs()}
    assert ended["research"].duration_ms == pytest.approx(int(research[:-2]), abs=1e-6)
    # the standalone file expects the virtual time its replay takes, and passes
    result = run_scenario(path)
    assert result.passed, result.render_failure()
    assert replayed.elapsed_ms == pytest.approx(result.elapsed_ms)


def test_S_replay_fails_when_a_sub_agent_prompt_changed(
    recorded_triage: tuple[Path, object],
) -> None:
    path, _ = recorded_triage
    agent = _triage(billing_prompt="You bill, politely.")
    with pytest.raises(ReplayMismatchError) as raised, replay(agent, path):
        simulate(agent, "refund order 42")
    assert "system prompt" in str(raised.value)


def test_S_replay_fails_when_a_tool_is_added(recorded_triage: tuple[Path, object]) -> None:
    path, _ = recorded_triage
    agent = _triage(extra_tool=True)
    with pytest.raises(ReplayMismatchError) as raised, replay(agent, path):
        simulate(agent, "refund order 42")
    assert "refund" in str(raised.value)
