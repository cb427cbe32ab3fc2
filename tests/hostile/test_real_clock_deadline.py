"""Issue 19, item 7: the ``clock: real`` deadline holds for anything that runs on the loop.

The deadline is measured on its own clock (``time.monotonic``), whatever the loop does.
A turn still running at the deadline is cancelled; a plugin model that swallows the
cancellation is given a short grace, then closed; one that blocks the loop (a
synchronous ``time.sleep(12)``) cannot be stopped, but fails as soon as it returns —
it used to pass. Each is a ``RealTimeDeadlineError`` that no ``expect.error`` absorbs.

No test sleeps for long: the deadline and the grace are patched down to fractions of a
second, and a synchronous sleep is played by a clock that jumps (the deadline's clock
is patched, the code that reads it is the shipped one).
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from handoff_sim import hookimpl
from handoff_sim._limits import MAX_REAL_RUN_SECONDS
from handoff_sim.errors import RealTimeDeadlineError, ScriptAssertionError
from handoff_sim.events import Event
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.scenarios import run_scenario
from handoff_sim.scenarios._run import _realtime
from handoff_sim.testing import FunctionModel
from tests.hostile._support import open_starts

OUTER_LIMIT = 30.0  # seconds: the old code waited forever here


def ends(fn: Callable[[], Any], limit: float = OUTER_LIMIT) -> Any:
    """``fn()``'s result, or a test failure if it is still running after ``limit`` seconds."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        pytest.fail(f"still running after {limit:g}s")
    if "error" in box:
        raise box["error"]
    return box["result"]


@pytest.fixture
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_realtime, "MAX_REAL_RUN_SECONDS", 0.2)
    monkeypatch.setattr(_realtime, "MAX_REAL_GRACE_SECONDS", 0.05)


class JumpingClock:
    """Real monotonic time, plus the seconds of every synchronous sleep it was told of."""

    def __init__(self) -> None:
        self.slept = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.slept

    def sleep(self, seconds: float) -> None:
        """What ``time.sleep(seconds)`` does to the clock, without the wait."""
        self.slept += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> JumpingClock:
    jumping = JumpingClock()
    monkeypatch.setattr(_realtime, "_now", jumping)
    return jumping


class Swallower:
    """A plugin's model that ignores every cancellation."""

    model_name = "swallower"

    def __init__(self) -> None:
        self.cancellations = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.cancellations += 1


def _scenario(model: dict[str, Any], where: str, **overrides: Any) -> dict[str, Any]:
    """main delegates to w; ``model`` is the model of ``where`` (main or w)."""
    data: dict[str, Any] = {
        "scenario": "deadline",
        "clock": "real",
        "agents": {
            "main": {
                "model": {
                    "script": [
                        {"tool_calls": [{"id": "c1", "name": "delegate_w", "arguments": {}}]},
                        "done",
                    ]
                },
                "subagents": [{"agent": "w", "tool_name": "delegate_w"}],
            },
            "w": {"model": {"script": ["w-done"]}},
        },
        "run": ["go"],
        "expect": {"error": {"type": "Exception"}},
    }
    data["agents"][where]["model"] = model
    data.update(overrides)
    return data


def _factory(kind: str, build: Callable[[], Any]) -> Callable[[str, dict[str, Any]], Any]:
    def factory(agent: str, spec: dict[str, Any]) -> Any:
        return build() if spec.get("kind") == kind else None

    return factory


@pytest.mark.usefixtures("short_deadline")
@pytest.mark.parametrize("where", ["w", "main"])
def test_a_plugin_model_that_swallows_its_cancellation_fails_at_the_deadline(where: str) -> None:
    swallower = Swallower()
    data = _scenario({"kind": "swallow"}, where)
    result = ends(
        lambda: run_scenario(data, model_factories=[_factory("swallow", lambda: swallower)])
    )
    assert not result.passed
    assert [m.kind for m in result.mismatches] == ["deadline"]
    assert isinstance(result.error, RealTimeDeadlineError)
    assert "went over 0.2s of real time" in str(result.error)
    assert "ignored the cancellation and was closed 0.05s later" in str(result.error)
    assert swallower.cancellations >= 1
    assert open_starts(result.trace) == []  # closing it ended every open handoff


def test_a_model_that_blocks_the_loop_past_the_deadline_fails_when_it_returns(
    clock: JumpingClock,
) -> None:
    def blocking(request: ModelRequest) -> str:
        clock.sleep(12)  # time.sleep(12): the loop cannot run, so nothing can cancel it
        return "w-done"

    data = _scenario({"kind": "blocking"}, "w", expect={"output": "done"})
    result = run_scenario(
        data, model_factories=[_factory("blocking", lambda: FunctionModel(blocking))]
    )
    assert not result.passed  # it passed before: the turn finished before the loop looked
    assert [m.kind for m in result.mismatches[:1]] == ["deadline"]
    assert isinstance(result.error, RealTimeDeadlineError)
    assert "something blocked the event loop" in str(result.error)
    assert result.outputs == []


