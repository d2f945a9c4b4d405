/**
 * The differential harness: one scenario (settings, files, scripted turns) run by the real Claude
 * Code and by agent-onion, each reduced to the same observation, so a test compares the two:
 * which Bash commands really ran, how many times the model was called, whether each tool result
 * was an error, from which model call on each marker text (a deny reason, a context, a secret)
 * was in what the model read, and what the probed files hold.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MockTurn } from "./mock-anthropic.ts";
import { conversationText } from "./model-view.ts";
import { requestText, runAgentOnion, type AgentOnionRun } from "./run-agent-onion.ts";
import { runClaudeCode, type ClaudeCodeRun, type FileSpec } from "./run-claude-code.ts";

/** A scenario both sides run. */
export interface Scenario {
  readonly settings: object;
  readonly files?: Readonly<Record<string, FileSpec>>;
  readonly turns: readonly MockTurn[];
  readonly whenDone?: MockTurn;
  readonly prompt?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Claude Code's `--allowedTools` and the agent's allow rules; default `["Bash"]`. */
  readonly allowedTools?: readonly string[];
  /** Texts whose arrival at the model is compared. */
  readonly markers?: readonly string[];
  /** Project files whose existence is compared. */
  readonly exists?: readonly string[];
  /** Project files whose content (or absence, as null) is compared. */
  readonly contents?: readonly string[];
}

/** What one side did, in terms both sides share. */
export interface Observation {
  /** The ids of the `ran-<id>` files: the commands that really ran. */
  readonly executed: readonly string[];
  readonly modelCalls: number;
  /** Per tool call of the conversation, in order: whether its result was an error. */
  readonly toolErrors: readonly boolean[];
  /** Per marker: the index of the first model call whose input held it, or null. */
  readonly seen: Readonly<Record<string, number | null>>;
  /** Per file of `exists`: whether it exists; per file of `contents`: its content, or null. */
  readonly files: Readonly<Record<string, boolean | string | null>>;
}

const seenIn = (texts: readonly string[], markers: readonly string[]): Record<string, number | null> =>
  Object.fromEntries(
    markers.map((m) => {
      const i = texts.findIndex((t) => t.includes(m));
      return [m, i === -1 ? null : i];
    }),
  );

const filesOf = (project: string, scenario: Scenario): Record<string, boolean | string | null> => ({
  ...Object.fromEntries((scenario.exists ?? []).map((p) => [p, existsSync(join(project, p))])),
  ...Object.fromEntries(
    (scenario.contents ?? []).map((p) => [p, existsSync(join(project, p)) ? readFileSync(join(project, p), "utf8") : null]),
  ),
});

/**
 * Claude Code's run as an observation.
 *
 * @example
 * observeClaudeCode(await runClaudeCode(scenario), scenario)
 */
export const observeClaudeCode = (run: ClaudeCodeRun, scenario: Scenario): Observation => ({
  executed: run.executed,
  modelCalls: run.modelCalls.length,
  toolErrors: run.toolResults.map((t) => t.isError),
  seen: seenIn(
    run.modelCalls.map((r) => (r.body ? conversationText(r.body) : "")),
    scenario.markers ?? [],
  ),
  files: filesOf(run.project, scenario),
});

/**
 * agent-onion's run as an observation. Settings it refused to load are an observation of their
 * own: nothing ran and the model was never called.
 *
 * @example
 * observeAgentOnion(await runAgentOnion(scenario), scenario)
 */
export const observeAgentOnion = (run: AgentOnionRun, scenario: Scenario): Observation => {
  const requests = run.model?.requests ?? [];
  const last = requests.at(-1);
  return {
    executed: run.executed,
    modelCalls: requests.length,
    toolErrors: (last?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.isError === true),
    seen: seenIn(
      requests.map((r) => requestText(r.messages)),
      scenario.markers ?? [],
    ),
    files: filesOf(run.project, scenario),
  };
};

/**
 * Run a scenario on both sides.
 *
 * @example
 * const { claude, onion } = await runBoth(scenario)
 * expect(onion).toEqual(claude)
 */
export const runBoth = async (
  scenario: Scenario,
): Promise<{ claude: Observation; onion: Observation; claudeRun: ClaudeCodeRun; onionRun: AgentOnionRun }> => {
  const common = {
    settings: scenario.settings,
    turns: scenario.turns,
    ...(scenario.files ? { files: scenario.files } : {}),
    ...(scenario.whenDone !== undefined ? { whenDone: scenario.whenDone } : {}),
    ...(scenario.prompt !== undefined ? { prompt: scenario.prompt } : {}),
    ...(scenario.env ? { env: scenario.env } : {}),
    ...(scenario.allowedTools ? { allowedTools: scenario.allowedTools } : {}),
  };
  const claudeRun = await runClaudeCode(common);
  const onionRun = await runAgentOnion(common);
  return { claude: observeClaudeCode(claudeRun, scenario), onion: observeAgentOnion(onionRun, scenario), claudeRun, onionRun };
};
