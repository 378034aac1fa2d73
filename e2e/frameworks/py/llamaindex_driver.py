"""LlamaIndex: `BasicMCPClient` + `McpToolSpec` (llama-index-tools-mcp) over stdio, its
`FunctionTool`s given to a `FunctionAgent` (llama-index-core) whose LLM is a scripted
`MockFunctionCallingLLM`. The LLM's second call records the `tool` message it is handed: its
content is what the model reads; LlamaIndex has no failure mark on it. The spec's tools send
no request `_meta`."""

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

from common import fault_args, main


def scripted(case: dict, seen: list) -> MockFunctionCallingLLM:
    def respond(messages, **kwargs) -> ChatMessage:
        seen.append(list(messages))
        if len(seen) == 1:
            call = ToolCallBlock(tool_call_id="call-1", tool_name=case["tool"], tool_kwargs=case["arguments"])
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])
        return ChatMessage(role=MessageRole.ASSISTANT, content="done")

    return MockFunctionCallingLLM(response_generator=respond)


def tool_view(seen: list) -> dict:
    messages = [m for m in seen[-1] if m.role == MessageRole.TOOL] if len(seen) > 1 else []
    if not messages:
        return {"crash": "the model received no tool result"}
    message = messages[-1]
    return {"view": message.content or "", "marked": None, "raw": message.additional_kwargs}


async def run_case(server: str, case: dict) -> dict:
    client = BasicMCPClient(server, args=fault_args(case))
    tools = await McpToolSpec(client=client).to_tool_list_async()
    seen: list = []
    agent = FunctionAgent(tools=tools, llm=scripted(case, seen), system_prompt="Call the tool.")
    await agent.run(user_msg=f"call {case['tool']}")
    return tool_view(seen)


if __name__ == "__main__":
    main("LlamaIndex", ["llama-index-core", "llama-index-tools-mcp", "mcp"], run_case, can_send_meta=False)
