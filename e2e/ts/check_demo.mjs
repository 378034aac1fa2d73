// Drives demo-server with the TypeScript `@modelcontextprotocol/sdk` (v1) and checks every
// case of e2e/cases.json.
//
// Usage: node check_demo.mjs DEMO_SERVER_BINARY
//
// For each case it starts a fresh `demo-server --fault F...` over stdio, lists the tools first
// (as a host does, so the SDK validates structuredContent against each tool's outputSchema,
// even on errors), calls the tool and asserts what the SDK hands back: `isError`, the payload
// in `_meta["rs.mcp-errors/error"]` or the empty marker, and for a protocol error the
// rejection's type (`McpError`), `code` and `data`. It also checks where the idempotency
// capability reaches the SDK's user in `client.getServerCapabilities()`: demo-server's
// `capabilities.experimental["rs.mcp-errors/idempotency"]` (none with `--no-idempotency`), and,
// from a probe server that advertises it at every candidate place, which places the SDK keeps
// (`experimental`, `extensions`) and drops (`tools.idempotency`). Prints one line per check and
// a final `typescript e2e: N passed, M failed`; exits 1 on any failure. Tested with
// @modelcontextprotocol/sdk 1.32.2 on Node 20.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const ERROR_KEY = "rs.mcp-errors/error";
const EMPTY_KEY = "rs.mcp-errors/empty";
const CATALOG_KEY = "rs.mcp-errors/catalog";
const IDEMPOTENCY = "rs.mcp-errors/idempotency";
// Each candidate place of the idempotency capability, and whether the SDK keeps it.
const PLACES = {
  experimental: [{ experimental: { [IDEMPOTENCY]: {} } }, true],
  extensions: [{ extensions: { [IDEMPOTENCY]: {} } }, true],
  "tools.idempotency": [{ tools: { listChanged: true, idempotency: {} } }, false],
};
// A server that answers `initialize` with the capabilities of its argument, and nothing else.
const PROBE_SERVER = `
const capabilities = JSON.parse(process.argv[1]);
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method !== "initialize") return;
  const result = { protocolVersion: message.params.protocolVersion, capabilities, serverInfo: { name: "probe", version: "1" } };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\\n");
});
`;
const TOOLS = ["export_orders", "fetch_report", "query_logs", "refund_order", "reserve_seat", "search_docs", "test_error_handling"];

const server = process.argv[2];
if (!server || process.argv.length !== 3) {
  console.error("usage: node check_demo.mjs DEMO_SERVER_BINARY");
  process.exit(2);
}
// Ajv, inside the SDK, warns about schemars' integer formats ("uint32") it does not know and
// ignores them; keep the output readable, pass every other warning through.
const warn = console.warn;
console.warn = (...args) => {
  if (!(typeof args[0] === "string" && /^unknown format "uint\d*" ignored/.test(args[0]))) warn(...args);
};

const { cases } = JSON.parse(readFileSync(new URL("../cases.json", import.meta.url), "utf8"));

// Objects key by key, arrays of the same length item by item, anything else equal.
function matches(expected, actual) {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((e, i) => matches(e, actual[i]))
    );
  }
  if (expected !== null && typeof expected === "object") {
    return (
      actual !== null &&
      typeof actual === "object" &&
      Object.entries(expected).every(([k, v]) => k in actual && matches(v, actual[k]))
    );
  }
  return expected === actual;
}

const contains = (haystack, needle) => typeof haystack === "string" && haystack.includes(needle);
const show = (value) => JSON.stringify(value);

// The strings of `textExcludes` found anywhere in the reply as JSON.
const leaks = (expect, reply) =>
  (expect.textExcludes ?? []).filter((needle) => show(reply).includes(needle)).map((needle) => `the reply contains ${show(needle)}`);

function checkResult(expect, result) {
  const got = result.isError === true ? "isError" : "result";
  if (expect.channel !== got) return [`expected ${expect.channel}, got ${got}: ${show(result)}`];
  const problems = leaks(expect, result);
  const meta = result._meta ?? {};
  if (got === "result") {
    const empty = meta[EMPTY_KEY] === true;
    if ("empty" in expect && expect.empty !== empty) {
      problems.push(`empty marker ${empty}, expected ${expect.empty}`);
    }
    if ("structuredContent" in expect && !matches(expect.structuredContent, result.structuredContent)) {
      problems.push(`structuredContent ${show(result.structuredContent)}, expected ${show(expect.structuredContent)}`);
    }
    return problems;
  }
  const payload = meta[ERROR_KEY] ?? {};
  for (const key of ["code", "category", "retryable", "retryAfterMs", "correlationId"]) {
    if (key in expect && !matches(expect[key], payload[key])) {
      problems.push(`${key} ${show(payload[key])}, expected ${show(expect[key])}`);
    }
  }
  const details = payload.details ?? {};
  if ("details" in expect && !matches(expect.details, details)) {
    problems.push(`details ${show(details)}, expected ${show(expect.details)}`);
  }
  for (const [key, needle] of Object.entries(expect.detailsContain ?? {})) {
    if (!contains(details[key], needle)) problems.push(`details.${key} does not contain ${show(needle)}`);
  }
  if ("hintContains" in expect && !contains(payload.hint, expect.hintContains)) {
    problems.push(`hint ${show(payload.hint)} does not contain ${show(expect.hintContains)}`);
  }
  const first = result.content?.[0]?.text ?? "";
  if ("textStartsWith" in expect && !first.startsWith(expect.textStartsWith)) {
    problems.push(`content[0].text ${show(first)} does not start with ${show(expect.textStartsWith)}`);
  }
  if ("textContains" in expect && !contains(result.content?.[0]?.text, expect.textContains)) {
    problems.push(`content[0].text ${show(result.content?.[0]?.text)} does not contain ${show(expect.textContains)}`);
  }
  return problems;
}

