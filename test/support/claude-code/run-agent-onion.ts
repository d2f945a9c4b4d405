/**
 * The agent-onion side of the differential harness: the same settings, files and scripted turns
 * that `runClaudeCode` gives the real binary, loaded with `fromClaudeSettings` as a new user would
 * (the project's settings files, trusted, defaults otherwise) and run by the reference agent
 * (`createAgent`) with a scripted model and real Bash and Write tools in a temporary project.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { TurnResult } from "../../../src/agent/agent-types.ts";
import { createAgent } from "../../../src/agent/agent.ts";
import { commandEnv } from "../../../src/agent/command-env.ts";
import { SessionRejectedError } from "../../../src/agent/session.ts";
import { createScriptedModel, type ScriptedAnswer, type ScriptedModel, type ScriptedTurn } from "../../../src/agent/scripted-model.ts";
import { defineTool } from "../../../src/agent/tool.ts";
import type { Message } from "../../../src/agent/types.ts";
import { claudeSettingsFiles } from "../../../src/executors/settings-load.ts";
import { fromClaudeSettings, type ClaudeSettingsOptions } from "../../../src/executors/settings.ts";
import type { MockAnswer, MockTurn } from "./mock-anthropic.ts";
import { executedIn, makeRunDirs, writeFiles, type FileSpec } from "./run-claude-code.ts";

export interface AgentOnionRunOptions {
  readonly settings?: object;
  readonly files?: Readonly<Record<string, FileSpec>>;
  readonly turns: readonly MockTurn[];
  readonly whenDone?: MockTurn;
  readonly prompt?: string;
  /** Set in this process's environment for the run (what the user's shell would hold), and for the tools. */
  readonly env?: Readonly<Record<string, string>>;
  /** More `fromClaudeSettings` options; default none beyond the project. */
  readonly settingsOptions?: ClaudeSettingsOptions;
  /** The agent's allow rules, as Claude Code's `--allowedTools`; default `["Bash"]`. Other calls need permission. */
  readonly allowedTools?: readonly string[];
}

/** What one agent-onion run did. */
export interface AgentOnionRun {
  /** The turn, or undefined when the settings did not load. */
  readonly turn: TurnResult | undefined;
  /** Why `fromClaudeSettings` refused the settings. */
  readonly loadError: Error | undefined;
  /** Why the session could not open (a `sessionStart` hook refused it). */
  readonly sessionError: Error | undefined;
  readonly model: ScriptedModel | undefined;
  readonly executed: readonly string[];
  readonly project: string;
  readonly home: string;
  /** The session transcript's lines (the reference agent's JSONL file, kept in the run's directory). */
  transcript(): Record<string, unknown>[];
}

/** The lines of the one session transcript in `dir`. */
const transcriptIn = (dir: string): Record<string, unknown>[] => {
  if (!existsSync(dir)) return [];
  const file = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
  if (file === undefined) return [];
  return readFileSync(join(dir, file), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

/** A mock turn as a scripted-model turn (functions of the request are Claude Code only). */
const scripted = (turn: MockTurn): ScriptedTurn => {
  if (typeof turn === "function")
    throw new TypeError("runAgentOnion: turns that are functions of a Messages API request cannot be replayed");
  if (typeof turn === "string") return turn;
  const answer: MockAnswer = turn;
  if (answer.error) return { error: Object.assign(new Error(answer.error.message), { status: answer.error.status }) };
  const out: ScriptedAnswer = {
    ...(answer.text !== undefined ? { text: answer.text } : {}),
    ...(answer.toolUses
      ? { toolCalls: answer.toolUses.map((u, i) => ({ name: u.name, input: { ...u.input }, id: u.id ?? `toolu_onion_${i + 1}` })) }
      : {}),
  };
  return out;
};

/** Run `bash -c` in `cwd` with `env`; output as Claude Code's Bash tool reports it. */
const bash = (command: string, cwd: string, env: Record<string, string>) =>
  new Promise<{ stdout: string; stderr: string; code: number }>((resolve, reject) => {
    const child = spawn("bash", ["-c", command], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ stdout: stdout.trimEnd(), stderr: stderr.trimEnd(), code: code ?? 1 }));
  });

