"""Drives demo-server with the Python `mcp` SDK and checks every case of e2e/cases.json.

Usage: python check_demo.py DEMO_SERVER_BINARY

For each case it starts a fresh `demo-server --fault F...` over stdio, calls the tool through
`ClientSession.call_tool` and asserts what the SDK hands back: `CallToolResult.is_error` (`isError` in mcp 1.x), the
payload in `_meta["rs.mcp-errors/error"]` or the empty marker, and for a protocol error the
SDK's exception type (`MCPError`) and its `error.code` / `error.data`. It also checks that
`tools/list` gives every tool a description and an error catalog, and where the idempotency
capability reaches the SDK's user: in the `initialize` result the SDK parses, demo-server's
`capabilities.experimental["rs.mcp-errors/idempotency"]` (none with `--no-idempotency`), and,
from a probe server that advertises it at every candidate place, which places the SDK keeps
(`experimental`, `extensions`) and drops (`tools.idempotency`). Prints one line per check and a
final `python e2e: N passed, M failed`; exits 1 on any failure. Tested with mcp 2.3.0.
"""

import asyncio
import json
import sys
from importlib.metadata import version
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

try:  # mcp >= 2
    from mcp import MCPError as ProtocolError
except ImportError:  # mcp 1.x
    from mcp.shared.exceptions import McpError as ProtocolError

