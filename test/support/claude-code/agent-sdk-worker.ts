/**
 * Runs one Claude Agent SDK scenario inside the rig's network namespace (started by
 * `runAgentSdk`): imports the scenario module, calls the named scenario with the SDK's `query` and
 * base options that point the SDK at the rig's Claude Code and the mock API, and writes what the
 * scenario returns (JSON) to the file the harness reads.
 *
 * Usage: node --import <tsx> agent-sdk-worker.ts <config.json>
 *   { "module": "/abs/scenarios.ts", "scenario": "name", "args": {...}, "outFile": "/abs/out.json",
 *     "claude": "/abs/claude.exe", "cwd": "/abs/project" }
 */
import { readFileSync, writeFileSync } from "node:fs";
import * as sdk from "@anthropic-ai/claude-agent-sdk";
import { query, type Options } from "@anthropic-ai/claude-agent-sdk";

/** What a scenario gets. */
export interface ScenarioContext {
  readonly query: typeof query;
  /** The SDK module (what `guard.resume` takes). */
  readonly sdk: typeof sdk;
  /** The SDK options every scenario starts from: the rig's binary, the project, no settings files, permission prompts on. */
  readonly options: Options;
  readonly args: Readonly<Record<string, unknown>>;
  readonly cwd: string;
}

/** A scenario: runs the SDK and returns what the test checks (JSON). */
export type Scenario = (ctx: ScenarioContext) => Promise<unknown>;

const config = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as {
  module: string;
  scenario: string;
  args?: Record<string, unknown>;
  outFile: string;
  claude: string;
  cwd: string;
};
const scenarios = (await import(config.module)) as Record<string, Scenario>;
const scenario = scenarios[config.scenario];
if (typeof scenario !== "function") throw new Error(`no scenario ${config.scenario} in ${config.module}`);
const options: Options = {
  pathToClaudeCodeExecutable: config.claude,
  cwd: config.cwd,
  env: { ...process.env },
  // The project's and the user's settings would add hooks and permissions of their own.
  settingSources: [],
  permissionMode: "default",
  mcpServersDelivery: "initialize",
  stderr: (text) => process.stderr.write(text),
};
try {
  const result = await scenario({ query, sdk, options, args: config.args ?? {}, cwd: config.cwd });
  writeFileSync(config.outFile, JSON.stringify({ ok: true, result }));
} catch (error) {
  writeFileSync(
    config.outFile,
    JSON.stringify({
      ok: false,
      error: String((error as Error)?.stack ?? error),
      name: (error as Error)?.name,
      problem: (error as { problem?: unknown; kind?: unknown })?.problem ?? (error as { kind?: unknown })?.kind,
    }),
  );
}
// The SDK may keep handles (its child's pipes) open for a moment; the answer is written.
process.exit(0);
