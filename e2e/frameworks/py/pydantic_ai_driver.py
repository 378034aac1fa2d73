"""Pydantic AI: `MCPToolset` (pydantic-ai-slim[mcp]) over a FastMCP `StdioTransport`, given to an
`Agent` whose model is a scripted `FunctionModel`. The model's second call records the part it
is handed, read as the model reads it (`model_response_str`): a `ToolReturnPart` whose `outcome`
is the failure mark (`"retried"`: the toolset raises `ModelRetry` for an `isError` result). The case's `_meta` is
sent through `process_tool_call`."""

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from common import exact, fault_args, main


def scripted(case: dict, seen: list) -> FunctionModel:
    def respond(messages, info: AgentInfo) -> ModelResponse:
        seen.append(messages[-1])
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart(tool_name=case["tool"], args=case["arguments"], tool_call_id="call-1")])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


def tool_view(seen: list) -> dict:
    parts = [p for m in seen[1:] if isinstance(m, ModelRequest) for p in m.parts]
    for part in parts:
        if isinstance(part, ToolReturnPart):
            marked = getattr(part, "outcome", "success") != "success"
            return {"view": part.model_response_str(), "marked": marked, "raw": exact(part.content)}
        if isinstance(part, RetryPromptPart):
            return {"view": part.model_response(), "marked": True, "raw": exact(part.content)}
    return {"crash": "the model received no tool result"}


async def run_case(server: str, case: dict) -> dict:
    meta = case.get("meta")

    async def with_meta(ctx, call_tool, name, args):
        return await call_tool(name, args, metadata=meta)

    toolset = MCPToolset(StdioTransport(command=server, args=fault_args(case)), process_tool_call=with_meta if meta else None)
    seen: list = []
    agent = Agent(scripted(case, seen), toolsets=[toolset])
    async with agent:
        await agent.run(f"call {case['tool']}")
    return tool_view(seen)


if __name__ == "__main__":
    main("Pydantic AI", ["pydantic-ai-slim", "fastmcp-slim", "mcp"], run_case)
