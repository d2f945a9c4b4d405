/**
 * The demo beyond its `@expect` line (test/examples.test.ts checks that): it must show what the
 * built-in middleware did (redaction, retry, the token guard, the OpenTelemetry tables) and
 * write a Chrome trace that Perfetto can open, so none of it can rot unnoticed.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userEmail } from "../../examples/demo/script.ts";
import { registryToken } from "../../examples/demo/workspace.ts";
import { scaled } from "../support/scale.ts";

const demo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "examples", "demo.ts");
const dir = mkdtempSync(join(tmpdir(), "agent-onion-demo-"));
const tracePath = join(dir, "demo.trace.json");

interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  ts?: number;
  dur?: number;
  pid: number;
  tid?: number;
  args: Record<string, unknown>;
}

let stdout = "";

beforeAll(async () => {
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", demo, tracePath],
      { env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 },
      (error, out, err) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout: out, stderr: err }),
    );
  });
  expect(result.code, result.stderr).toBe(0);
  stdout = result.stdout;
}, scaled(60_000));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run demo", () => {
  it("shows redaction: the model received markers, never the token or the email", () => {
    expect(stdout).toContain("_authToken=[REDACTED:api_key]");
    expect(stdout).toContain("Mail [REDACTED:email] when it's green.");
    expect(stdout).toMatch(/✓ none of the \d+ requests contained the token or the email address/);
  });

  it("shows a model call failing once and succeeding on retry", () => {
    expect(stdout).toContain("⚠ model call failed (attempt 1 of 3): 529 overloaded_error: Overloaded");
    expect(stdout).toContain("↻ retried: the model call succeeded on attempt 2 of 3");
  });

  it("shows a guard stopping the runaway CI loop", () => {
    expect(stdout).toMatch(/⛔ run stopped by tokenBudget: Token limit reached: \d+\/2000 tokens/);
    expect(stdout).toMatch(/turn 2: completed, \d+ steps, finish reason stopped-by-guard/);
  });

  it("prints the OpenTelemetry metrics read back from the SDK, and time per hook", () => {
    for (const metric of [
      "gen_ai.client.operation.duration (s)",
      "gen_ai.client.token.usage ({token})",
      "gen_ai.execute_tool.duration (s)",
      "agent_onion.hook.rejections",
    ])
      expect(stdout).toContain(metric);
    expect(stdout).toMatch(/^ {2}toolPolicy +toolCall +before +\d+/m);
  });

  it("writes a Chrome trace that Perfetto can load, and says where", () => {
    expect(stdout).toContain(`trace events to ${tracePath}`);
    expect(stdout).toContain("open https://ui.perfetto.dev and load it");
    const text = readFileSync(tracePath, "utf8");
    const trace = JSON.parse(text) as { traceEvents: TraceEvent[]; displayTimeUnit: string };
    expect(Array.isArray(trace.traceEvents)).toBe(true);
    const complete = trace.traceEvents.filter((e) => e.ph === "X");
    expect(complete.length).toBeGreaterThan(50);
    for (const e of complete) {
      expect(typeof e.name).toBe("string");
      expect(Number.isFinite(e.ts) && Number.isFinite(e.dur) && (e.dur ?? -1) >= 0).toBe(true);
      expect(Number.isInteger(e.pid) && Number.isInteger(e.tid)).toBe(true);
    }
    expect(new Set(complete.map((e) => e.cat))).toEqual(new Set(["point", "hook"]));
    expect(complete).toContainEqual(
      expect.objectContaining({ name: "toolCall Bash", args: expect.objectContaining({ outcome: "Rejected", by: "toolPolicy" }) }),
    );
    expect(trace.traceEvents.some((e) => e.ph === "M" && e.name === "thread_name")).toBe(true);
    // The file is made to be shared: nothing sensitive in it.
    expect(text).not.toContain(registryToken);
    expect(text).not.toContain(userEmail);
  });
});
