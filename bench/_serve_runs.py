#!/usr/bin/env python3
"""One framework's delegation runs on request: the worker that lets runs interleave.

``bench/delegation.py`` starts one of these per framework (ours, pydantic-ai,
openai-agents) and asks each in turn for one verified run, so ours and the peers'
figures are taken seconds apart in the same rounds, each framework in its own process
(its own heap and peak RSS). It needs only the standard library and the framework:
the peers' own virtualenv has no handoff-sim. Protocol: one JSON request a line on
stdin, one JSON answer a line on stdout.

- ``{"cmd": "run", "workload": "sequential", "n": 200, "mode": "realtime"}`` ->
  ``{"wall": s, "cpu": s, "events": int | null}``
- ``{"cmd": "tracemalloc", ...}`` (ours only) -> ``{"peak_mb": float}``
- ``{"cmd": "rss"}`` -> ``{"peak_rss_mb": float}``

``--callgrind workload:n:runs ...`` instead runs each region inside ``operator.call`` (a
C function nothing else calls) and exits: run under ``valgrind --tool=callgrind
--collect-atstart=no --toggle-collect=_operator_call --dump-after=_operator_call``, each
dump counts one region's instructions. It prints the regions' labels in dump order.

    python bench/_serve_runs.py handoff-sim|pydantic-ai|openai-agents [--callgrind ...]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import json
import operator
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parent
PEER_SCRIPTS = {"openai-agents": "bench_openai_agents.py", "pydantic-ai": "bench_pydantic_ai.py"}
Region = tuple[str, Callable[[], Any], Callable[[Any], Any]]


def _unchecked(result: Any) -> None:
    """A peer's ``one_run`` checks its own run."""


def _peer_module(framework: str) -> ModuleType:
    """The peer's own workload script (bench/peers/), imported as a module, default variant."""
    spec = importlib.util.spec_from_file_location(
        f"peer_{framework.replace('-', '_')}", BENCH / "peers" / PEER_SCRIPTS[framework]
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if framework == "pydantic-ai":
        module.Agent.instrument_all(False)  # as the script's default --instrument off
    else:
        module.set_tracing_disabled(True)  # as the script's default --tracing off
    return module


class Framework:
    """How to build, run and verify one framework's workload."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "handoff-sim":
            sys.path.insert(0, str(BENCH))
            import _workload

            self.ours: ModuleType | None = _workload
            self.peer: ModuleType | None = None
        else:
            self.ours, self.peer = None, _peer_module(name)

    def version(self) -> str:
        from importlib.metadata import version

        return version({"pydantic-ai": "pydantic-ai-slim"}.get(self.name, self.name))

    def _peer_args(self, workload: str, n: int) -> tuple[Any, ...]:
        kind = "function" if self.name == "pydantic-ai" else "custom"
        return (workload, n, kind) if self.name == "pydantic-ai" else (workload, n, kind, False)

    def run(self, workload: str, n: int, mode: str) -> dict[str, Any]:
        """One verified run on fresh agents; only the run itself is timed."""
        if self.ours is not None:
            wall, cpu, counts = self.ours.run_once(mode, workload, n)
            return {"wall": wall, "cpu": cpu, "events": counts["events"]}
        assert self.peer is not None
        gc.collect()
        wall, info = asyncio.run(self.peer.one_run(*self._peer_args(workload, n)))
        return {"wall": wall, "cpu": info["cpu_seconds"], "events": None}

    def regions(self, workload: str, n: int) -> list[Region]:
        """What callgrind counts for one run: (label, call, check of its result).

        Ours: the timed call alone (``execute``: ``asyncio.run`` of ``arun``), checked
        afterwards. A peer's ``one_run`` builds its agents and checks the run itself, so
        its agent construction is counted once more on its own and subtracted.
        """
        if self.ours is not None:
            wl = self.ours
            built = wl.build(workload, n)
            gc.collect()
            return [
                (
                    "run",
                    lambda: wl.execute(built, "realtime"),
                    lambda result: wl.verify(built, result[0], workload, n),
                )
            ]
        peer = self.peer
        assert peer is not None
        args = self._peer_args(workload, n)
        return [
            ("run", lambda: asyncio.run(peer.one_run(*args)), _unchecked),
            ("build", lambda: peer.build(*args[:3]), _unchecked),
        ]


def handle(framework: Framework, req: dict[str, Any]) -> dict[str, Any]:
    """The answer to one request."""
    cmd = req["cmd"]
    if cmd == "run":
        return framework.run(req["workload"], req["n"], req.get("mode", "realtime"))
    if cmd == "tracemalloc":
        tracemalloc.start()
        framework.run(req["workload"], req["n"], req.get("mode", "realtime"))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return {"peak_mb": round(peak / 2**20, 2)}
    if cmd == "rss":
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return {"peak_rss_mb": round(rss, 1), "version": framework.version()}
    raise SystemExit(f"_serve_runs: unknown command {cmd!r}")


def serve(framework: Framework) -> None:
    """Answer requests until stdin closes."""
    for line in sys.stdin:
        print(json.dumps(handle(framework, json.loads(line))), flush=True)


def callgrind(framework: Framework, specs: Sequence[str]) -> None:
    """Each ``workload:n:runs`` after one warm-up run: every run a region of its own."""
    labels = []
    for spec in specs:
        workload, n_text, runs_text = spec.split(":")
        n = int(n_text)
        framework.run(workload, n, "realtime")  # warm-up, not counted
        for i in range(int(runs_text)):
            for label, call, check in framework.regions(workload, n):
                t0 = time.perf_counter()
                check(operator.call(call))
                labels.append({"workload": workload, "n": n, "run": i, "region": label})
                took = time.perf_counter() - t0
                print(f"  {framework.name} {spec} {label} {took:.1f}s", file=sys.stderr)
    print(json.dumps({"regions": labels}), flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("framework", choices=["handoff-sim", *PEER_SCRIPTS])
    ap.add_argument("--callgrind", nargs="+", metavar="WORKLOAD:N:RUNS")
    args = ap.parse_args(argv)
    framework = Framework(args.framework)
    if args.callgrind:
        callgrind(framework, args.callgrind)
    else:
        serve(framework)


if __name__ == "__main__":
    main()
