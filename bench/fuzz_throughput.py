"""Fuzzing throughput on one core: generated cases per second of ``handoff-sim fuzz``.

The bar: ``handoff-sim fuzz`` with its default tree shape (depth 2, breadth 2) runs
>= 300 generated cases per second, CPU time (``time.process_time``), median of the
repeats; wall time is printed next to it. A case is generated, built, run twice (the
determinism invariant) and checked; cases refused at construction count, as they do
in the command's summary. The command runs in-process in an empty folder (so no
``./scenarios`` is added), after one warm-up run.

Also measured, as before: adversarial runs per second of two fixed trees (``pair``, a
hostile parent and child; ``tree``, three levels), one fresh simulation per run and
the invariants checked (no generation, no second run); CPU time, wall time beside it.

Prints one JSON line, then a short table.

    python bench/fuzz_throughput.py [--examples N] [--runs N] [--repeats R] [--skip-shapes]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import tempfile
import time

from handoff_sim import Agent, HandoffPolicy, SubAgent, check_invariants
from handoff_sim.simulation import Simulation
from handoff_sim.testing import AdversarialModel

TARGET_RUNS_PER_SECOND = 500
TARGET_CASES_PER_SECOND = 300


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


def measure(shape: str, runs: int) -> tuple[float, int, int, float]:
    """CPU seconds for ``runs`` runs, total events, total violations, wall seconds."""
    events = violations = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for seed in range(runs):
        e, v = one_run(shape, seed)
        events += e
        violations += v
    return time.process_time() - cpu, events, violations, time.perf_counter() - wall


def measure_generated(examples: int, seed: int) -> tuple[float, float, str]:
    """CPU and wall seconds of ``handoff-sim fuzz --examples N``, and its summary line."""
    from handoff_sim.cli._fuzz import main as fuzz

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)
        out = io.StringIO()
        try:
            cpu, wall = time.process_time(), time.perf_counter()
            with contextlib.redirect_stdout(out):
                status = fuzz(["--examples", str(examples), "--seed", str(seed), "-q"])
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        finally:
            os.chdir(here)
    summary = out.getvalue().splitlines()[0]
    if status != 0:
        raise SystemExit(f"handoff-sim fuzz found a violation: {out.getvalue()}")
    return cpu, wall, summary


def generated(examples: int, repeats: int) -> dict[str, object]:
    """The bar's figures: generated cases per second, CPU and wall, median of ``repeats``."""
    measure_generated(min(examples, 50), 0)  # warm up imports and caches
    samples = [measure_generated(examples, seed) for seed in range(1, repeats + 1)]
    cpu = statistics.median(s[0] for s in samples)
    wall = statistics.median(s[1] for s in samples)
    rate = examples / cpu
    return {
        "examples": examples,
        "cases_per_second_cpu": round(rate, 1),
        "cases_per_second_wall": round(examples / wall, 1),
        "cpu_samples_s": [round(s[0], 3) for s in samples],
        "summary": samples[0][2],
        "target_cases_per_second": TARGET_CASES_PER_SECOND,
        "meets_target": rate >= TARGET_CASES_PER_SECOND,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300, help="generated cases per repeat")
    parser.add_argument("--runs", type=int, default=1000, help="runs per repeat per fixed tree")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-shapes", action="store_true", help="only the generated cases")
    options = parser.parse_args()
    fuzz = generated(options.examples, options.repeats)
    rows = {}
    for shape in () if options.skip_shapes else SHAPES:
        measure(shape, 50)  # warm up imports and caches
        samples = [measure(shape, options.runs) for _ in range(options.repeats)]
        seconds = statistics.median(s[0] for s in samples)
        wall = statistics.median(s[3] for s in samples)
        rows[shape] = {
            "runs_per_second": round(options.runs / seconds, 1),
            "runs_per_second_wall": round(options.runs / wall, 1),
            "events_per_run": round(samples[0][1] / options.runs, 1),
            "violations": samples[0][2],
        }
    rate = rows["pair"]["runs_per_second"] if rows else float("nan")
    result = {
        "benchmark": "fuzz_throughput",
        "generated": fuzz,
        "runs": options.runs,
        "repeats": options.repeats,
        "runs_per_second": rate,
        "shapes": rows,
        "target_runs_per_second": TARGET_RUNS_PER_SECOND,
        "meets_target": rate >= TARGET_RUNS_PER_SECOND
        and all(r["violations"] == 0 for r in rows.values()),
    }
    print(json.dumps(result))
    verdict = "met" if fuzz["meets_target"] else "not met"
    print(
        f"handoff-sim fuzz, default tree shape: {fuzz['cases_per_second_cpu']} generated "
        f"cases/s CPU ({fuzz['cases_per_second_wall']} wall), median of {options.repeats} x "
        f"{options.examples}; bar >= {TARGET_CASES_PER_SECOND}/s CPU: {verdict}"
    )
    if not rows:
        return
    print(f"{'shape':<8}{'runs/s':>10}{'events/run':>12}{'violations':>12}")
    for shape, row in rows.items():
        print(
            f"{shape:<8}{row['runs_per_second']:>10}{row['events_per_run']:>12}"
            f"{row['violations']:>12}"
        )
    print(f"target: >= {TARGET_RUNS_PER_SECOND} runs/s on the 'pair' shape")


if __name__ == "__main__":
    main()