function checkRejection(expect, error) {
  if (!(error instanceof McpError)) {
    return [`the SDK rejected the call with ${error?.constructor?.name}: ${error}`];
  }
  if (expect.channel !== "protocol") {
    return [`expected ${expect.channel}, got McpError ${error.code}: ${error.message}`];
  }
  const problems = leaks(expect, { message: error.message, data: error.data });
  if (error.code !== expect.jsonrpcCode) problems.push(`code ${error.code}, expected ${expect.jsonrpcCode}`);
  // The SDK's McpError puts "MCP error <code>: " before the server's message.
  const message = error.message.replace(`MCP error ${error.code}: `, "");
  if ("messageStartsWith" in expect && !message.startsWith(expect.messageStartsWith)) {
    problems.push(`message ${show(message)} does not start with ${show(expect.messageStartsWith)}`);
  }
  if ("messageContains" in expect && !contains(message, expect.messageContains)) {
    problems.push(`message ${show(message)} does not contain ${show(expect.messageContains)}`);
  }
  if ("data" in expect && !matches(expect.data, error.data)) {
    problems.push(`data ${show(error.data)}, expected ${show(expect.data)}`);
  }
  return problems;
}

async function withClient(faults, body) {
  const args = faults.flatMap((fault) => ["--fault", fault]);
  return withServer(server, args, body);
}

async function withServer(command, args, body) {
  const client = new Client({ name: "mcp-errors-e2e", version: "0.1.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

async function runCase(c) {
  return withClient(c.faults, async (client) => {
    await client.listTools();
    let result;
    try {
      const params = { name: c.tool, arguments: c.arguments };
      if (c.meta) params._meta = c.meta;
      result = await client.callTool(params);
    } catch (error) {
      return checkRejection(c.expect, error);
    }
    if (c.expect.channel === "protocol") return [`expected a rejection, got ${show(result)}`];
    return checkResult(c.expect, result);
  });
}

async function checkTools() {
  return withClient([], async (client) => {
    const { tools } = await client.listTools();
    const problems = [];
    const names = tools.map((t) => t.name).sort();
    if (show(names) !== show(TOOLS)) problems.push(`tools ${show(names)}, expected ${show(TOOLS)}`);
    for (const tool of tools) {
      if (!tool.description) problems.push(`${tool.name} has no description`);
      if (!tool._meta?.[CATALOG_KEY]?.errors?.length) problems.push(`${tool.name} publishes no error catalog`);
    }
    return problems;
  });
}

// The places where the SDK's parsed server capabilities show the idempotency capability.
function idempotencyPlaces(capabilities) {
  const shown = {
    experimental: IDEMPOTENCY in (capabilities?.experimental ?? {}),
    extensions: IDEMPOTENCY in (capabilities?.extensions ?? {}),
    "tools.idempotency": "idempotency" in (capabilities?.tools ?? {}),
  };
  return Object.keys(shown).filter((place) => shown[place]);
}

async function checkCapability(args, expected) {
  const shown = await withServer(server, args, async (client) => idempotencyPlaces(client.getServerCapabilities()));
  return show(shown) === show(expected) ? [] : [`the capability shows at ${show(shown)}, expected ${show(expected)}`];
}

async function checkCapabilityPlaces() {
  const capabilities = Object.assign({}, ...Object.values(PLACES).map(([place]) => place));
  const args = ["-e", PROBE_SERVER, JSON.stringify(capabilities)];
  const shown = await withServer(process.execPath, args, async (client) => idempotencyPlaces(client.getServerCapabilities()));
  const { version } = JSON.parse(
    readFileSync(new URL("node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8"),
  );
  for (const place of Object.keys(PLACES)) {
    console.log(`     @modelcontextprotocol/sdk ${version} ${shown.includes(place) ? "keeps" : "drops"} ${place}`);
  }
  const expected = Object.keys(PLACES).filter((place) => PLACES[place][1]);
  return show(shown) === show(expected) ? [] : [`the SDK keeps ${show(shown)}, expected ${show(expected)}`];
}

const checks = [
  ["tools/list: descriptions and error catalogs", checkTools],
  ["initialize: the idempotency capability in experimental", () => checkCapability([], ["experimental"])],
  ["initialize: no idempotency capability with --no-idempotency", () => checkCapability(["--no-idempotency"], [])],
  ["initialize: the places of a capability the SDK keeps", checkCapabilityPlaces],
];
for (const c of cases) checks.push([c.name, () => runCase(c)]);
let passed = 0;
let failed = 0;
for (const [name, check] of checks) {
  let problems;
  try {
    problems = await check();
  } catch (error) {
    problems = [`${error?.constructor?.name}: ${error}`];
  }
  if (problems.length) {
    failed += 1;
    console.log(`FAIL ${name}: ${problems.join("; ")}`);
  } else {
    passed += 1;
    console.log(`ok   ${name}`);
  }
}
console.log(`typescript e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
