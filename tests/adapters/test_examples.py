"""The example projects under examples/ pass their own tests, run the way their users run them.

Each example is a small downstream project (its own pytest.ini, conftest.py, tests,
scenario file and snapshot); its tests run in a pytest session of their own, from its
folder. The session runs in this process (pytester takes back the modules and the
settings it leaves), so the framework this suite has already imported is not imported
again.
"""

from __future__ import annotations

import re
from pathlib import Path

import hypothesis.internal.observability  # noqa: F401
import pytest

import handoff_sim.fuzzing._policy
import handoff_sim.scenarios
import handoff_sim.strategies
import handoff_sim.testing  # noqa: F401
import pytest_handoff._builders
import pytest_handoff._collection
import pytest_handoff._runner
import pytest_handoff._snapshot  # noqa: F401

# pytester takes back every module first imported inside a session: one the next session
# imports again would be a second copy beside the first (a strategy of one copy is not a
# strategy to the other). What the example sessions use is imported here, once.

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ALREADY_IMPORTED = (
    "ignore:Module already imported so cannot be rewritten:pytest.PytestAssertRewriteWarning"
)


@pytest.mark.parametrize(
    ("folder", "module", "extra"),
    [
        ("openai_agents_triage", "agents", "openai-agents"),
        ("pydantic_ai_triage", "pydantic_ai", "pydantic-ai"),
        ("langgraph_supervisor", "langgraph_supervisor", "langgraph"),
    ],
)
@pytest.mark.slow
def test_the_example_project_passes_its_own_tests(
    folder: str,
    module: str,
    extra: str,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip(
        module, reason=f"needs the {extra!r} extra: pip install 'handoff-sim[{extra}]'"
    )
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)  # not a worker: syrupy reports as in a shell
    monkeypatch.chdir(EXAMPLES / folder)
    # The one warning a fresh process would not give: pytest cannot rewrite the asserts of
    # the plugin's modules, which this suite imported already.
    done = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "-W", ALREADY_IMPORTED)
    assert done.ret == 0, done.stdout.str() + done.stderr.str()
    summary = done.outlines[-1]
    assert re.fullmatch(r"\d+ passed in [\d.]+s( \(\S+\))?", summary), summary  # nothing skipped
    assert "1 snapshot passed." in done.stdout.str()
