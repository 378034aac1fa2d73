// What every JavaScript driver shares: the cases, the output record and the per-case loop.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The installed version of a package of this folder. */
export function version(pkg) {
  return JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")).version;
}

/** The demo-server arguments of a case: one `--fault F` per fault. */
export function faultArgs(c) {
  return c.faults.flatMap((f) => ["--fault", f]);
}

/** The text a model reads of a tool-result output part of the AI SDK's prompt. */
export function outputText(output) {
  if (output == null) return "";
  if (output.type === "text" || output.type === "error-text") return output.value;
  if (output.type === "content") {
    return output.value.map((p) => (p.type === "text" ? p.text : JSON.stringify(p))).join("\n");
  }
  return JSON.stringify(output.value);
}

/**
 * Runs `runCase(c)` for every case of argv[3] against the server argv[2] and writes the
 * records to argv[4]. `runCase` returns `{view, marked, raw}` or `{skipped: reason}`; a throw
 * is recorded as the crash.
 */
export async function main(framework, packages, runCase, { canSendMeta }) {
  const [server, casesPath, out] = process.argv.slice(2);
  globalThis.DEMO_SERVER = server;
  const cases = JSON.parse(readFileSync(casesPath, "utf8")).cases;
  const records = [];
  for (const c of cases) {
    if (c.meta && !canSendMeta) {
      records.push({ case: c.name, skipped: canSendMetaReason });
      continue;
    }
    try {
      records.push({ case: c.name, ...(await withTimeout(runCase(c), CASE_TIMEOUT_MS)) });
    } catch (error) {
      records.push({ case: c.name, crash: `${error?.name ?? "Error"}: ${error?.message ?? error}` });
    }
  }
  const versions = Object.fromEntries(packages.map((p) => [p, version(p)]));
  writeFileSync(out, JSON.stringify({ framework, versions, records }, null, 2));
}

const CASE_TIMEOUT_MS = 60_000;

/** `promise`, or a rejection once `ms` have passed. */
function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const canSendMetaReason = "the framework's tool call sends no request _meta";
