/**
 * Runs that make the real Claude Code fire as many hook events as a `-p` session can, with a
 * recording hook on every event, and the scrubbing that turns what was recorded into fixtures
 * (test/fixtures/claude-code/events/): temporary paths, ids and timings replaced by fixed ones.
 * scripts/claude-code/record-events.ts writes the fixtures; test/claude-code/observed/events.test.ts
 * checks that the binary still sends what they hold.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessagesRequest, MockTurn } from "./mock-anthropic.ts";
import { bashTurn, ranCommand, type ClaudeCodeRun, type ClaudeCodeRunOptions } from "./run-claude-code.ts";

/** Every event name of the hooks reference that a settings file may name. */
export const hookEvents = [
  "SessionStart",
  "Setup",
  "InstructionsLoaded",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "MessageDisplay",
  "PreToolUse",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "SubagentStart",
  "SubagentStop",
  "TaskCreated",
  "TaskCompleted",
  "Stop",
  "StopFailure",
  "TeammateIdle",
  "ConfigChange",
  "CwdChanged",
  "DirectoryAdded",
  "FileChanged",
  "WorktreeRemove",
  "PreCompact",
  "PostCompact",
  "Elicitation",
  "ElicitationResult",
  "SessionEnd",
] as const;

// WorktreeCreate is left out: a hook on it replaces git's worktree creation.
const record = 'd="$CLAUDE_PROJECT_DIR/.events"; mkdir -p "$d"; cat > "$d/$(date +%s%N)-$$.json"';
const recordAll = { hooks: Object.fromEntries(hookEvents.map((e) => [e, [{ hooks: [{ type: "command", command: record }] }]])) };

/**
 * Whether a request comes from the main loop: the Explore subagent is offered no Agent tool.
 *
 * @example
 * run.modelCalls.filter((r) => !isMainLoop(r.body)) // the subagent's requests
 */
export const isMainLoop = (body: MessagesRequest | undefined): boolean => (body?.tools ?? []).some((t) => t.name === "Agent");

/**
 * Turns for a run with a subagent (pass it as `whenDone`): the main loop starts an Explore
 * subagent, which runs `touch ran-sub` and reports; each follows its own script.
 *
 * @example
 * await runClaudeCode({ settings, turns: [], whenDone: subagentTurns() })
 */
export const subagentTurns = (): MockTurn => {
  const main: MockTurn[] = [
    {
      toolUses: [
        { name: "Agent", input: { description: "Look around", prompt: "Create the marker file, then report.", subagent_type: "Explore" } },
      ],
    },
    "Waiting for the subagent.",
  ];
  const sub: MockTurn[] = [bashTurn(ranCommand("sub")), "Subagent finished."];
  return (request) => {
    const list = isMainLoop(request.body) ? main : sub;
    return (list.shift() as string | undefined) ?? "Done.";
  };
};

/**
 * The runs, by name; fresh each call, since a subagent run's turns are used up as it goes.
 *
 * @example
 * for (const [name, options] of Object.entries(eventRuns())) await runClaudeCode(options)
 */
export const eventRuns = (): Record<string, ClaudeCodeRunOptions> => ({
  "a plain -p run with Bash calls, a cd, a failure and a Write that needs permission": {
    settings: recordAll,
    files: { "CLAUDE.md": "# Notes\nThe rig's project.\n" },
    turns: [
      bashTurn(ranCommand("1")),
      bashTurn("mkdir -p sub && cd sub && touch ../ran-cd"),
      bashTurn("echo failing; exit 3"),
      { toolUses: [{ name: "Write", input: { file_path: "notes.txt", content: "notes\n" } }] },
      "Done.",
    ],
  },
  "a run whose model starts a subagent": { settings: recordAll, turns: [], whenDone: subagentTurns() },
  "a run of a project slash command": {
    settings: recordAll,
    prompt: "/hello",
    files: { ".claude/commands/hello.md": "Say hello to the rig.\n" },
    turns: ["Hello."],
  },
  "a run with --init": { settings: recordAll, args: ["--init"], turns: ["Done."] },
  "a run of /compact": { settings: recordAll, prompt: "/compact", turns: [] },
});

/**
 * The event inputs a run's recording hooks saved, in the order they arrived.
 *
 * @example
 * recordedEvents(run).map((e) => e.hook_event_name) // ["SessionStart", "UserPromptSubmit", …]
 */
export const recordedEvents = (run: ClaudeCodeRun): Record<string, unknown>[] => {
  const dir = join(run.project, ".events");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Record<string, unknown>);
};

const uuid = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/**
 * An event input with the run's paths, ids and timings replaced by fixed ones: the project is
 * `/project`, HOME `/home/user`, UUIDs are numbered in order of appearance, subagent ids are
 * `a0000000000000000`, durations are 0.
 *
 * @example
 * scrub(event, run) // { session_id: "00000000-0000-4000-8000-000000000001", cwd: "/project", … }
 */
export const scrub = (event: Record<string, unknown>, run: Pick<ClaudeCodeRun, "project" | "home">): Record<string, unknown> => {
  const ids = new Map<string, string>();
  const mangled = run.project.replace(/[^A-Za-z0-9]/g, "-");
  let text = JSON.stringify(event)
    .split(run.project)
    .join("/project")
    .split(run.home)
    .join("/home/user")
    .split(mangled)
    .join("-project")
    .replace(/\/tmp\/claude-0\/[^"]*/g, "/tmp/claude-0/…")
    .replace(/\ba[0-9a-f]{16}\b/g, "a0000000000000000");
  text = text.replace(uuid, (id) => {
    if (!ids.has(id)) ids.set(id, `00000000-0000-4000-8000-${String(ids.size + 1).padStart(12, "0")}`);
    return ids.get(id)!;
  });
  return JSON.parse(text, (key, value: unknown) => {
    if (typeof value === "number" && /(_ms|Ms|duration)$/.test(key)) return 0;
    return value;
  }) as Record<string, unknown>;
};

/**
 * The shape of a value: objects by their keys (sorted), arrays by their first element, others by type.
 *
 * @example
 * shapeOf({ b: 1, a: [{ x: "s" }] }) // { a: [{ x: "string" }], b: "number" }
 */
export const shapeOf = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  return value === null ? "null" : typeof value;
};