CASES = Path(__file__).resolve().parent.parent / "cases.json"
ERROR_KEY = "rs.mcp-errors/error"
EMPTY_KEY = "rs.mcp-errors/empty"
CATALOG_KEY = "rs.mcp-errors/catalog"
IDEMPOTENCY = "rs.mcp-errors/idempotency"
# Each candidate place of the idempotency capability, and whether the SDK keeps it.
PLACES = {
    "experimental": ({"experimental": {IDEMPOTENCY: {}}}, True),
    "extensions": ({"extensions": {IDEMPOTENCY: {}}}, True),
    "tools.idempotency": ({"tools": {"listChanged": True, "idempotency": {}}}, False),
}
# A server that answers `initialize` with the capabilities of its argument, and nothing else.
PROBE_SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": json.loads(sys.argv[1]),
                  "serverInfo": {"name": "probe", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""
TOOLS = ["export_orders", "fetch_report", "query_logs", "refund_order", "reserve_seat", "search_docs", "test_error_handling"]


def matches(expected, actual) -> bool:
    """Objects key by key, arrays of the same length item by item, anything else equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and matches(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual))
        )
    # bool is an int in Python: keep true and 1 apart.
    return type(expected) is type(actual) and expected == actual


def contains(haystack, needle) -> bool:
    return isinstance(haystack, str) and needle in haystack


def field(model, snake: str, camel: str):
    """A field of an SDK model: mcp 2.x names them in snake_case, mcp 1.x in camelCase."""
    return getattr(model, snake) if snake in type(model).model_fields else getattr(model, camel)


def leaks(expect: dict, wire) -> list[str]:
    """The strings of `textExcludes` found anywhere in the reply as JSON."""
    text = json.dumps(wire)
    return [f"the reply contains {needle!r}" for needle in expect.get("textExcludes", []) if needle in text]


def check_result(expect: dict, result) -> list[str]:
    problems = []
    channel = expect["channel"]
    # The SDK's own flag, not a re-parsed dict.
    is_error = field(result, "is_error", "isError")
    got = "isError" if is_error else "result"
    wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if channel != got:
        return [f"expected {channel}, got {got}: {json.dumps(wire)}"]
    problems += leaks(expect, wire)
    meta = wire.get("_meta") or {}
    if channel == "result":
        empty = meta.get(EMPTY_KEY) is True
        if "empty" in expect and expect["empty"] != empty:
            problems.append(f"empty marker {empty}, expected {expect['empty']}")
        structured = field(result, "structured_content", "structuredContent")
        if "structuredContent" in expect and not matches(expect["structuredContent"], structured):
            problems.append(f"structuredContent {structured}, expected {expect['structuredContent']}")
        return problems
    payload = meta.get(ERROR_KEY) or {}
    for key in ["code", "category", "retryable", "retryAfterMs", "correlationId"]:
        if key in expect and not matches(expect[key], payload.get(key)):
            problems.append(f"{key} {payload.get(key)!r}, expected {expect[key]!r}")
    details = payload.get("details") or {}
    if "details" in expect and not matches(expect["details"], details):
        problems.append(f"details {details}, expected {expect['details']}")
    for key, needle in (expect.get("detailsContain") or {}).items():
        if not contains(details.get(key), needle):
            problems.append(f"details.{key} does not contain {needle!r}")
    if "hintContains" in expect and not contains(payload.get("hint"), expect["hintContains"]):
        problems.append(f"hint {payload.get('hint')!r} does not contain {expect['hintContains']!r}")
    prefix = expect.get("textStartsWith")
    first = result.content[0].text if result.content else None
    if prefix is not None and not (first or "").startswith(prefix):
        problems.append(f"content[0].text {first!r} does not start with {prefix!r}")
    if "textContains" in expect:
        text = result.content[0].text if result.content else None
        if not contains(text, expect["textContains"]):
            problems.append(f"content[0].text {text!r} does not contain {expect['textContains']!r}")
    return problems


def check_protocol_error(expect: dict, error: ProtocolError) -> list[str]:
    if expect["channel"] != "protocol":
        return [f"expected {expect['channel']}, got {type(error).__name__} {error.error.code}: {error.error.message}"]
    problems = leaks(expect, error.error.model_dump(mode="json", by_alias=True, exclude_none=True))
    if error.error.code != expect["jsonrpcCode"]:
        problems.append(f"error.code {error.error.code}, expected {expect['jsonrpcCode']}")
    prefix = expect.get("messageStartsWith")
    if prefix is not None and not error.error.message.startswith(prefix):
        problems.append(f"error.message {error.error.message!r} does not start with {prefix!r}")
    if "messageContains" in expect and not contains(error.error.message, expect["messageContains"]):
        problems.append(f"error.message {error.error.message!r} does not contain {expect['messageContains']!r}")
    if "data" in expect and not matches(expect["data"], error.error.data):
        problems.append(f"error.data {error.error.data}, expected {expect['data']}")
    return problems


async def run_case(server: str, case: dict) -> list[str]:
    args = [arg for fault in case["faults"] for arg in ("--fault", fault)]
    params = StdioServerParameters(command=server, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            try:
                result = await session.call_tool(case["tool"], case["arguments"], meta=case.get("meta"))
            except ProtocolError as error:
                return check_protocol_error(case["expect"], error)
            return check_result(case["expect"], result)


async def check_tools(server: str) -> list[str]:
    params = StdioServerParameters(command=server, args=[])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
    problems = []
    names = sorted(tool.name for tool in tools)
    if names != TOOLS:
        problems.append(f"tools {names}, expected {TOOLS}")
    for tool in tools:
        wire = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        if not tool.description:
            problems.append(f"{tool.name} has no description")
        catalog = (wire.get("_meta") or {}).get(CATALOG_KEY) or {}
        if not catalog.get("errors"):
            problems.append(f"{tool.name} publishes no error catalog")
    return problems


def idempotency_places(capabilities) -> set[str]:
    """The places where the SDK's parsed `ServerCapabilities` shows the idempotency capability."""
    tools = capabilities.tools.model_dump(by_alias=True) if capabilities.tools else {}
    shown = {
        "experimental": IDEMPOTENCY in (capabilities.experimental or {}),
        # `extensions` is a field of mcp 2.x; mcp 1.x keeps no unknown member.
        "extensions": IDEMPOTENCY in (getattr(capabilities, "extensions", None) or {}),
        "tools.idempotency": "idempotency" in tools,
    }
    return {place for place, seen in shown.items() if seen}


async def initialized_places(params: StdioServerParameters) -> set[str]:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            result = await session.initialize()
    return idempotency_places(result.capabilities)


async def check_capability(server: str, args: list[str], expected: set[str]) -> list[str]:
    shown = await initialized_places(StdioServerParameters(command=server, args=args))
    if shown != expected:
        return [f"the capability shows at {sorted(shown)}, expected {sorted(expected)}"]
    return []


async def check_capability_places() -> list[str]:
    capabilities: dict = {}
    for place, _ in PLACES.values():
        capabilities.update(place)
    params = StdioServerParameters(command=sys.executable, args=["-c", PROBE_SERVER, json.dumps(capabilities)])
    shown = await initialized_places(params)
    for place in PLACES:
        print(f"     mcp {version('mcp')} {'keeps' if place in shown else 'drops'} {place}")
    expected = {place for place, (_, kept) in PLACES.items() if kept}
    if shown != expected:
        return [f"the SDK keeps {sorted(shown)}, expected {sorted(expected)}"]
    return []


async def main(server: str) -> int:
    cases = json.loads(CASES.read_text())["cases"]
    checks = [("tools/list: descriptions and error catalogs", check_tools(server))]
    checks += [
        ("initialize: the idempotency capability in experimental", check_capability(server, [], {"experimental"})),
        ("initialize: no idempotency capability with --no-idempotency", check_capability(server, ["--no-idempotency"], set())),
        ("initialize: the places of a capability the SDK keeps", check_capability_places()),
    ]
    checks += [(case["name"], run_case(server, case)) for case in cases]
    passed = failed = 0
    for name, check in checks:
        try:
            problems = await check
        except Exception as error:  # a crash of the SDK or the server is a failure too
            problems = [f"{type(error).__name__}: {error}"]
        if problems:
            failed += 1
            print(f"FAIL {name}: {'; '.join(problems)}")
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"python e2e: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1])))
