"""Without the frameworks installed, the adapter tests skip, each naming the extra it needs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUN_WITHOUT_FRAMEWORKS = """
import sys
sys.modules.update(agents=None, pydantic_ai=None)  # neither extra is "installed"
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_the_adapter_tests_skip_naming_the_extra_when_the_frameworks_are_absent() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN_WITHOUT_FRAMEWORKS,
            "tests/adapters",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-rs",
            "-q",
            "--deselect",
            "tests/adapters/test_without_extras.py",
        ],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},  # not a worker
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    skips = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert skips, out
    for line in skips:
        assert (
            "needs the 'openai-agents' extra: pip install 'handoff-sim[openai-agents]'" in line
            or "needs the 'pydantic-ai' extra: pip install 'handoff-sim[pydantic-ai]'" in line
        ), line
