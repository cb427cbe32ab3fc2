"""``SimChatModel``: our fake models as a langchain-core chat model, with tools and streaming.

langchain-core's own fakes cannot bind tools and sleep in real time; this one binds
tools as a provider's chat model does (``bind_tools`` → ``tools=`` in OpenAI form),
asks one of our model clients natively in async code (its latency is the client's own
``asyncio.sleep``, virtual under ``simulate_run``) and answers with an ``AIMessage``
whose tool calls LangChain parses itself.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import msgspec
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from handoff_sim._context import current_environment, current_frame
from handoff_sim._models import ModelClient
from handoff_sim.adapters._lg_messages import answer_chunks, answer_message, to_messages, tool_specs
from handoff_sim.adapters._lg_sync import sync_refusal
from handoff_sim.adapters._models import ModelBridge
from handoff_sim.messages import ModelRequest, ModelResponse

__all__ = ["SimChatModel", "agent_of"]

R = TypeVar("R")

AgentNamer = Callable[[Mapping[str, Any]], str | None]


def agent_of(metadata: Mapping[str, Any]) -> str | None:
    """The agent a LangChain run belongs to, from its metadata, when LangChain says it.

    ``create_agent(name=...)`` puts ``lc_agent_name`` in the metadata of every run of the
    agent; ``create_react_agent(name=...)`` and hand-written graphs do not (the running
    capture knows them by their graph instead).
    """
    name = metadata.get("lc_agent_name")
    return str(name) if name else None


class SimChatModel(BaseChatModel):
    """One of our fake models (``ScriptedModel``, ``FunctionModel``...) as a LangChain chat model.

    ``SimChatModel(ScriptedModel([...]))`` goes wherever a chat model goes:
    ``create_agent(model=...)``, ``create_react_agent(model, ...)``,
    ``create_supervisor(..., model=...)``, a ``StateGraph`` node calling
    ``model.bind_tools(tools).ainvoke(messages)``. ``agent=`` names the agent its
    requests are for; without it the name comes from the running capture (the graph
    that calls it), LangChain's ``lc_agent_name``, or the client's ``name``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Any
    """The fake model this chat model asks (anything with ``async complete(request)``)."""
    agent: str | None = None
    """The agent this model answers for, when set (else found per call)."""

    _bridge: ModelBridge = PrivateAttr()

    def __init__(self, client: ModelClient, **kwargs: Any) -> None:
        bridge = ModelBridge(client, owner="SimChatModel")
        super().__init__(client=client, **kwargs)  # type: ignore[call-arg]  # pydantic fields
        self._bridge = bridge

    def __repr__(self) -> str:
        return f"SimChatModel({self.client!r})"

    @property
    def _llm_type(self) -> str:
        return "handoff-sim"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": f"handoff-sim:{self._bridge.model_name}"}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        parallel_tool_calls: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as a provider's chat model does: OpenAI tool dicts in ``tools=``."""
        bound: dict[str, Any] = {"tools": [convert_to_openai_tool(t) for t in tools]}
        if tool_choice is not None:
            bound["tool_choice"] = tool_choice
        if parallel_tool_calls is not None:
            bound["parallel_tool_calls"] = parallel_tool_calls
        return self.bind(**bound, **kwargs)

    # -- asking the fake -------------------------------------------------------------------

    def _agent(self, run_manager: AsyncCallbackManagerForLLMRun | None) -> str:
        if self.agent:
            return self.agent
        frame = current_frame()
        if frame is not None:
            return frame.agent
        metadata = run_manager.metadata if run_manager is not None else {}
        return agent_of(metadata) or self._bridge.agent_name()

    async def _answer(
        self,
        messages: list[BaseMessage],
        run_manager: AsyncCallbackManagerForLLMRun | None,
        kwargs: Mapping[str, Any],
    ) -> ModelResponse:
        parallel = kwargs.get("parallel_tool_calls")
        request = self._bridge.request(
            to_messages(messages),
            tool_specs(kwargs.get("tools")),
            parallel_tool_calls=True if parallel is None else bool(parallel),
        )
        request = _renamed(request, self._agent(run_manager))
        return await self._bridge.complete(request)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        answer = await self._answer(messages, run_manager, kwargs)
        return ChatResult(generations=[ChatGeneration(message=answer_message(answer))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        answer = await self._answer(messages, run_manager, kwargs)
        for chunk in answer_chunks(answer):
            yield ChatGenerationChunk(message=chunk)

    # -- the sync path ---------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """A sync call: refused inside a simulation; outside, the fake runs on a loop of its own."""
        if current_environment() is not None:
            raise sync_refusal()
        return _run_aside(self._agenerate(messages, stop, None, **kwargs))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        if current_environment() is not None:
            raise sync_refusal()
        answer = _run_aside(self._answer(messages, None, kwargs))
        for chunk in answer_chunks(answer):
            yield ChatGenerationChunk(message=chunk)


def _renamed(request: ModelRequest, agent: str) -> ModelRequest:
    if request.agent == agent:
        return request
    return msgspec.structs.replace(request, agent=agent)


def _run_aside(coro: Coroutine[Any, Any, R]) -> R:
    """Run ``coro`` to its end from sync code: here when no loop runs, else in a thread.

    Outside a simulation the fake's latency then costs real time; inside one the sync
    path is refused before this point.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
