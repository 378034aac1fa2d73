"""FastMCP client: `Client` (fastmcp) over a `StdioTransport`, `call_tool` as an application
(or an agent loop built on it) calls it. FastMCP has no model loop of its own: what the caller
gets is the text of the result's content blocks, or for an `isError` result the `ToolError` it
raises (the failure mark), whose message is that text. The case's `_meta` is sent with
`call_tool(meta=...)`."""

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError

from common import fault_args, main


def text_of(content) -> str:
    return "\n".join(getattr(block, "text", None) or block.model_dump_json() for block in content)


async def run_case(server: str, case: dict) -> dict:
    async with Client(StdioTransport(command=server, args=fault_args(case))) as client:
        try:
            result = await client.call_tool(case["tool"], case["arguments"], meta=case.get("meta"))
        except ToolError as error:
            return {"view": str(error), "marked": True, "raw": repr(error)}
        return {"view": text_of(result.content), "marked": False, "raw": result.structured_content}


if __name__ == "__main__":
    main("FastMCP client", ["fastmcp", "mcp"], run_case)
