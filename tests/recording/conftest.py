"""Fixtures of the recording tests: a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests._helpers import import_extra

if TYPE_CHECKING:
    from ._openai_server import OpenAIServer


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started server answering from ``server.serve(script)``; stopped after the test.

    Skips without the ``openai`` package (the framework extras bring it). On teardown a
    script error the test did not clear (``server.errors``) fails the test: a request
    the script could not answer is a bug of the test or of the code under it.
    """
    import_extra("openai-agents", "openai")
    from ._openai_server import OpenAIServer

    server = OpenAIServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
    if server.errors:
        pytest.fail("the scripted OpenAI server could not answer:\n" + "\n".join(server.errors))
