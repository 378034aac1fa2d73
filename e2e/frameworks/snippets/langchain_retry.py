"""LangChain: retry an MCP tool call as the server advises, in a tool interceptor.

The interceptor sees the whole `CallToolResult`, so it reads the payload in
`_meta["rs.mcp-errors/error"]` (dropped by the adapter's conversion to a `ToolMessage`) and
calls again only while `retryable` is true, waiting `retryAfterMs` when given.
Run: python langchain_retry.py DEMO_SERVER (checks: BACKEND_DOWN tried 3 times, SEAT_TAKEN once).
"""

import asyncio
import sys

from langchain_mcp_adapters.client import MultiServerMCPClient

ERROR_KEY = "rs.mcp-errors/error"


def error_payload(result) -> dict | None:
    """The mcp-errors payload of a failed `CallToolResult`, None for a success."""
    if not getattr(result, "isError", False):
        return None
    return (getattr(result, "meta", None) or {}).get(ERROR_KEY)


def retry_as_advised(attempts: int = 3, default_delay_ms: int = 200, on_call=None):
    """A tool interceptor: calls again while the payload says `retryable`, at most `attempts` times."""

    async def interceptor(request, handler):
        for attempt in range(1, attempts + 1):
            if on_call:
                on_call(request)
            result = await handler(request)
            payload = error_payload(result)
            if payload is None or not payload.get("retryable") or attempt == attempts:
                return result
            await asyncio.sleep(payload.get("retryAfterMs", default_delay_ms) / 1000)
        return result

    return interceptor


async def calls(server: str, faults: list[str], tool: str, args: dict) -> tuple[int, str]:
    """How often the tool was called, and the status of the ToolMessage the model gets."""
    count = []
    client = MultiServerMCPClient(
        {"demo": {"command": server, "args": faults, "transport": "stdio"}},
        tool_interceptors=[retry_as_advised(on_call=count.append)],
    )
    tools = {t.name: t for t in await client.get_tools()}
    message = await tools[tool].ainvoke({"name": tool, "args": args, "id": "call-1", "type": "tool_call"})
    return len(count), message.status


async def main(server: str) -> int:
    checks = [
        (await calls(server, ["--fault", "search_down"], "search_docs", {"department": "finance", "keywords": "travel"}), (3, "error")),
        (await calls(server, [], "reserve_seat", {"seat_id": "A1"}), (1, "error")),
        (await calls(server, [], "reserve_seat", {"seat_id": "A2"}), (1, "success")),
    ]
    failed = [f"got {got}, expected {want}" for got, want in checks if got != want]
    print("; ".join(failed) or "ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
