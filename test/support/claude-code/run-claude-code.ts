/**
 * The real-client harness: run the real Claude Code binary once, offline, in `-p` mode, against
 * the mock Messages API, in a network namespace that has only loopback, with a temporary HOME
 * and a temporary project whose `.claude/settings.json` holds the hooks under test. What it
 * returns is read from real effects: the requests the mock received (what the model was sent),
 * the files the Bash tool created (what ran), Claude Code's stream-json output, its debug log
 * and the session transcript.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scaled } from "../scale.ts";
import { claudeCodeBinary, claudeCodeProblem, unshareFlags } from "./availability.ts";
import { hookRuns, type HookRun } from "./debug-log.ts";
import { startMockAnthropic, type MockTurn, type RecordedRequest } from "./mock-anthropic.ts";
import { conversationText, toolExchanges, type ToolExchange } from "./model-view.ts";

/** How long one run of the binary may take before the rig kills it (scaled: a busy machine starts it slowly). */
export const runDeadlineMs: number = scaled(60_000);

const entry = join(dirname(fileURLToPath(import.meta.url)), "netns-entry.mjs");
/** The loopback port of the mock API inside the namespace (each run has a namespace of its own). */
const apiPort = 40_001;

/** A file to create: its text, or its text and mode. A text starting with `#!` is made executable. */
export type FileSpec = string | { readonly content: string; readonly mode?: number };

/** Another server the namespace should reach: a loopback port forwarded to a Unix socket of this process. */
export interface Forward {
  readonly port: number;
  readonly socket: string;
}

export interface ClaudeCodeRunOptions {
  /** The project's `.claude/settings.json`. */
  readonly settings?: object;
  /** Files to create: relative paths in the project, `~/...` in HOME, or absolute paths. */
  readonly files?: Readonly<Record<string, FileSpec>>;
  /** The model's scripted answers to the agent loop's requests. */
  readonly turns: readonly MockTurn[];
  /** The answer once the turns are used up; default the text "Done." */
  readonly whenDone?: MockTurn;
  /** Default "Run the task." */
  readonly prompt?: string;
  /** Added to Claude Code's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Tools allowed without asking; default `["Bash"]`. */
  readonly allowedTools?: readonly string[];
  /** More command-line arguments. */
  readonly args?: readonly string[];
  readonly forwards?: readonly Forward[];
  /** Default `runDeadlineMs` (60 s, scaled). */
  readonly timeoutMs?: number;
  /** Called with the project and HOME once the files are written, before Claude Code starts. */
  readonly prepare?: (dirs: { readonly project: string; readonly home: string }) => void;
}

/** What one run of Claude Code did. */
export interface ClaudeCodeRun {
  readonly exitCode: number | null;
  readonly stderr: string;
  /** Claude Code's stream-json lines. */
  readonly stream: readonly Record<string, unknown>[];
  /** The final `result` line of the stream (subtype, num_turns, is_error...). */
  readonly result: Record<string, unknown> | undefined;
  /** The final `result` line's text. */
  readonly finalText: string | undefined;
  /** Every request the mock received. */
  readonly requests: readonly RecordedRequest[];
  /** The agent loop's requests (each consumed a scripted turn). */
  readonly modelCalls: readonly RecordedRequest[];
  /** Each tool call and what the model got back for it, from the last model request. */
  readonly toolResults: readonly ToolExchange[];
  /** The ids of `ran-<id>` files in the project: the Bash commands that really ran (see `ranCommand`). */
  readonly executed: readonly string[];
  readonly debugLog: string;
  /** The command hooks that ran, from the debug log. */
  readonly hookRuns: readonly HookRun[];
  /** Hook responses from the stream (`--include-hook-events`). */
  readonly hookResponses: readonly HookResponse[];
  readonly project: string;
  readonly home: string;
  readonly durationMs: number;
  /** Whether the model was ever sent `text` (outside the system prompt). */
  modelSaw(text: string): boolean;
  /** The session transcript's lines (the JSONL file `transcript_path` names). */
  transcript(): Record<string, unknown>[];
}

/** A `hook_response` line of the stream. */
export interface HookResponse {
  readonly hook_name: string;
  readonly hook_event: string;
  readonly exit_code?: number;
  readonly outcome?: string;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly output?: string;
}

/**
 * The Bash command the rig uses to show a tool call ran: it creates `ran-<id>` in the project.
 *
 * @example
 * ranCommand("a") // "touch ran-a"
 */
export const ranCommand = (id: string): string => `touch ran-${id}`;

/**
 * A scripted turn asking for one Bash call.
 *
 * @example
 * bashTurn("ls") // { toolUses: [{ name: "Bash", input: { command: "ls", description: "rig command" } }] }
 */
export const bashTurn = (command: string, id?: string): MockTurn => ({
  toolUses: [{ name: "Bash", input: { command, description: "rig command" }, ...(id ? { id } : {}) }],
});

const made: string[] = [];

/**
 * Remove the run directories made so far, unless `AGENT_ONION_KEEP_CLAUDE_CODE_RUNS=1` asks to keep
 * them for a look (suite.ts calls it after each test file).
 *
 * @example
 * afterAll(removeRunDirs)
 */
export const removeRunDirs = (): void => {
  if (process.env.AGENT_ONION_KEEP_CLAUDE_CODE_RUNS === "1") return;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
};

