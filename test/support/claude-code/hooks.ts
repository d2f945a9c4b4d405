/**
 * Building hook settings for the rig's scenarios: the fixture scripts by name, and `answer`, a
 * configurable hook whose texts travel base64-encoded, so nothing it answers appears in the command
 * line Claude Code quotes in its own messages to the model.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** test/fixtures/claude-code. */
export const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "claude-code");
/** Where the stand-in `rtk` binary lives; put it first on PATH for scenarios with the rtk hook. */
export const fixtureBin = join(fixtures, "bin");

/** A handler of Claude Code settings. */
export type Handler = Record<string, unknown> & { readonly type: string };

const b64 = (text: string): string => Buffer.from(text).toString("base64");

/** What `answer` does. */
export interface AnswerSpec {
  /** Printed on stdout: an object as JSON, a string as it is. */
  readonly out?: object | string;
  readonly err?: string;
  readonly exit?: number;
  /** Wait until this file exists (shell syntax allowed) before sleeping and answering. */
  readonly waitFor?: string;
  /** Seconds to wait before answering. */
  readonly sleep?: number;
  /** Answer only the first time: this file marks that it did (shell syntax allowed). */
  readonly once?: string;
  /** Save the event JSON here (shell syntax allowed, e.g. `$CLAUDE_PROJECT_DIR/seen-a.json`). */
  readonly save?: string;
}

/**
 * A command hook that answers as told.
 *
 * @example
 * answer({ out: { decision: "block", reason: "no" } }) // { type: "command", command: "bash …/answer.sh --out eyJ…" }
 */
export const answer = (spec: AnswerSpec, extra: Record<string, unknown> = {}): Handler => {
  const args: string[] = [];
  if (spec.once !== undefined) args.push("--once", `"${spec.once}"`);
  if (spec.save !== undefined) args.push("--save", `"${spec.save}"`);
  if (spec.waitFor !== undefined) args.push("--wait-for", `"${spec.waitFor}"`);
  if (spec.sleep !== undefined) args.push("--sleep", String(spec.sleep));
  if (spec.out !== undefined) args.push("--out", b64(typeof spec.out === "string" ? spec.out : JSON.stringify(spec.out)));
  if (spec.err !== undefined) args.push("--err", b64(spec.err));
  if (spec.exit !== undefined) args.push("--exit", String(spec.exit));
  return { type: "command", command: `bash ${join(fixtures, "answer.sh")} ${args.join(" ")}`.trim(), ...extra };
};

/**
 * A command hook running a fixture script of test/fixtures/claude-code/scripts.
 *
 * @example
 * script("block_rm.sh") // { type: "command", command: "…/scripts/block_rm.sh" }
 */
export const script = (name: string, args: readonly string[] = [], extra: Record<string, unknown> = {}): Handler => ({
  type: "command",
  command: [join(fixtures, "scripts", name), ...args].join(" "),
  ...extra,
});

/**
 * A command hook running a shell command line as it is.
 *
 * @example
 * shell("npx agent-onion claude-hook .claude/hooks/guard.js")
 */
export const shell = (command: string, extra: Record<string, unknown> = {}): Handler => ({ type: "command", command, ...extra });

/**
 * `hookSpecificOutput` for `event`.
 *
 * @example
 * specific("PostToolUse", { additionalContext: "note" }) // { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "note" } }
 */
export const specific = (event: string, fields: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: event, ...fields } });

/**
 * A PreToolUse permission decision, with a reason and other fields.
 *
 * @example
 * decision("deny", "no rm") // { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm" } }
 */
export const decision = (permissionDecision: string, permissionDecisionReason?: string, fields: Record<string, unknown> = {}) =>
  specific("PreToolUse", {
    permissionDecision,
    ...(permissionDecisionReason !== undefined ? { permissionDecisionReason } : {}),
    ...fields,
  });

/** One matcher group per call; groups of the same event are kept in order. */
export interface Group {
  readonly event: string;
  readonly matcher?: string;
  readonly hooks: readonly Handler[];
}

/**
 * A matcher group of `event`.
 *
 * @example
 * settings(on("PreToolUse", "Bash", script("block_rm.sh")), on("Stop", undefined, script("require_tests_stop.sh")))
 */
export const on = (event: string, matcher: string | undefined, ...hooks: Handler[]): Group => ({
  event,
  ...(matcher !== undefined ? { matcher } : {}),
  hooks,
});

/**
 * Settings holding these groups.
 *
 * @example
 * settings(on("Stop", undefined, script("require_tests_stop.sh"))) // { hooks: { Stop: [{ hooks: [...] }] } }
 */
export const settings = (...groups: Group[]): { hooks: Record<string, object[]> } => {
  const hooks: Record<string, object[]> = {};
  for (const g of groups) (hooks[g.event] ??= []).push({ ...(g.matcher !== undefined ? { matcher: g.matcher } : {}), hooks: g.hooks });
  return { hooks };
};
