/**
 * Agent options checked and resolved once, at `createAgent`, so that mistakes surface where
 * they were made (a `TypeError` naming the option), not in the middle of a run.
 */
import type { RunOptions } from "../core/context.ts";
import type { AgentOptions, PartInfo, SubagentSpec } from "./agent-types.ts";
import { summarizeOldest } from "./compaction.ts";
import type { ContextQueue } from "./context-queue.ts";
import type { LoopEnv, LoopSettings, SessionShared } from "./env.ts";
import { noUsage, type StreamPart } from "./model.ts";
import { withPermissionRequests } from "./permission.ts";
import { permissionPolicy, type PermissionPolicy } from "./permissions.ts";
import type { AgentStack } from "./stack.ts";
import { subagentTool } from "./subagent.ts";
import { estimateMessageTokens } from "./tokens.ts";
import type { AgentTool } from "./tool.ts";
import { defaultTranscriptDir, type TranscriptWriter } from "./transcript.ts";
import type { Notification } from "./types.ts";
import { holdBackProblem } from "./stream/control.ts";
import { knownOptions } from "../core/known-options.ts";

/** Resolved agent options. */
export interface AgentConfig {
  readonly name: string;
  readonly options: AgentOptions;
  readonly stack: AgentStack;
  readonly tools: readonly AgentTool[];
  readonly subagents: readonly SubagentSpec[];
  readonly settings: LoopSettings;
  /** The permission policy (`options.permissions`), whose hook `stack` holds; undefined: none. */
  readonly permissions: PermissionPolicy | undefined;
  /** Where session transcripts go, whether that is the shared default, and whether they outlive their session; undefined: none kept. */
  readonly transcript: { readonly dir: string; readonly isDefault: boolean; readonly keep: boolean } | undefined;
}

/** A delay in ms, `false` for never, or the default. */
const delayOption = (name: string, value: number | false | undefined, fallback: number): number | false => {
  if (value === undefined) return fallback;
  if (value === false) return false;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 2_147_483_647)
    throw new TypeError(`createAgent: ${name} must be a number of ms from 0 or false, got ${String(value)}`);
  return value;
};

/** The transcript option: a directory, the default one, or none. */
const transcriptOption = (value: AgentOptions["transcript"]): AgentConfig["transcript"] => {
  if (value === false) return undefined;
  if (value === undefined || value === true) return { dir: defaultTranscriptDir(), isDefault: true, keep: false };
  if (typeof value !== "object" || value === null)
    throw new TypeError(`createAgent: transcript must be true, false or { dir, keep }, got ${String(value)}`);
  if (value.keep !== undefined && typeof value.keep !== "boolean")
    throw new TypeError(`createAgent: transcript.keep must be a boolean, got ${String(value.keep)}`);
  if (value.dir === undefined) return { dir: defaultTranscriptDir(), isDefault: true, keep: value.keep ?? false };
  if (typeof value.dir !== "string" || value.dir === "")
    throw new TypeError(`createAgent: transcript.dir must be a non-empty path, got ${JSON.stringify(value.dir) ?? String(value.dir)}`);
  return { dir: value.dir, isDefault: false, keep: value.keep ?? true };
};

/** Every field of `AgentOptions`: a misspelt one is refused rather than dropped. */
const AGENT_FIELDS = {
  model: true,
  tools: true,
  stack: true,
  name: true,
  system: true,
  maxSteps: true,
  maxStopBlocks: true,
  maxRetries: true,
  contextBudget: true,
  compact: true,
  countTokens: true,
  subagents: true,
  stream: true,
  contextRole: true,
  metadata: true,
  trace: true,
  onPart: true,
  onNotification: true,
  maxOutputTokens: true,
  temperature: true,
  transcript: true,
  idleNotificationMs: true,
  permissionNotificationMs: true,
  permissions: true,
} as const satisfies { readonly [K in keyof Required<AgentOptions>]: true };

/** Every field of `SubagentSpec`. */
const SUBAGENT_FIELDS = { name: true, description: true, system: true, tools: true, model: true, maxSteps: true } as const satisfies {
  readonly [K in keyof Required<SubagentSpec>]: true;
};

const positiveInt = (name: string, value: number | undefined, fallback: number, min = 1): number => {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min)
    throw new TypeError(`createAgent: ${name} must be an integer of at least ${min}, got ${String(value)}`);
  return value;
};

/**
 * Check and resolve agent options.
 *
 * @example
 * resolveConfig({ model, stack }).settings.maxSteps // 20
 */
