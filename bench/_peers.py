"""The peer frameworks' side: a private virtualenv, and the interpreter that runs their workloads.

The peers are never a dependency of handoff-sim. ``--setup-peers`` creates
``.handoff-venvs/peers`` (gitignored) with exactly the pinned versions (``PINS``) the bars
were set with; the workload scripts in ``bench/peers/`` are the project's own peer
measurements.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from _common import REPO_ROOT

__all__ = [
    "PEERS",
    "PEER_MODULES",
    "PEER_VENV",
    "peer_interpreter",
    "setup_peers",
]

PEER_VENV = REPO_ROOT / ".handoff-venvs" / "peers"
PINS = {"openai-agents": "0.24.0", "pydantic-ai": "2.62.0"}
PEERS = {"openai-agents": "bench_openai_agents.py", "pydantic-ai": "bench_pydantic_ai.py"}
PEER_MODULES = {"openai-agents": "agents", "pydantic-ai": "pydantic_ai"}


def peer_interpreter(framework: str) -> Path | None:
    """The interpreter a peer runs on: the pinned virtualenv's, else this one if it has it."""
    python = PEER_VENV / "bin" / "python"
    if python.exists():
        return python
    if importlib.util.find_spec(PEER_MODULES[framework]) is not None:
        return Path(sys.executable)
    return None


def _versions(package: str) -> list[str]:
    """Versions the package index offers, newest first (``pip index versions``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", package],
        capture_output=True,
        text=True,
        check=False,
    )
    match = re.search(r"Available versions:\s*(.+)", proc.stdout)
    return [v.strip() for v in match.group(1).split(",")] if match else []


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def _resolve_pin(package: str, wanted: str) -> str:
    """``wanted`` if the index has it, else the nearest version (said on stderr)."""
    available = _versions(package)
    if not available or wanted in available:
        return wanted
    target = _key(wanted)

    def distance(v: str) -> tuple[int, ...]:
        return tuple(abs(a - b) for a, b in zip(_key(v), target, strict=False))

    nearest = min(available, key=distance)
    print(
        f"NOTE: {package}=={wanted} is not on the index; using nearest {nearest}", file=sys.stderr
    )
    return nearest


def setup_peers() -> dict[str, str]:
    """Create the peer virtualenv with the pinned versions; return the versions installed."""
    pins = {pkg: _resolve_pin(pkg, v) for pkg, v in PINS.items()}
    if not (PEER_VENV / "bin" / "python").exists():
        PEER_VENV.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    reqs = [f"{pkg}=={v}" for pkg, v in pins.items()]
    print(f"installing {' '.join(reqs)} into {PEER_VENV}", file=sys.stderr)
    subprocess.run(
        [str(PEER_VENV / "bin" / "python"), "-m", "pip", "install", "-q", *reqs], check=True
    )
    return pins
