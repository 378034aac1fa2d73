// Vercel AI SDK: `createMCPClient` (@ai-sdk/mcp) over stdio, its tools handed to
// `generateText` with a scripted `MockLanguageModelV4` (ai/test). The first model call asks
// for the case's tool; the second records the prompt's tool message: what the model reads.
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport as StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { faultArgs, main, outputText } from "./common.mjs";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that calls `tool` with `args` once, then stops; `seen` gets the tool message. */
export function scriptedModel(tool, args, seen) {
  let turn = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      turn += 1;
      if (turn === 1) {
        return {
          content: [{ type: "tool-call", toolCallId: "call-1", toolName: tool, input: JSON.stringify(args) }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      seen.push(...prompt.filter((m) => m.role === "tool"));
      return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
}

/** The tool-result part of the tool message, as the model reads it. */
export function toolView(seen) {
  const part = seen.flatMap((m) => m.content).find((p) => p.type === "tool-result");
  if (!part) return { crash: "the model received no tool result" };
  return { view: outputText(part.output), marked: part.output.type.startsWith("error"), raw: part.output };
}

async function runCase(c) {
  const client = await createMCPClient({
    transport: new StdioMCPTransport({ command: globalThis.DEMO_SERVER, args: faultArgs(c) }),
  });
  try {
    const seen = [];
    await generateText({
      model: scriptedModel(c.tool, c.arguments, seen),
      tools: await client.tools(),
      prompt: `call ${c.tool}`,
      stopWhen: isStepCount(2),
    });
    return toolView(seen);
  } finally {
    await client.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main("Vercel AI SDK", ["ai", "@ai-sdk/mcp"], runCase, { canSendMeta: false });
}
