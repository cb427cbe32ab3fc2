"""The example projects under examples/ pass their own tests, run the way their users run them.

Each example is a small downstream project (its own pytest.ini, conftest.py, tests,
scenario file and snapshot); its tests run in a pytest of their own, from its folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("folder", "module", "extra"),
    [
        ("openai_agents_triage", "agents", "openai-agents"),
        ("pydantic_ai_triage", "pydantic_ai", "pydantic-ai"),
    ],
)
def test_the_example_project_passes_its_own_tests(folder: str, module: str, extra: str) -> None:
    pytest.importorskip(
        module, reason=f"needs the {extra!r} extra: pip install 'handoff-sim[{extra}]'"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=EXAMPLES / folder,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},  # not a worker
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed in [\d.]+s( \(\S+\))?", summary), summary  # nothing skipped
    assert "1 snapshot passed." in done.stdout
