/**
 * What the bridge may send Claude Code as PostToolUse's `updatedToolOutput`. Claude Code checks
 * the replacement of a built-in tool's output against that tool's output schema and, when it does
 * not fit, ignores it and gives the model the original output (for a redaction: the secret). So
 * the bridge never sends a value it has no reason to believe fits:
 *
 * - a rewrite with the same shape as the `tool_response` Claude Code sent (same JSON types, and
 *   for objects the same keys, all the way down) is sent as it is: it is the shape Claude Code
 *   itself produced for that tool;
 * - the output of an MCP tool (`mcp__server__tool`) is sent as it is: Claude Code passes it
 *   through without a schema;
 * - a string for a shell tool's output (an object with string `stdout` and `stderr`, such as
 *   Bash's `{ stdout, stderr, interrupted, isImage }`) becomes that object with `stdout` set to
 *   the string and `stderr` emptied, the other fields kept;
 * - anything else for an output that was a string becomes its JSON text;
 * - anything else cannot be expressed, and the bridge says so rather than letting the original
 *   through silently.
 */

/** How the bridge can answer Claude Code with a hook's rewrite of a tool's output. */
export type ToolOutputReplacement =
  | { readonly kind: "unchanged" }
  | { readonly kind: "replace"; readonly value: unknown }
  | { readonly kind: "unexpressible"; readonly why: string };

const kindOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/**
 * True when `b` has the shape of `a`: same JSON types, objects with the same keys whose values
 * have the same shapes, arrays whose elements each have the shape of one of `a`'s (any elements
 * when `a` is empty).
 *
 * @example
 * sameShape({ stdout: "x", isImage: false }, { stdout: "[redacted]", isImage: false }) // true
 */
export const sameShape = (a: unknown, b: unknown): boolean => {
  const kind = kindOf(a);
  if (kind !== kindOf(b)) return false;
  if (kind === "array") {
    const items = a as unknown[];
    return items.length === 0 || (b as unknown[]).every((x) => items.some((y) => sameShape(y, x)));
  }
  if (kind === "object") {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = Object.keys(ao);
    return keys.length === Object.keys(bo).length && keys.every((k) => Object.hasOwn(bo, k) && sameShape(ao[k], bo[k]));
  }
  return true;
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A shell tool's output: string `stdout` and `stderr` (Bash, PowerShell). */
const isShellOutput = (v: unknown): v is Record<string, unknown> & { stdout: string; stderr: string } =>
  kindOf(v) === "object" &&
  typeof (v as { stdout?: unknown }).stdout === "string" &&
  typeof (v as { stderr?: unknown }).stderr === "string";

/** A short description of a value's shape for messages: `a string`, `an object with stdout, stderr`. */
const shapeText = (v: unknown): string => {
  const kind = kindOf(v);
  if (kind === "object") {
    const keys = Object.keys(v as object);
    return keys.length === 0 ? "an empty object" : `an object with ${keys.slice(0, 6).join(", ")}${keys.length > 6 ? ", ..." : ""}`;
  }
  return kind === "array" ? "an array" : kind === "null" ? "null" : `a ${kind}`;
};

/**
 * The `updatedToolOutput` to send for `tool` when hooks turned `original` (Claude Code's
 * `tool_response`) into `rewritten`.
 *
 * @example
 * claudeToolOutput("Bash", { stdout: "KEY=s3cret", stderr: "", interrupted: false, isImage: false }, "KEY=[redacted]")
 * // { kind: "replace", value: { stdout: "KEY=[redacted]", stderr: "", interrupted: false, isImage: false } }
 */
export const claudeToolOutput = (tool: string, original: unknown, rewritten: unknown): ToolOutputReplacement => {
  if (same(original, rewritten)) return { kind: "unchanged" };
  if (tool.startsWith("mcp__") || sameShape(original, rewritten)) return { kind: "replace", value: rewritten };
  if (isShellOutput(original) && typeof rewritten === "string")
    return { kind: "replace", value: { ...original, stdout: rewritten, stderr: "" } };
  if (typeof original === "string")
    return { kind: "replace", value: typeof rewritten === "string" ? rewritten : (JSON.stringify(rewritten) ?? "") };
  return {
    kind: "unexpressible",
    why: `${tool}'s output is ${shapeText(original)}, and the hooks made it ${shapeText(rewritten)}: Claude Code ignores a replacement that does not have the tool's output shape and shows the original. Return the output with the same fields${isShellOutput(original) ? " (or a string, which becomes stdout)" : ""}.`,
  };
};

/**
 * What to send in place of a tool's output that a hook refused (a PostToolUse `Reject`), when
 * Claude Code can take one: a shell tool's output emptied, an MCP tool's output as the reason.
 * Undefined for other tools, whose output Claude Code then still shows beside the reason.
 *
 * @example
 * withheldToolOutput("Bash", { stdout: "KEY=s3cret", stderr: "", interrupted: false, isImage: false }, "secret in output")
 * // { stdout: "", stderr: "", interrupted: false, isImage: false }
 */
export const withheldToolOutput = (tool: string, original: unknown, reason: string): unknown => {
  if (tool.startsWith("mcp__")) return reason;
  if (isShellOutput(original)) return { ...original, stdout: "", stderr: "" };
  if (typeof original === "string") return "";
  return undefined;
};
