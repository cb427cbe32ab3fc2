"""freezegun's first freeze in a process, made cheap for the tests that freeze around a run.

A first ``freeze_time`` reads every attribute of every loaded module to find the clocks it
swaps: in this suite's processes, the thousands of modules of every framework (seconds),
none of which the simulation tests run. They are left out of the freeze; the runtime, the
tests and the standard library are patched as a user's ``freeze_time`` patches them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

FRAMEWORKS = (
    "agents", "openai", "pydantic_ai", "langchain", "langgraph", "langsmith", "mcp",
    "opentelemetry", "openinference", "griffe", "httpx", "httpcore", "requests", "urllib3",
    "websockets", "starlette", "cryptography",
)  # fmt: skip


@pytest.fixture(scope="package", autouse=True)
def _frameworks_left_out_of_a_freeze() -> Iterator[None]:
    try:
        import freezegun
    except ImportError:  # the freezegun tests skip, naming the test extra
        yield
        return
    freezegun.configure(extend_ignore_list=list(FRAMEWORKS))
    yield
    freezegun.config.reset_config()