/**
 * The tools Claude Code's scenarios use, with Claude Code's output shapes: Bash answers
 * `{ stdout, stderr, interrupted, isImage }` (what its PostToolUse hooks read as `tool_response`)
 * and fails with "Exit code N" and the output, and runs with the session's exported variables;
 * Write writes the file.
 */
const tools = (cwd: string, env: Record<string, string>) => [
  defineTool<{ command?: unknown }>({
    name: "Bash",
    description: "Run a shell command",
    inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    // What the session's SessionStart hooks exported through CLAUDE_ENV_FILE reaches the command, as in Claude Code's Bash tool.
    execute: async ({ command }, options) => {
      const r = await bash(String(command), cwd, commandEnv(options, env));
      if (r.code !== 0) throw new Error(`Exit code ${r.code}\n${[r.stdout, r.stderr].filter(Boolean).join("\n")}`);
      return { stdout: r.stdout, stderr: r.stderr, interrupted: false, isImage: false };
    },
  }),
  defineTool<{ file_path?: unknown; content?: unknown }>({
    name: "Write",
    description: "Write a file",
    inputSchema: { type: "object", properties: { file_path: { type: "string" }, content: { type: "string" } } },
    execute: ({ file_path, content }) => {
      const path = isAbsolute(String(file_path)) ? String(file_path) : join(cwd, String(file_path));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, String(content));
      return { type: "create", filePath: path, content: String(content) };
    },
  }),
];

/**
 * Run the scenario through `fromClaudeSettings` and the reference agent.
 *
 * @example
 * const run = await runAgentOnion({ settings, turns: [bashTurn(ranCommand("1")), "Done."] })
 * run.executed // ["1"]
 */
export const runAgentOnion = async (options: AgentOnionRunOptions): Promise<AgentOnionRun> => {
  const { root, project, home } = makeRunDirs();
  const transcripts = join(root, "transcripts");
  const transcript = () => transcriptIn(transcripts);
  writeFiles(project, home, options.files, options.settings);
  const saved = new Map<string, string | undefined>();
  const env: Record<string, string> = { HOME: home, ...options.env };
  for (const [name, value] of Object.entries(env)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  try {
    const toolEnv: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", ...env };
    let stack;
    try {
      ({ stack } = fromClaudeSettings(claudeSettingsFiles(project, home), {
        trustProjectSettings: true,
        home,
        cwd: project,
        projectDir: project,
        ...options.settingsOptions,
      }));
    } catch (error) {
      return {
        turn: undefined,
        loadError: error as Error,
        sessionError: undefined,
        model: undefined,
        executed: executedIn(project),
        project,
        home,
        transcript,
      };
    }
    const model = createScriptedModel({ turns: options.turns.map(scripted), whenDone: scripted(options.whenDone ?? "Done.") });
    const agent = createAgent({
      model,
      tools: tools(project, toolEnv),
      stack,
      transcript: { dir: transcripts },
      permissions: { allow: options.allowedTools ?? ["Bash"] },
    });
    let turn: TurnResult | undefined;
    let sessionError: Error | undefined;
    try {
      turn = await agent.run(options.prompt ?? "Run the task.");
    } catch (error) {
      if (!(error instanceof SessionRejectedError)) throw error;
      sessionError = error;
    }
    return { turn, loadError: undefined, sessionError, model, executed: executedIn(project), project, home, transcript };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
};

/**
 * Every text of a request the model could read: all but the assistant's own messages.
 *
 * @example
 * requestText([{ role: "user", content: "go" }, { role: "tool", content: "ran" }]) // "go\nran"
 */
export const requestText = (messages: readonly Message[]): string =>
  messages
    .filter((m) => m.role !== "assistant")
    .map((m) => m.content)
    .join("\n");
