"""LangChain: `MultiServerMCPClient` (langchain-mcp-adapters) over stdio, its tools given to
`create_agent` (langchain) with a scripted `GenericFakeChatModel`. The model's second call
records the `ToolMessage` it is handed: its content is what the model reads, its
`status == "error"` the failure mark. The adapter sends no request `_meta`."""

import json

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient

from common import exact, fault_args, main


class ScriptedModel(GenericFakeChatModel):
    """`GenericFakeChatModel` that accepts tools and keeps the messages of each call."""

    seen: list = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def scripted(case: dict) -> ScriptedModel:
    call = {"name": case["tool"], "args": case["arguments"], "id": "call-1", "type": "tool_call"}
    return ScriptedModel(messages=iter([AIMessage(content="", tool_calls=[call]), AIMessage(content="done")]), seen=[])


def tool_view(model: ScriptedModel) -> dict:
    """The ToolMessage of the model's last call, as the model reads it."""
    messages = [m for m in model.seen[-1] if isinstance(m, ToolMessage)] if model.seen else []
    if not messages:
        return {"crash": "the model received no tool result"}
    message = messages[-1]
    return {"view": exact(message.content), "marked": message.status == "error", "raw": message.model_dump(mode="json")}


def client(server: str, case: dict) -> MultiServerMCPClient:
    return MultiServerMCPClient({"demo": {"command": server, "args": fault_args(case), "transport": "stdio"}})


async def run_case(server: str, case: dict) -> dict:
    tools = await client(server, case).get_tools()
    model = scripted(case)
    agent = create_agent(model=model, tools=tools)
    await agent.ainvoke({"messages": [{"role": "user", "content": f"call {case['tool']}"}]})
    return tool_view(model)


if __name__ == "__main__":
    main("LangChain", ["langchain", "langchain-mcp-adapters", "langchain-core", "mcp"], run_case, can_send_meta=False)