def test_a_late_turn_fails_with_the_deadline_whatever_it_raised(clock: JumpingClock) -> None:
    def late_failure(request: ModelRequest) -> str:
        clock.sleep(12)
        raise ValueError("late and wrong")

    data = _scenario({"kind": "late"}, "main", expect={"error": {"type": "ValueError"}})
    model = _factory("late", lambda: FunctionModel(late_failure))
    result = run_scenario(data, model_factories=[model])
    assert [m.kind for m in result.mismatches] == ["deadline"]
    assert isinstance(result.error, RealTimeDeadlineError)
    assert isinstance(result.error.__cause__, ValueError)


def test_the_deadline_spans_every_turn(clock: JumpingClock) -> None:
    half = MAX_REAL_RUN_SECONDS * 0.6

    def slow(request: ModelRequest) -> str:
        clock.sleep(half)
        return f"answer {len(request.messages)}"

    data = _scenario({"kind": "slow"}, "main", run=["first", "second"], expect={})
    result = run_scenario(data, model_factories=[_factory("slow", lambda: FunctionModel(slow))])
    assert result.outputs == ["answer 1"]  # the second turn ended past the deadline
    assert [m.kind for m in result.mismatches] == ["deadline"]


def test_a_run_within_the_deadline_passes_as_before(clock: JumpingClock) -> None:
    def slow(request: ModelRequest) -> str:
        clock.sleep(MAX_REAL_RUN_SECONDS * 0.9)
        return "done"

    data = _scenario({"kind": "slow"}, "main", expect={"output": "done"})
    result = run_scenario(data, model_factories=[_factory("slow", lambda: FunctionModel(slow))])
    assert result.passed, result.render_failure()


def test_a_backtracking_step_expect_pattern_ends_long_before_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from handoff_sim import _patterns

    monkeypatch.setattr(_patterns, "MAX_PATTERN_SECONDS", 0.05)
    data = _scenario(
        {"script": [{"text": "x", "expect": {"input": {"match": "^(a|a)+$"}}}]}, "main"
    )
    data["run"] = ["a" * 60 + "!"]
    result = ends(lambda: run_scenario(data))
    assert isinstance(result.error, ScriptAssertionError)
    assert [m.kind for m in result.mismatches] == ["step_expect"]


@pytest.mark.usefixtures("short_deadline")
def test_the_loop_closes_without_waiting_for_a_thread_the_turn_left_running() -> None:
    """The turn waits on a thread that only the test can release; at the deadline the wait
    is cancelled, and closing the loop does not wait for the thread (asyncio's own
    ``Runner.close`` would, for as long as the thread runs)."""
    release = threading.Event()

    async def waits_on_a_thread(request: ModelRequest) -> str:
        await asyncio.to_thread(release.wait)
        return "w-done"

    data = _scenario({"kind": "threaded"}, "w")
    model = _factory("threaded", lambda: FunctionModel(waits_on_a_thread))
    try:
        result = ends(lambda: run_scenario(data, model_factories=[model]))
    finally:
        release.set()
    assert [m.kind for m in result.mismatches] == ["deadline"]
    assert "every handoff was ended" in str(result.error)


class Ends:
    """An observer keeping every event, whatever becomes of the run."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        self.events.append(event)


@pytest.fixture
def default_sigint_handler() -> Iterator[None]:
    """Python's own SIGINT handler, so the real loop's runner installs its own."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("default_sigint_handler")
def test_ctrl_c_during_a_real_run_cancels_the_turn_then_raises_keyboard_interrupt() -> None:
    async def interrupted(request: ModelRequest) -> str:
        asyncio.get_running_loop().call_later(0.05, os.kill, os.getpid(), signal.SIGINT)
        await asyncio.sleep(5)
        return "w-done"

    seen = Ends()
    data = _scenario({"kind": "interrupted"}, "w")
    model = _factory("interrupted", lambda: FunctionModel(interrupted))
    with pytest.raises(KeyboardInterrupt):
        run_scenario(data, model_factories=[model], observers=[seen])
    assert open_starts(seen.events) == []
    assert [h.status for h in _handoffs(seen.events)] == ["cancelled"]


def _handoffs(events: list[Event]) -> list[Any]:
    from handoff_sim.trace import Trace

    return Trace(events).handoffs()


SWALLOWING_CONFTEST = """
import asyncio

class Swallower:
    model_name = "swallower"

    async def complete(self, request):
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass

def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
    return Swallower() if model_spec["kind"] == "swallow" else None
"""

SWALLOWING_SCENARIO = """\
scenario: swallows
clock: real
agents:
  main:
    model: {kind: swallow}
run: [go]
expect:
  error: {type: Exception}
"""


@pytest.mark.usefixtures("short_deadline")
def test_a_plugin_model_kind_that_swallows_cancellation_fails_its_pytest_item(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(SWALLOWING_CONFTEST)
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "swallows.yaml").write_text(SWALLOWING_SCENARIO, "utf-8")
    result = ends(lambda: pytester.runpytest_inprocess("--handoff-scenarios", "scenarios"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*swallows.yaml:6: run: the run went over its real-time deadline; this fails the "
            "scenario whatever expect.error says",
            "*RealTimeDeadlineError: the run went over 0.2s of real time*ignored the cancellation*",
        ]
    )
