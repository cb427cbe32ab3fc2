"""Fuzzing throughput: adversarial runs per second on one core.

One run = build a two-level tree of agents driven by AdversarialModels (every
finite behaviour, small fan-out), run it in a fresh virtual-time Simulation, and
check every invariant on its trace. Prints one JSON line, then a short table.

    python bench/fuzz_throughput.py [--runs N] [--repeats R]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from handoff_sim import Agent, HandoffPolicy, Simulation, SubAgent
from handoff_sim.invariants import check_invariants
from handoff_sim.testing import AdversarialModel

TARGET_RUNS_PER_SECOND = 500


def _pair(seed: int) -> Agent:
    """A parent and one child, both hostile: the workload the target is judged on."""
    child = Agent("child", AdversarialModel(seed + 1, fan_out=4, oversized_bytes=256, max_turns=2))
    return Agent(
        "root",
        AdversarialModel(seed, fan_out=4, oversized_bytes=256, max_turns=2),
        subagents=[SubAgent("child", agent=child)],
        handoff_policy=HandoffPolicy(max_retries=1, timeout=2.0, on_denied="report_to_model"),
        max_steps=6,
    )


def _tree(seed: int) -> Agent:
    """Three levels, parallel calls, retries: a heavier hostile workload."""

    def model(offset: int) -> AdversarialModel:
        return AdversarialModel(seed * 7 + offset, fan_out=6, oversized_bytes=512, max_turns=2)

    leaf = Agent("leaf", model(2), max_steps=6)
    child = Agent(
        "child",
        model(1),
        subagents=[SubAgent("leaf", agent=leaf)],
        handoff_policy=HandoffPolicy(max_depth=2, timeout=1.0, on_denied="report_to_model"),
        max_steps=6,
    )
    return Agent(
        "root",
        model(0),
        subagents=[SubAgent("child", agent=child)],
        handoff_policy=HandoffPolicy(
            max_depth=2, max_retries=1, timeout=2.0, on_denied="report_to_model"
        ),
        parallel_tool_calls=True,
        max_steps=6,
    )


SHAPES = {"pair": _pair, "tree": _tree}


def one_run(shape: str, seed: int) -> tuple[int, int]:
    """Run one adversarial configuration; (events, violations)."""
    agent = SHAPES[shape](seed)
    sim = Simulation(seed=seed, wall_clock=False, deadline=3600)
    error: BaseException | None = None
    try:
        sim.run(agent, "go")
    except Exception as exc:
        error = exc
    finally:
        sim.close()
    return len(sim.trace), len(check_invariants(sim.trace, agent=agent, error=error))


def measure(shape: str, runs: int) -> tuple[float, int, int]:
    """Seconds for ``runs`` runs, total events, total violations."""
    events = violations = 0
    started = time.perf_counter()
    for seed in range(runs):
        e, v = one_run(shape, seed)
        events += e
        violations += v
    return time.perf_counter() - started, events, violations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    rows = {}
    for shape in SHAPES:
        measure(shape, 50)  # warm up imports and caches
        samples = [measure(shape, options.runs) for _ in range(options.repeats)]
        seconds = statistics.median(s for s, _, _ in samples)
        rows[shape] = {
            "runs_per_second": round(options.runs / seconds, 1),
            "events_per_run": round(samples[0][1] / options.runs, 1),
            "violations": samples[0][2],
        }
    rate = rows["pair"]["runs_per_second"]
    result = {
        "benchmark": "fuzz_throughput",
        "runs": options.runs,
        "repeats": options.repeats,
        "runs_per_second": rate,
        "shapes": rows,
        "target_runs_per_second": TARGET_RUNS_PER_SECOND,
        "meets_target": rate >= TARGET_RUNS_PER_SECOND
        and all(r["violations"] == 0 for r in rows.values()),
    }
    print(json.dumps(result))
    print(f"{'shape':<8}{'runs/s':>10}{'events/run':>12}{'violations':>12}")
    for shape, row in rows.items():
        print(
            f"{shape:<8}{row['runs_per_second']:>10}{row['events_per_run']:>12}"
            f"{row['violations']:>12}"
        )
    print(f"target: >= {TARGET_RUNS_PER_SECOND} runs/s on the 'pair' shape")


if __name__ == "__main__":
    main()
