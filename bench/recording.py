#!/usr/bin/env python3
"""Recording benchmark: what a replay costs against the same script, what recording adds.

* replay / scripted: one delegation workload (a manager handing ``N`` tasks to a worker
  one after the other, then ``K`` in parallel) run in virtual time by ``ScriptedModel``s,
  and by the ``ReplayModel``s of its recording (``replay(agent, file)``), CPU time per
  run (median of ``--repeats``), and with ``valgrind`` on the machine the instructions of
  one run of each (callgrind, the interpreter's start-up and the file's load subtracted).
* recording / plain: the same workload on a real event loop whose models really sleep
  (``--sleep`` ms per call), CPU time with and without ``record(...)`` around it; the
  writing of the file (which replays it once for its ``elapsed``) is reported apart.

Every ratio is measured in the same run. One JSON line per measurement on stdout, a
table on stderr.

    python bench/recording.py
    python bench/recording.py --sequential 50 --parallel 20 --repeats 7 --no-valgrind
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Record, emit, machine, median, print_table

sys.path.insert(0, str(REPO_ROOT))

from handoff_sim import Agent, ModelRequest, ModelResponse, SubAgent, simulate
from handoff_sim.recording import record
from handoff_sim.testing import ScriptedModel


def _steps(sequential: int, parallel: int) -> tuple[list[Any], list[Any]]:
    """The manager's and the worker's scripts: N calls one by one, then K at once."""
    manager: list[Any] = [
        {"tool_calls": [{"id": f"s{i}", "name": "work", "arguments": {"input": f"task {i}"}}]}
        for i in range(sequential)
    ]
    manager.append(
        {
            "tool_calls": [
                {"id": f"p{i}", "name": "work", "arguments": {"input": f"part {i}"}}
                for i in range(parallel)
            ]
        }
    )
    manager.append({"text": "all done"})
    worker: list[Any] = [{"text": f"did {i}", "latency": 0.5} for i in range(sequential + parallel)]
    return manager, worker


def _agent(manager: Any, worker: Any) -> Agent:
    child = Agent("worker", worker)
    return Agent(
        "manager",
        manager,
        subagents=[SubAgent("worker", agent=child, tool_name="work")],
        parallel_tool_calls=True,
        max_steps=10_000,
    )


def _scripted(sequential: int, parallel: int) -> Agent:
    manager, worker = _steps(sequential, parallel)
    return _agent(ScriptedModel(manager), ScriptedModel(worker))


def _cpu(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return median(times)


def replay_against_scripted(path: Path, sequential: int, parallel: int, repeats: int) -> Record:
    """CPU seconds per virtual-time run, models built in the run: the scripted models, and
    the replays of the recording (loaded once, as a test session loads it once)."""
    from handoff_sim.recording import Recording
    from handoff_sim.testing import override_models

    recording = Recording.load(path)

    def scripted() -> None:
        simulate(_scripted(sequential, parallel), "go")

    def replayed() -> None:
        agent = _scripted(sequential, parallel)  # the user's agents: their models are swapped
        with override_models(agent, recording.models()):
            simulate(agent, "go")

    def swapped() -> None:  # scripted models swapped in by name, as a replay's are
        agent = _scripted(sequential, parallel)
        manager, worker = _steps(sequential, parallel)
        models = {"manager": ScriptedModel(manager), "worker": ScriptedModel(worker)}
        with override_models(agent, models):
            simulate(agent, "go")

    scripted()
    replayed()
    swapped()  # warm-up
    runs = [(_cpu(scripted, 1), _cpu(replayed, 1), _cpu(swapped, 1)) for _ in range(repeats)]
    base, again = median([r[0] for r in runs]), median([r[1] for r in runs])
    swap = median([r[2] for r in runs])
    start = time.process_time()
    for _ in range(repeats):
        Recording.load(path)
    load = (time.process_time() - start) / repeats
    return {
        "measure": "replay / scripted, one run (CPU)",
        "scripted_s": base,
        "replay_s": again,
        "load_file_s": load,
        "swapped_scripted_s": swap,
        "ratio": again / base,
        "ratio_to_swapped_scripted": again / swap,
        "target": 1.2,
    }


def files_against_each_other(path: Path, sequential: int, parallel: int, repeats: int) -> Record:
    """CPU seconds of ``run_scenario`` on the recording and on the same script written as a
    plain scenario file (both loaded, built, run and checked)."""
    import yaml

    from handoff_sim.scenarios import run_scenario

    manager, worker = _steps(sequential, parallel)
    plain = path.with_name("scripted.yaml")
    document = {
        "scenario": "scripted",
        "agents": {
            "manager": {
                "parallel_tool_calls": True,
                "max_steps": 10_000,
                "subagents": [{"agent": "worker", "tool_name": "work"}],
                "model": {"script": manager},
            },
            "worker": {"model": {"script": worker}},
        },
        "run": ["go"],
    }
    plain.write_text(yaml.safe_dump(document, sort_keys=False))
    assert run_scenario(plain).passed
    assert run_scenario(path).passed
    runs = [
        (_cpu(lambda: run_scenario(plain), 1), _cpu(lambda: run_scenario(path), 1))
        for _ in range(repeats)
    ]
    base, again = median([b for b, _ in runs]), median([r for _, r in runs])
    return {
        "measure": "recording file / scripted file, run_scenario (CPU)",
        "scripted_s": base,
        "replay_s": again,
        "ratio": again / base,
        "target": 1.2,
        "bytes": [plain.stat().st_size, path.stat().st_size],
    }


class _Sleeping:
    """A model client answering from a script after a real ``delay``."""

    def __init__(self, steps: list[Any], delay: float) -> None:
        self.steps = [ScriptedModel([s]) for s in steps]
        self.delay = delay

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(self.delay)
        return await self.steps.pop(0).complete(request)


def _real(sequential: int, parallel: int, delay: float) -> Agent:
    manager, worker = _steps(sequential, parallel)
    worker = [{"text": s["text"]} for s in worker]  # the real sleep is the latency
    return _agent(_Sleeping(manager, delay), _Sleeping(worker, delay))


def recording_overhead(sequential: int, parallel: int, delay: float, repeats: int) -> Record:
    """CPU seconds of a real-time run, plain and recorded (the file written apart)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-recording-"))

    def plain() -> None:
        _real(sequential, parallel, delay).run("go")

    writes: list[float] = []

    def recorded() -> None:
        agent = _real(sequential, parallel, delay)
        block = record(agent, folder / "r.yaml")
        block.__enter__()
        agent.run("go")
        start = time.process_time()
        block.__exit__(None, None, None)
        writes.append(time.process_time() - start)

    plain()
    recorded()
    runs = []
    for _ in range(repeats):  # alternate, so drift of the machine touches both alike
        base = _cpu(plain, 1)
        writes_before = len(writes)
        total = _cpu(recorded, 1)
        runs.append((base, total - writes[writes_before]))
    shutil.rmtree(folder, ignore_errors=True)
    base = median([b for b, _ in runs])
    with_recorder = median([r for _, r in runs])
    return {
        "measure": "recording / plain (CPU, real time)",
        "plain_s": base,
        "recorded_s": with_recorder,
        "write_s": median(writes),
        "ratio": with_recorder / base,
        "target": 1.05,
        "sleep_ms": delay * 1000,
    }


