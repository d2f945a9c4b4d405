/**
 * A replacement for a tool's output in the shape Claude Code accepts. PostToolUse's
 * `updatedToolOutput` is checked against the tool's own output shape: Bash's
 * `{ stdout, stderr, interrupted, isImage }`, Read's `{ type, file: { content, ... } }`; a value of
 * another shape (a plain string for Bash or Read) is dropped and the model reads the original,
 * secrets included. So a rewrite keeps the original's shape: a value of the same shape goes as it
 * is, and text is put where the model reads it, for the shapes known here.
 */
import { contentText } from "../../agent/content-text.ts";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Same JSON type all the way down the original's keys (arrays by their kind only). */
const sameShape = (a: unknown, b: unknown): boolean => {
  if (Array.isArray(a)) return Array.isArray(b);
  if (isObject(a)) return isObject(b) && Object.keys(a).every((k) => a[k] === undefined || sameShape(a[k], b[k]));
  return a === null || a === undefined ? b === a : typeof a === typeof b;
};

/**
 * `text` in the shape of `original`, for the shapes whose model-visible text is known: a string, a
 * list of content blocks (MCP tools), shell output (`stdout`, Bash), a read file (`file.content`,
 * Read). Undefined for any other shape: nothing that shape would surely take.
 *
 * @example
 * textInShape({ stdout: "sk-live-1", stderr: "", interrupted: false, isImage: false }, "[withheld]")
 * // { stdout: "[withheld]", stderr: "", interrupted: false, isImage: false }
 */
export const textInShape = (original: unknown, text: string): unknown => {
  if (typeof original === "string") return text;
  if (Array.isArray(original)) return [{ type: "text", text }];
  if (!isObject(original)) return undefined;
  if (typeof original.stdout === "string")
    return { ...original, stdout: text, ...(typeof original.stderr === "string" ? { stderr: "" } : {}) };
  const file = original.file;
  if (isObject(file) && typeof file.content === "string") return { ...original, file: { ...file, content: text } };
  return undefined;
};

/**
 * What to send as `updatedToolOutput` for hooks' `replacement` of `original`: the replacement when
 * it has the original's shape, else its text in that shape (`textInShape`); undefined when neither
 * fits, so the caller can end the turn instead of letting the original through.
 *
 * @example
 * fitToolOutput({ stdout: "a", stderr: "", interrupted: false, isImage: false }, "b") // { stdout: "b", stderr: "", ... }
 */
export const fitToolOutput = (original: unknown, replacement: unknown): unknown =>
  sameShape(original, replacement) ? replacement : textInShape(original, contentText(replacement));
