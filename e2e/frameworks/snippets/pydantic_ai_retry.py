"""Pydantic AI: `ModelRetry` only when the server says a retry can succeed, `ToolFailed` otherwise.

By default an `isError` result raises `ModelRetry`: the model is told to try again, even for
SEAT_TAKEN. This `process_tool_call` reads the payload of the raw result instead: a retryable
failure is a `ModelRetry`, any other a `ToolFailed` (a failed result the model adapts to,
not one it repeats).
Run: python pydantic_ai_retry.py DEMO_SERVER (`scripted` stands in for the LLM).
"""

import asyncio
import sys

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.mcp import MCPToolset
from pydantic_ai_driver import scripted, tool_view

ERROR_KEY = "rs.mcp-errors/error"


def retry_only_when_advised(toolset: MCPToolset):
    async def process_tool_call(ctx, call_tool, name, args):
        result = await toolset.client.call_tool_mcp(name, args)
        if not result.is_error:
            if result.structured_content is not None:
                return result.structured_content
            return "\n".join(getattr(block, "text", "") for block in result.content)
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        payload = (result.meta or {}).get(ERROR_KEY) or {}
        if payload.get("retryable"):
            raise ModelRetry(text)
        raise ToolFailed(text)

    return process_tool_call


async def outcome(server: str, faults: list[str], tool: str, args: dict) -> str:
    toolset = MCPToolset(StdioTransport(command=server, args=faults))
    toolset.process_tool_call = retry_only_when_advised(toolset)
    seen: list = []
    agent = Agent(scripted({"tool": tool, "arguments": args}, seen), toolsets=[toolset])
    async with agent:
        await agent.run(f"call {tool}")
    part = next(p for m in seen[1:] for p in getattr(m, "parts", []) if hasattr(p, "outcome"))
    return f"{part.outcome}: {tool_view(seen)['view'][:40]}"


async def main(server: str) -> int:
    got = [
        await outcome(server, ["--fault", "search_down"], "search_docs", {"department": "finance", "keywords": "travel"}),
        await outcome(server, [], "reserve_seat", {"seat_id": "A1"}),
    ]
    ok = got[0].startswith("retried: ") and "BACKEND_DOWN" in got[0] and got[1].startswith("failed: ") and "SEAT_TAKEN" in got[1]
    print("ok" if ok else f"outcomes {got}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
