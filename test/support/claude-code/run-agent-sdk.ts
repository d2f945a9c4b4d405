/**
 * The real-client harness for the Claude Agent SDK: a scenario (a function that calls the SDK's
 * `query`) runs in a worker process inside a network namespace with loopback only, where the SDK
 * starts the rig's Claude Code; the mock Messages API runs in the test process, on a Unix socket the
 * namespace reaches through a forwarded loopback port, as in `runClaudeCode`. Returns what the
 * scenario returned, what the model was sent, and which commands really ran.
 *
 * Two runs can share a project and HOME (`dirs`), so a second process can resume the first one's
 * session from Claude Code's transcript on disk.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeBinary, claudeCodeProblem, unshareFlags } from "./availability.ts";
import { startMockAnthropic, type MessagesRequest, type MockTurn, type RecordedRequest } from "./mock-anthropic.ts";
import { conversationText, toolExchanges, type ToolExchange } from "./model-view.ts";
import { executedIn, makeRunDirs, runDeadlineMs, writeFiles, type FileSpec, type Forward } from "./run-claude-code.ts";

const here = dirname(fileURLToPath(import.meta.url));
const entry = join(here, "netns-entry.mjs");
const worker = join(here, "agent-sdk-worker.ts");
const tsx = fileURLToPath(import.meta.resolve("tsx"));
const apiPort = 40_001;

/** A project and HOME, made by one run and handed to the next. */
export interface RunDirs {
  readonly root: string;
  readonly project: string;
  readonly home: string;
}

export interface AgentSdkRunOptions {
  /** The module that exports the scenario (an absolute path). */
  readonly module: string;
  readonly scenario: string;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly turns: readonly MockTurn[];
  readonly whenDone?: MockTurn;
  /** Files to create in the project (relative paths) or HOME (`~/...`). */
  readonly files?: Readonly<Record<string, FileSpec>>;
  /** Run in these directories (another run's) instead of new ones. */
  readonly dirs?: RunDirs;
  readonly env?: Readonly<Record<string, string>>;
  /** More sockets the namespace should reach (a Redis server's). */
  readonly forwards?: readonly Forward[];
  /** Default `runDeadlineMs` (60 s, scaled). */
  readonly timeoutMs?: number;
}

/** What one scenario run did. */
export interface AgentSdkRun {
  readonly exitCode: number | null;
  readonly stderr: string;
  /** The scenario's return value; throws when the scenario threw (see `failure`). */
  readonly result: any;
  /** The scenario's error, when it threw: its stack text, name and `problem`. */
  readonly failure: { readonly error: string; readonly name?: string; readonly problem?: string } | undefined;
  readonly requests: readonly RecordedRequest[];
  /** The agent loop's requests (each consumed a scripted turn). */
  readonly modelCalls: readonly RecordedRequest[];
  /** Each tool call and what the model got back for it, from the last model request. */
  readonly toolResults: readonly ToolExchange[];
  /** The `ran-<id>` files of the project: the commands that really ran. */
  readonly executed: readonly string[];
  readonly dirs: RunDirs;
  readonly durationMs: number;
  /** Whether the model was ever sent `text` (outside the system prompt). */
  modelSaw(text: string): boolean;
  /** Whether a system prompt the model was sent held `text`. */
  systemSaw(text: string): boolean;
}

let runs = 0;

const systemText = (system: MessagesRequest["system"]): string =>
  typeof system === "string" ? system : (system ?? []).map((b) => b.text ?? "").join("\n");

/**
 * A Unix socket in `dir` that leads to `port` of this host's loopback: what a server outside the
 * namespace (a Redis server) needs to be forwarded into it.
 *
 * @example
 * const redis = await socketTo(server.port, dirs.root); runAgentSdk({ forwards: [{ port: 40002, socket: redis.socket }], ... })
 */
export const socketTo = async (port: number, dir: string): Promise<{ readonly socket: string; close(): Promise<void> }> => {
  const socket = join(dir, `to-${port}-${++runs}.sock`);
  const server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => resolve());
  });
  return { socket, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

/**
 * Run `scenario` of `module` once; see the module comment.
 *
 * @example
 * const run = await runAgentSdk({ module: scenarios, scenario: "guarded", turns: [bashTurn(ranCommand("1")), "Done."] })
 * run.executed // ["1"]
 */
export const runAgentSdk = async (options: AgentSdkRunOptions): Promise<AgentSdkRun> => {
  if (!claudeCodeBinary) throw new Error(`Claude Code cannot run here: ${claudeCodeProblem}`);
  const dirs = options.dirs ?? makeRunDirs();
  writeFiles(dirs.project, dirs.home, options.files);
  const n = ++runs;
  const socket = join(dirs.root, `api-${n}.sock`);
  const api = await startMockAnthropic(
    { turns: options.turns, ...(options.whenDone !== undefined ? { whenDone: options.whenDone } : {}) },
    socket,
  );
  const outFile = join(dirs.root, `sdk-out-${n}.json`);
  const workerConfig = join(dirs.root, `sdk-worker-${n}.json`);
  writeFileSync(
    workerConfig,
    JSON.stringify({
      module: options.module,
      scenario: options.scenario,
      args: options.args ?? {},
      outFile,
      claude: claudeCodeBinary,
      cwd: dirs.project,
    }),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dirs.home,
    USER: "root",
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    ANTHROPIC_API_KEY: "sk-ant-api03-offline-rig-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    AGENT_ONION_STRICT: "1",
    ...options.env,
  };
  const netns = join(dirs.root, `netns-${n}.json`);
  writeFileSync(
    netns,
    JSON.stringify({
      forwards: [{ port: apiPort, socket }, ...(options.forwards ?? [])],
      command: process.execPath,
      args: ["--import", tsx, worker, workerConfig],
      env,
      cwd: dirs.project,
      stdin: null,
      timeoutMs: options.timeoutMs ?? runDeadlineMs,
    }),
  );
  const started = Date.now();
  const child = spawn("unshare", [...unshareFlags, process.execPath, entry, netns], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const durationMs = Date.now() - started;
  await api.close();
  const out = existsSync(outFile)
    ? (JSON.parse(readFileSync(outFile, "utf8")) as { ok: boolean; result?: unknown; error?: string; name?: string; problem?: string })
    : undefined;
  const modelCalls = api.scripted();
  const last = modelCalls.at(-1)?.body;
  const texts = modelCalls.map((r) => (r.body ? conversationText(r.body) : ""));
  const failure =
    out === undefined
      ? { error: `the worker wrote no answer (exit ${exitCode}): ${stderr.slice(-2000)}` }
      : out.ok
        ? undefined
        : { error: out.error ?? "", ...(out.name ? { name: out.name } : {}), ...(out.problem ? { problem: out.problem } : {}) };
  return {
    exitCode,
    stderr,
    failure,
    durationMs,
    dirs,
    get result() {
      if (failure !== undefined) throw new Error(`the scenario failed: ${failure.error}\n--- stderr ---\n${stderr.slice(-3000)}`);
      return out?.result;
    },
    requests: api.requests,
    modelCalls,
    toolResults: last ? toolExchanges(last) : [],
    executed: executedIn(dirs.project),
    modelSaw: (text) => texts.some((t) => t.includes(text)),
    systemSaw: (text) => modelCalls.some((r) => systemText(r.body?.system).includes(text)),
  };
};

export type { FileSpec };