const write = (path: string, spec: FileSpec): void => {
  mkdirSync(dirname(path), { recursive: true });
  const content = typeof spec === "string" ? spec : spec.content;
  writeFileSync(path, content);
  const mode = typeof spec === "string" ? undefined : spec.mode;
  if (mode !== undefined) chmodSync(path, mode);
  else if (content.startsWith("#!")) chmodSync(path, 0o755);
};

/**
 * A temporary run directory with `home/` and `project/` (and `.claude/` in each).
 *
 * @example
 * const { project, home } = makeRunDirs()
 */
export const makeRunDirs = (): { root: string; project: string; home: string } => {
  const root = mkdtempSync(join(tmpdir(), "agent-onion-cc-"));
  made.push(root);
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".claude"), { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  return { root, project, home };
};

/**
 * Write `files` (and the settings) into a project and HOME.
 *
 * @example
 * writeFiles(project, home, { "hooks/guard.sh": "#!/bin/sh\nexit 0\n" }, { hooks: {} })
 */
export const writeFiles = (project: string, home: string, files: Readonly<Record<string, FileSpec>> = {}, settings?: object): void => {
  if (settings !== undefined) write(join(project, ".claude", "settings.json"), JSON.stringify(settings, null, 2));
  for (const [name, spec] of Object.entries(files)) {
    const path = name.startsWith("~/") ? join(home, name.slice(2)) : isAbsolute(name) ? name : join(project, name);
    write(path, spec);
  }
};

/**
 * The ids of the `ran-<id>` files in `dir`, sorted.
 *
 * @example
 * executedIn(project) // ["1", "rewritten"]
 */
export const executedIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.startsWith("ran-"))
    .map((f) => f.slice(4))
    .sort();

/**
 * Run Claude Code once with `options`; see the module comment.
 *
 * @example
 * const run = await runClaudeCode({ settings, turns: [bashTurn(ranCommand("1")), "Done."] })
 * run.executed // ["1"]
 */
export const runClaudeCode = async (options: ClaudeCodeRunOptions): Promise<ClaudeCodeRun> => {
  if (!claudeCodeBinary) throw new Error(`Claude Code cannot run here: ${claudeCodeProblem}`);
  const { root, project, home } = makeRunDirs();
  writeFiles(project, home, options.files, options.settings);
  options.prepare?.({ project, home });
  const socket = join(root, "api.sock");
  const api = await startMockAnthropic(
    { turns: options.turns, ...(options.whenDone !== undefined ? { whenDone: options.whenDone } : {}) },
    socket,
  );
  const debugFile = join(root, "debug", "claude.log");
  mkdirSync(dirname(debugFile));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    USER: "root",
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    ANTHROPIC_API_KEY: "sk-ant-api03-offline-rig-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...options.env,
  };
  const args = [
    "-p",
    options.prompt ?? "Run the task.",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-hook-events",
    "--debug-file",
    debugFile,
    ...((options.allowedTools ?? ["Bash"]).length > 0 ? ["--allowedTools", ...(options.allowedTools ?? ["Bash"])] : []),
    ...(options.args ?? []),
  ];
  const config = join(root, "netns.json");
  writeFileSync(
    config,
    JSON.stringify({
      forwards: [{ port: apiPort, socket }, ...(options.forwards ?? [])],
      command: claudeCodeBinary,
      args,
      env,
      cwd: project,
      stdin: null,
      timeoutMs: options.timeoutMs ?? runDeadlineMs,
    }),
  );
  const started = Date.now();
  const child = spawn("unshare", [...unshareFlags, process.execPath, entry, config], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const durationMs = Date.now() - started;
  await api.close();

  const stream: Record<string, unknown>[] = [];
  for (const text of stdout.split("\n")) {
    if (!text.trim()) continue;
    try {
      stream.push(JSON.parse(text) as Record<string, unknown>);
    } catch {
      stream.push({ type: "unparsed", text });
    }
  }
  const result = [...stream].reverse().find((l) => l.type === "result");
  const debugLog = existsSync(debugFile) ? readFileSync(debugFile, "utf8") : "";
  const modelCalls = api.scripted();
  const last = modelCalls.at(-1)?.body;
  const texts = modelCalls.map((r) => (r.body ? conversationText(r.body) : ""));
  const sessionId = typeof result?.session_id === "string" ? result.session_id : undefined;
  return {
    exitCode,
    stderr,
    stream,
    durationMs,
    project,
    home,
    debugLog,
    result,
    finalText: typeof result?.result === "string" ? result.result : undefined,
    requests: api.requests,
    modelCalls,
    toolResults: last ? toolExchanges(last) : [],
    executed: executedIn(project),
    hookRuns: hookRuns(debugLog),
    hookResponses: stream.filter((l) => l.type === "system" && l.subtype === "hook_response") as unknown as HookResponse[],
    modelSaw: (text) => texts.some((t) => t.includes(text)),
    transcript: () => {
      const projects = join(home, ".claude", "projects");
      if (!existsSync(projects) || !sessionId) return [];
      for (const dir of readdirSync(projects)) {
        const file = join(projects, dir, `${sessionId}.jsonl`);
        if (existsSync(file))
          return readFileSync(file, "utf8")
            .split("\n")
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as Record<string, unknown>);
      }
      return [];
    },
  };
};
