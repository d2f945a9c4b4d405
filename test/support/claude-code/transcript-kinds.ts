/**
 * The transcript lines the reference agent imitates, told apart by kind, and the scenario both
 * Claude Code and agent-onion run to compare them: a prompt, an answer with text and two Bash
 * calls (one failing), a PostToolBatch hook's context, a Stop hook that blocks once (its feedback),
 * and two closing answers. scripts/claude-code/record-transcript.ts writes what Claude Code wrote
 * (test/fixtures/claude-code/transcript-sample.json); the tests hold agent-onion's lines to it.
 */
import { answer, on, settings, specific } from "./hooks.ts";
import type { MockTurn } from "./mock-anthropic.ts";

/** The kinds of line both write, in Claude Code's shapes. */
export type LineKind = "prompt" | "meta" | "tool-result" | "tool-error" | "assistant-text" | "assistant-tool-use" | "hook-context";

/**
 * The kind of a transcript line, or undefined for one agent-onion does not write (Claude Code's
 * attachments, API records, summaries).
 *
 * @example
 * lineKind({ type: "user", message: { role: "user", content: "Run the task." } }) // "prompt"
 */
export const lineKind = (line: Record<string, unknown>): LineKind | undefined => {
  const message = line.message as { content?: unknown } | undefined;
  if (line.type === "user" && typeof message?.content === "string")
    return line.isMeta === true ? "meta" : line.isCompactSummary === true ? undefined : "prompt";
  if (line.type === "user" && Array.isArray(message?.content)) {
    const block = message.content[0] as { type?: string; is_error?: boolean } | undefined;
    return block?.type === "tool_result" ? (block.is_error === true ? "tool-error" : "tool-result") : undefined;
  }
  if (line.type === "assistant" && Array.isArray(message?.content)) {
    const block = message.content[0] as { type?: string } | undefined;
    return block?.type === "text" ? "assistant-text" : block?.type === "tool_use" ? "assistant-tool-use" : undefined;
  }
  if (line.type === "attachment" && (line.attachment as { type?: string } | undefined)?.type === "hook_additional_context")
    return "hook-context";
  return undefined;
};

/**
 * The kinds of a transcript's lines, in order, leaving out the lines of other kinds.
 *
 * @example
 * kindsOf(run.transcript()) // ["prompt", "assistant-text", "assistant-tool-use", …]
 */
export const kindsOf = (lines: readonly Record<string, unknown>[]): LineKind[] =>
  lines.map(lineKind).filter((k): k is LineKind => k !== undefined);

/**
 * Where `ours` has a field `theirs` has not, or one of another JSON type, as paths (`message.usage.x`);
 * empty when every field of ours is one of theirs. Arrays compare their first elements.
 *
 * @example
 * fieldsNotIn({ a: 1, b: "x" }, { a: 2 }) // ["b"]
 */
export const fieldsNotIn = (ours: unknown, theirs: unknown, path = ""): string[] => {
  const type = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (type(ours) !== type(theirs)) return [`${path || "(root)"}: ${type(ours)}, not ${type(theirs)}`];
  if (Array.isArray(ours))
    return ours.length === 0 || (theirs as unknown[]).length === 0 ? [] : fieldsNotIn(ours[0], (theirs as unknown[])[0], `${path}[0]`);
  if (ours === null || typeof ours !== "object") return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(ours)) {
    const at = path ? `${path}.${key}` : key;
    if (!Object.hasOwn(theirs as object, key)) out.push(at);
    else out.push(...fieldsNotIn(value, (theirs as Record<string, unknown>)[key], at));
  }
  return out;
};

/** The settings of the scenario: PostToolBatch context, and a Stop hook that blocks the first stop only. */
export const transcriptSettings = settings(
  on("PostToolBatch", undefined, answer({ out: specific("PostToolBatch", { additionalContext: "BATCH-CONTEXT" }) })),
  on("Stop", undefined, answer({ once: "$CLAUDE_PROJECT_DIR/.stop-once", out: { decision: "block", reason: "STOP-FEEDBACK" } })),
);

/** The model's answers of the scenario. */
export const transcriptTurns = (): MockTurn[] => [
  {
    text: "Let me look.",
    toolUses: [
      { name: "Bash", input: { command: "echo hello", description: "say hello" } },
      { name: "Bash", input: { command: "echo bad; exit 3", description: "fail" } },
    ],
  },
  "First.",
  "Second.",
];