# -- instructions (valgrind) ------------------------------------------------------------------

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def _instructions(mode: str, path: Path, sequential: int, parallel: int, times: int) -> int:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--one",
        mode,
        "--file",
        str(path),
        "--sequential",
        str(sequential),
        "--parallel",
        str(parallel),
        "--times",
        str(times),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=1800)
    return int(_COLLECTED.findall(done.stderr)[-1])


def instructions(path: Path, sequential: int, parallel: int, times: int) -> Record:
    """Instructions of ``times`` runs of each, what comes before a run subtracted (the
    interpreter's start-up, imports, building the agents; for the replay, loading the file
    and building its replays). Bytecode is compiled first, outside the count."""
    subprocess.run([sys.executable, __file__, "--one", "none", "--file", str(path)], check=True)
    modes = ("none", "scripted", "swapped", "load", "replay")
    counts = {m: _instructions(m, path, sequential, parallel, times) for m in modes}
    scripted = counts["scripted"] - counts["none"]
    replayed = counts["replay"] - counts["load"]
    return {
        "measure": "replay / scripted (instructions)",
        "scripted": scripted,
        "replay": replayed,
        "load": counts["load"] - counts["none"],
        "swapped_scripted": counts["swapped"] - counts["none"],
        "ratio": replayed / scripted,
        "ratio_to_swapped_scripted": replayed / (counts["swapped"] - counts["none"]),
        "target": 1.2,
        "runs": times,
    }


def _one(mode: str, path: Path, sequential: int, parallel: int, times: int) -> None:
    """``times`` runs for callgrind: ``none`` only builds the agents, ``load`` also loads the
    file and builds its replays (what ``replay`` does before a run), the others run."""
    from handoff_sim.recording import Recording
    from handoff_sim.testing import override_models

    for _ in range(times):
        agent = _scripted(sequential, parallel)
        if mode == "scripted":
            simulate(agent, "go")
        elif mode == "swapped":  # scripted models swapped in by name, as replays are
            manager, worker = _steps(sequential, parallel)
            scripted = {"manager": ScriptedModel(manager), "worker": ScriptedModel(worker)}
            with override_models(agent, scripted):
                simulate(agent, "go")
        elif mode in ("replay", "load"):
            models = Recording.load(path).models()
            if mode == "replay":
                with override_models(agent, models):
                    simulate(agent, "go")


def _record_file(path: Path, sequential: int, parallel: int) -> None:
    agent = _scripted(sequential, parallel)
    with record(agent, path):
        simulate(agent, "go")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sequential", type=int, default=40)
    parser.add_argument("--parallel", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sleep", type=float, default=2.0, help="ms per real model call")
    parser.add_argument("--no-valgrind", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--times", type=int, default=3, help="runs per callgrind process")
    args = parser.parse_args()
    if args.one:
        _one(args.one, Path(args.file), args.sequential, args.parallel, args.times)
        return 0
    folder = Path(tempfile.mkdtemp(prefix="bench-recording-"))
    try:
        path = folder / "workload.yaml"
        _record_file(path, args.sequential, args.parallel)
        records = [
            replay_against_scripted(path, args.sequential, args.parallel, args.repeats),
            files_against_each_other(path, args.sequential, args.parallel, args.repeats),
            recording_overhead(args.sequential, args.parallel, args.sleep / 1000, args.repeats),
        ]
        if shutil.which("valgrind") and not args.no_valgrind:
            records.append(instructions(path, args.sequential, args.parallel, args.times))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    facts = {**machine(), "sequential": args.sequential, "parallel": args.parallel}
    for entry in records:
        emit({**facts, **entry})
    print_table(
        records,
        [
            ("measure", "measure"),
            ("ratio", lambda r: f"{r['ratio']:.3f}"),
            ("target", lambda r: f"<= {r['target']}"),
        ],
        title="recording: ratios measured in this run",
    )
    print(json.dumps({"verdict": all(r["ratio"] <= r["target"] for r in records)}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
