"""Ours and the peers measured in the same rounds: one worker process per framework.

Each round asks every worker for one verified run, in an order that rotates from round
to round, so ours and each peer's figures are taken seconds apart under the same load.
A ratio is the median of the per-round ratios (CPU time, wall time beside it): figures
of separate runs minutes apart are never divided by each other. The workers are
``bench/_serve_runs.py`` processes; a peer's runs on the interpreter that
``_peers.peer_interpreter`` finds (the pinned virtualenv, or this one when it has the
framework).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import BENCH_DIR, Record, median

__all__ = ["LocalWorker", "Sample", "Worker", "interleave", "ratios", "say"]

SERVE = BENCH_DIR / "_serve_runs.py"


class Worker:
    """One ``_serve_runs.py`` process; ``ask`` sends a request and waits for its answer."""

    def __init__(self, framework: str, python: Path | str, mode: str = "realtime") -> None:
        self.framework, self.mode, self.python = framework, mode, str(python)
        self.proc = subprocess.Popen(
            [self.python, str(SERVE), framework],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **request: Any) -> Record:
        """One request, one answer; a worker that dies fails the benchmark loudly."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.framework} worker died on {request} ({self.python})")
        answer: Record = json.loads(line)
        return answer

    def close(self) -> None:
        """End the worker (it exits when its stdin closes)."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


class LocalWorker(Worker):
    """Ours in this very process (quick checks: peak RSS then covers every run so far)."""

    def __init__(self, framework: str, mode: str = "realtime") -> None:
        import _serve_runs

        self.framework, self.mode, self.python = framework, mode, sys.executable
        self._serve = _serve_runs
        self._framework = _serve_runs.Framework(framework)

    def ask(self, **request: Any) -> Record:
        """Answer the request here."""
        return self._serve.handle(self._framework, request)

    def close(self) -> None:
        """Nothing to end."""


@dataclass
class Sample:
    """One worker's timed runs of one (workload, size): wall and CPU seconds per run."""

    worker: Worker
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    first: float | None = None
    events: int | None = None


def interleave(
    workers: Sequence[Worker], workload: str, n: int, repeats: Sequence[int], warmup: int = 1
) -> list[Sample]:
    """``warmup`` untimed runs each, then rounds; worker i does ``repeats[i]`` timed runs.

    Round r starts at worker r (mod count); a worker whose repeats are done sits out.
    """
    samples = [Sample(w) for w in workers]
    for s in samples:
        for _ in range(warmup):
            got = s.worker.ask(cmd="run", workload=workload, n=n, mode=s.worker.mode)
            s.first = got["wall"] if s.first is None else s.first
    for r in range(max(repeats)):
        order = list(range(len(samples)))
        order = order[r % len(order) :] + order[: r % len(order)]
        for i in order:
            if r >= repeats[i]:
                continue
            s = samples[i]
            got = s.worker.ask(cmd="run", workload=workload, n=n, mode=s.worker.mode)
            s.wall.append(got["wall"])
            s.cpu.append(got["cpu"])
            s.events = got.get("events")
    return samples


def ratios(ours: Sample, peer: Sample) -> Record:
    """The peer's cost over ours, round by round (the rounds both ran), and the median."""
    pairs = list(zip(ours.cpu, peer.cpu, strict=False))
    walls = list(zip(ours.wall, peer.wall, strict=False))
    cpu = [p / o for o, p in pairs]
    wall = [p / o for o, p in walls]
    return {
        "cpu_ratio": round(median(cpu), 1),
        "cpu_ratio_min": round(min(cpu), 1),
        "cpu_ratio_max": round(max(cpu), 1),
        "wall_ratio": round(median(wall), 1),
        "rounds": len(pairs),
        "cpu_ratios": [round(x, 1) for x in cpu],
    }


def say(text: str) -> None:
    """Progress on stderr (the JSON lines go to stdout)."""
    print(text, file=sys.stderr, flush=True)