export const resolveConfig = (options: AgentOptions): AgentConfig => {
  knownOptions("createAgent", options, AGENT_FIELDS);
  const { model, stack } = options;
  if (typeof model?.generate !== "function" || typeof model.id !== "string")
    throw new TypeError("createAgent: model must be a LanguageModel ({ id, generate, stream? })");
  if (typeof stack?.run !== "function") throw new TypeError("createAgent: stack must be a stack over agentPoints (createAgentStack())");
  const tools = options.tools ?? [];
  const subagents = options.subagents ?? [];
  const names = new Set<string>();
  for (const t of [...tools, ...subagents] as readonly { name?: unknown }[]) {
    if (typeof t?.name !== "string" || t.name === "") throw new TypeError("createAgent: every tool and sub-agent needs a non-empty name");
    if (names.has(t.name)) throw new TypeError(`createAgent: two tools or sub-agents are named "${t.name}"`);
    names.add(t.name);
  }
  for (const t of tools) if (typeof t.execute !== "function") throw new TypeError(`createAgent: tool "${t.name}" has no execute function`);
  // A sub-agent's own settings are checked here too, not when the model first calls it.
  for (const s of subagents) {
    knownOptions(`createAgent: subagent "${s.name}"`, s, SUBAGENT_FIELDS);
    if (s.maxSteps !== undefined) positiveInt(`subagent "${s.name}": maxSteps`, s.maxSteps, 1);
    for (const t of s.tools ?? [])
      if (typeof t?.execute !== "function")
        throw new TypeError(`createAgent: tool "${String(t?.name)}" of subagent "${s.name}" has no execute function`);
    if (s.model !== undefined && (typeof s.model?.generate !== "function" || typeof s.model.id !== "string"))
      throw new TypeError(`createAgent: subagent "${s.name}": model must be a LanguageModel ({ id, generate, stream? })`);
  }
  if (options.contextBudget !== undefined) positiveInt("contextBudget", options.contextBudget, 0);
  const stream =
    options.stream === undefined || options.stream === false
      ? undefined
      : options.stream === true
        ? "none"
        : (options.stream.holdBack ?? "none");
  const holdBack = holdBackProblem(stream);
  if (holdBack !== undefined) throw new TypeError(`createAgent: stream.${holdBack}`);
  const permissions =
    options.permissions === undefined
      ? undefined
      : permissionPolicy(
          options.permissions,
          subagents.map((s) => s.name),
        );
  const settings: LoopSettings = {
    maxSteps: positiveInt("maxSteps", options.maxSteps, 20),
    maxStopBlocks: positiveInt("maxStopBlocks", options.maxStopBlocks, 8, 0),
    maxRetries: positiveInt("maxRetries", options.maxRetries, 3, 0),
    contextBudget: options.contextBudget,
    compact: options.compact ?? summarizeOldest(),
    countTokens: options.countTokens ?? estimateMessageTokens,
    stream,
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    contextRole: options.contextRole ?? "system",
    idleNotificationMs: delayOption("idleNotificationMs", options.idleNotificationMs, 60_000),
    permissionNotificationMs: delayOption("permissionNotificationMs", options.permissionNotificationMs, 6_000),
    permissions,
  };
  // The agent's own stack: the caller's is left as it was (a stack is immutable; `use` derives one).
  const own = permissions === undefined ? stack : stack.use("toolCall", permissions.hook);
  return {
    name: options.name ?? "agent",
    options,
    stack: own,
    tools,
    subagents,
    settings,
    permissions,
    transcript: transcriptOption(options.transcript),
  };
};

/**
 * Send a notification through the `notification` point to the agent's `onNotification`.
 *
 * @example
 * await notifier(config, runOptions)({ type: "warning", message: "context almost full" })
 */
export const notifier =
  (config: AgentConfig, run: RunOptions) =>
  async (notification: Notification): Promise<void> => {
    await config.stack.run("notification", notification, (n) => void config.options.onNotification?.(n as Notification), run);
  };

/**
 * The run options of an agent's runs: a tool call's hooks that ask for approval go through the
 * `permissionRequest` gate first (see permission.ts).
 *
 * @example
 * const run = agentRunOptions(config, { sessionId: "s1", runId: "s1#1", path: ["agent"] })
 */
export const agentRunOptions = (config: AgentConfig, run: RunOptions): RunOptions =>
  withPermissionRequests(
    {
      stack: config.stack,
      notify: notifier(config, run),
      notifyAfterMs: config.settings.permissionNotificationMs,
      name: config.name,
      policy: config.permissions,
    },
    run,
  );

/**
 * The environment of a root agent run.
 *
 * @example
 * const env = rootEnv(config, runOptions, pending, signal, onPart, session, transcript)
 */
export const rootEnv = (
  config: AgentConfig,
  given: RunOptions,
  pending: ContextQueue,
  signal: AbortSignal | undefined,
  onPart: ((part: StreamPart, info: PartInfo) => void) | undefined,
  session: SessionShared,
  transcript: TranscriptWriter | undefined,
): LoopEnv => {
  const run = agentRunOptions(config, given);
  const base: LoopEnv = {
    stack: config.stack,
    model: config.options.model,
    tools: config.tools,
    settings: config.settings,
    run,
    signal,
    pending,
    stopPoint: "stop",
    path: run.path ?? [config.name],
    onPart,
    notify: notifier(config, run),
    spent: { steps: 0, usage: noUsage },
    transcript,
    session,
  };
  return { ...base, tools: [...config.tools, ...config.subagents.map((s) => subagentTool(base, s))] };
};
