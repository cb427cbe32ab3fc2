"""Without the frameworks installed, the adapter tests skip, each naming the extra it needs."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from handoff_sim.adapters import MissingExtraError
from tests._helpers import needs_extra
from tests.adapters._extras import hide
from tests.conftest import FOREIGN_PLUGINS_OFF

ROOT = Path(__file__).resolve().parents[2]

RUN_WITHOUT_FRAMEWORKS = """
import sys
# no extra is "installed": openai-agents, pydantic-ai, langgraph (and langchain-core under it)
sys.modules.update(agents=None, pydantic_ai=None, langgraph=None, langchain_core=None)
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
            *FOREIGN_PLUGINS_OFF.split(),
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
            or "needs the 'langgraph' extra: pip install 'handoff-sim[langgraph]'" in line
        ), line
    assert any("'langgraph' extra" in line for line in skips), out  # its tests were collected


@pytest.mark.parametrize(
    ("blocked", "package"),
    [
        ("langgraph", "langgraph"),
        # with langgraph itself absent, the error names langgraph whatever else is missing
        pytest.param(
            "langchain_core", "langchain-core", marks=needs_extra("langgraph", "langgraph")
        ),
    ],
)
def test_importing_the_langgraph_adapter_without_its_extra_names_the_extra(
    blocked: str, package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = "handoff_sim.adapters.langgraph"
    hide(monkeypatch, blocked, module)  # langgraph, or langchain-core under it, "not installed"
    with pytest.raises(MissingExtraError) as raised:
        importlib.import_module(module)
    assert type(raised.value) is MissingExtraError
    assert raised.value.extra == "langgraph"
    assert str(raised.value) == (
        f"{module} needs the optional extra 'langgraph': pip install 'handoff-sim[langgraph]' "
        f"(the package {package!r} is not installed)"
    )
