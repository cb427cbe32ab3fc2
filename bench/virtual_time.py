#!/usr/bin/env python3
"""Virtual-time cost: how many wall milliseconds a long virtual scenario takes.

``timeout-30s-x3``: one handoff under ``timeout=30, max_retries=2``; the child's model
answers only after an hour, so all 3 attempts time out (90 virtual seconds) and the
parent gets the error result. ``ten-hours``: 10 sequential handoffs whose child model
takes one virtual hour each (36,000 virtual seconds). Each is timed as the whole public
``simulate(...)`` call, with and without the wall clock, each in a fresh process so the
first (cold) run is seen too (it pays the wall clock's one-time module scan).
``scenario-file-30s-x3`` is the bundled ``scenarios/ai4j/retries_with_timeouts.yaml``
(30 s x 3 attempts) run through ``run_scenario`` (loaded once, untimed), as the plugin
runs it: scenario files run without the wall clock, since nothing in them can read it.
``bench/wall_clock.py`` measures the wall clock's own cost with ~600 modules loaded.
JSON lines on stdout, a table on stderr.

``--fanout`` measures instead how the loop's timers scale: K handoffs in one turn, each
under a per-attempt timeout, each child answering after its own latency, so the timer
heap holds about 2K timers. K=50 and K=1,000 alternate run by run in one process; the
figure is CPU µs per handoff (median), and their ratio.

    python bench/virtual_time.py [--repeats 101]
    python bench/virtual_time.py --fanout [--repeats 15]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, machine, median, print_table, run_json_lines

SCENARIOS = ("timeout-30s-x3", "ten-hours", "scenario-file-30s-x3")
FANOUT = (50, 1000)
SCENARIO_FILE = Path(__file__).resolve().parents[1] / "scenarios/ai4j/retries_with_timeouts.yaml"
HOUR = 3600.0


def _call(i: int) -> dict[str, Any]:
    return {"id": f"c{i}", "name": "delegate", "arguments": {"task": f"task {i}"}}


def build(scenario: str) -> tuple[Any, Callable[[Any], None]]:
    """A fresh parent for ``scenario`` and a check of its result (never timed)."""
    from handoff_sim import Agent, FailureAction, HandoffPolicy, SubAgent
    from handoff_sim.testing import ScriptedModel

    if scenario == "timeout-30s-x3":
        child_steps = [{"text": "late", "latency": HOUR}] * 3
        parent_steps = [{"tool_calls": [_call(1)]}, {"text": "gave up"}]
        policy = HandoffPolicy(timeout=30, max_retries=2, on_error=FailureAction.REPORT_TO_MODEL)
        expected_ms = 90_000.0
    else:
        child_steps = [{"text": "done", "latency": HOUR}] * 10
        parent_steps = [{"tool_calls": [_call(i)]} for i in range(10)] + [{"text": "all done"}]
        policy = HandoffPolicy()
        expected_ms = 10 * HOUR * 1000
    child = Agent("child", ScriptedModel(child_steps))
    parent = Agent(
        "parent",
        ScriptedModel(parent_steps),
        subagents=[SubAgent("child", "d", child, tool_name="delegate")],
        handoff_policy=policy,
    )

    def check(result: Any) -> None:
        assert result.elapsed_ms == expected_ms, (result.elapsed_ms, expected_ms)
        records = result.trace.handoffs()
        if scenario == "timeout-30s-x3":
            (h,) = records
            assert (h.status, h.reason, h.attempts) == ("failed", "timeout", 3), h
            assert h.duration_ms == 90_000.0, h.duration_ms
        else:
            assert len(records) == 10, len(records)
            assert all(h.status == "completed" for h in records)

    return parent, check


def build_fanout(k: int) -> tuple[Any, Callable[[Any], None]]:
    """K delegations in one turn under a timeout; child i answers after its own latency."""
    from handoff_sim import Agent, HandoffPolicy, SubAgent
    from handoff_sim.testing import ScriptedModel

    latencies = [(i * 7919 % 1000 + 1) / 1000 for i in range(k)]  # spread over a second
    child = Agent("child", ScriptedModel([{"text": "done", "latency": t} for t in latencies]))
    parent = Agent(
        "parent",
        ScriptedModel([{"tool_calls": [_call(i) for i in range(k)]}, {"text": "all done"}]),
        subagents=[SubAgent("child", "d", child, tool_name="delegate")],
        handoff_policy=HandoffPolicy(timeout=60),
        parallel_tool_calls=True,
    )

    def check(result: Any) -> None:
        assert result.elapsed_ms == max(latencies) * 1000, result.elapsed_ms
        records = result.trace.handoffs()
        assert len(records) == k, len(records)
        assert all(h.status == "completed" for h in records)

    return parent, check


def fanout(rounds: int) -> Record:
    """CPU µs per handoff of each fan-out width, alternating run by run in this process."""
    from handoff_sim import simulate

    cpu: dict[int, list[float]] = {k: [] for k in FANOUT}
    for i in range(rounds + 1):  # the first round warms up
        for k in FANOUT:
            parent, check = build_fanout(k)
            gc.collect()
            c0 = time.process_time()
            result = simulate(
                parent, "go", wall_clock=False, max_handoffs=k, max_model_calls=2 * k + 2
            )
            spent = time.process_time() - c0
            check(result)
            if i:
                cpu[k].append(spent / k * 1e6)
    small, large = (median(cpu[k]) for k in FANOUT)
    return {
        "benchmark": "virtual_time_fanout",
        "small_k": FANOUT[0],
        "large_k": FANOUT[1],
        "small_cpu_us_per_handoff": round(small, 2),
        "large_cpu_us_per_handoff": round(large, 2),
        "ratio": round(large / small, 3),
        "rounds": rounds,
        "python": machine()["python"],
        "loadavg_1m_at_end": machine()["loadavg_1m"],
    }


def _file_worker(repeats: int) -> tuple[list[float], float, int]:
    from handoff_sim.scenarios import load_file, run_scenario

    [loaded] = load_file(SCENARIO_FILE)
    walls = []
    for _ in range(repeats + 1):
        t0 = time.perf_counter()
        outcome = run_scenario(loaded)
        walls.append(time.perf_counter() - t0)
        assert outcome.passed, [m.message for m in outcome.mismatches]
    return walls, outcome.elapsed_ms, len(outcome.trace)


def worker(scenario: str, wall_clock: bool, repeats: int) -> Record:
    """Time ``repeats`` runs of one scenario in this process; the first is reported apart."""
    from handoff_sim import simulate

    if scenario == "scenario-file-30s-x3":
        walls, elapsed_ms, events = _file_worker(repeats)
        return _record(scenario, False, walls, elapsed_ms, events, repeats)
    walls = []
    for _ in range(repeats + 1):
        parent, check = build(scenario)
        t0 = time.perf_counter()
        result = simulate(parent, "go", wall_clock=wall_clock)
        walls.append(time.perf_counter() - t0)
        check(result)
    return _record(scenario, wall_clock, walls, result.elapsed_ms, len(result.trace), repeats)


def _record(
    scenario: str,
    wall_clock: bool,
    walls: list[float],
    elapsed_ms: float,
    events: int,
    repeats: int,
) -> Record:
    first, rest = walls[0], walls[1:]
    return {
        "benchmark": "virtual_time",
        "scenario": scenario,
        "wall_clock": wall_clock,
        "virtual_seconds": elapsed_ms / 1000,
        "wall_ms_median": round(median(rest) * 1000, 4),
        "wall_ms_min": round(min(rest) * 1000, 4),
        "wall_ms_first_run": round(first * 1000, 3),
        "repeats": repeats,
        "events": events,
        "python": machine()["python"],
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, help="101 runs per scenario; 15 fan-out rounds")
    ap.add_argument("--in-process", action="store_true", help="no subprocess per scenario")
    ap.add_argument("--fanout", action="store_true", help="timers at K=50 against K=1,000")
    ap.add_argument("--worker", choices=SCENARIOS, help=argparse.SUPPRESS)
    ap.add_argument("--wall-clock", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.repeats = args.repeats or 101
    if args.worker:
        emit(worker(args.worker, args.wall_clock, args.repeats))
        return
    if args.fanout:
        rec = fanout(args.repeats or 15)
        emit(rec)
        print_table([rec], [(key, key) for key in rec if key != "python"], title="timer fan-out")
        return
    rows = []
    for scenario in SCENARIOS:
        for wall_clock in (False,) if scenario.startswith("scenario-file") else (False, True):
            if args.in_process:  # quick checks only: the first run is then not cold
                rec = worker(scenario, wall_clock, args.repeats)
            else:
                cmd = [sys.executable, __file__, "--worker", scenario]
                cmd += ["--repeats", str(args.repeats)] + (["--wall-clock"] if wall_clock else [])
                rec = run_json_lines(cmd)[0]
            emit(rec)
            rows.append(rec)
    print_table(
        rows,
        [
            ("scenario", "scenario"),
            ("wall clock", "wall_clock"),
            ("virtual s", "virtual_seconds"),
            ("wall ms (median)", lambda r: f"{r['wall_ms_median']:.3f}"),
            ("wall ms (min)", lambda r: f"{r['wall_ms_min']:.3f}"),
            ("first run ms", lambda r: f"{r['wall_ms_first_run']:.1f}"),
        ],
        title="virtual-time cost (whole simulate() call)",
    )


if __name__ == "__main__":
    main()
