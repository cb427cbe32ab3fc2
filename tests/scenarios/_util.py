"""Small builders for scenario tests: minimal valid scenario mappings and files."""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "scenarios"

DELEGATION: dict[str, Any] = {
    "scenario": "delegation",
    "agents": {
        "manager": {
            "model": {
                "script": [
                    {
                        "tool_calls": [
                            {"id": "c1", "name": "delegate_review", "arguments": {"task": "x"}}
                        ]
                    },
                    {"text": "done"},
                ]
            },
            "subagents": [{"agent": "reviewer", "tool_name": "delegate_review"}],
        },
        "reviewer": {"model": {"script": [{"text": "lgtm", "latency": "1s"}]}},
    },
    "run": [{"input": "go"}],
}


def delegation(**overrides: Any) -> dict[str, Any]:
    """A fresh copy of a one-handoff scenario, with top-level keys replaced."""
    data = copy.deepcopy(DELEGATION)
    data.update(copy.deepcopy(overrides))
    return data


def write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    """Write dedented YAML text to ``tmp_path / name``."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path
