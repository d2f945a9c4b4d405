/**
 * `truncateOutput`: cut tool results longer than `maxChars`, with a marker saying how much was
 * left out, so one huge result cannot flood the model's context. It runs outermost by default
 * (`Priority.first`, and outside `redaction:unscanned` by name): `after` hooks run from the inside
 * out, so redaction and every other hook see the whole output first, and a secret is never cut
 * into a piece that no longer looks like one.
 */
import { Continue, Transform } from "../core/action.ts";
import type { Hook } from "../core/hook.ts";
import type { MatchSpec } from "../core/match/types.ts";
import { Priority } from "../core/priority.ts";
import { contentText } from "../agent/content-text.ts";
import type { ToolCall, ToolResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { choiceOption, integerOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";

/**
 * Options of `truncateOutput`.
 *
 * @example
 * truncateOutput({ maxChars: 20_000, keep: "both", marker: (omitted) => `\n[${omitted} characters cut]\n` })
 */
export interface TruncateOutputOptions {
  /** The longest result text the model reads, marker included (characters, UTF-16 units). */
  readonly maxChars: number;
  /** The text put where the cut is; a function receives how many characters were left out and the total. */
  readonly marker?: string | ((omitted: number, total: number) => string);
  /** Which part to keep: the start (default), the end, or both ends with the marker in the middle. */
  readonly keep?: "head" | "tail" | "both";
  readonly match?: MatchSpec<ToolCall>;
  readonly name?: string;
  /** Default `Priority.first`, outside `redaction:unscanned` by name. */
  readonly priority?: number;
}

/**
 * Cut `text` to at most `maxChars` (when the marker fits), never splitting a surrogate pair.
 *
 * @example
 * truncateText("abcdefghij", 8, (o) => `…+${o}`, "head") // "abcde…+5"
 */
export const truncateText = (
  text: string,
  maxChars: number,
  marker: (omitted: number, total: number) => string,
  keep: "head" | "tail" | "both",
): string => {
  if (text.length <= maxChars) return text;
  // The marker's length depends on the number it shows; two passes settle it.
  let room = Math.max(0, maxChars - marker(text.length - maxChars, text.length).length);
  room = Math.max(0, maxChars - marker(text.length - room, text.length).length);
  const head = keep === "head" ? room : keep === "both" ? Math.ceil(room / 2) : 0;
  const start = safeCut(text, head, -1);
  const end = Math.max(start, safeCut(text, text.length - (room - head), +1));
  return text.slice(0, start) + marker(end - start, text.length) + text.slice(end);
};

/** Move a cut off the middle of a surrogate pair, by one in `direction` (so the kept text only shrinks). */
const safeCut = (text: string, at: number, direction: -1 | 1): number => {
  const code = text.charCodeAt(at - 1);
  return at > 0 && at < text.length && code >= 0xd800 && code <= 0xdbff ? at + direction : at;
};

const defaultMarker = (omitted: number, total: number): string => `\n[… truncated ${omitted} of ${total} characters …]\n`;

/**
 * Truncate long tool results, text parts and JSON alike.
 *
 * @example
 * withMiddleware(stack, truncateOutput({ maxChars: 20_000, keep: "both" }))
 */
export const truncateOutput = (options: TruncateOutputOptions): Middleware => {
  knownOptions("truncateOutput", options, { maxChars: true, marker: true, keep: true, match: true, name: true, priority: true });
  const name = nameOption("truncateOutput", options.name);
  const maxChars = integerOption(name, "maxChars", options.maxChars, 1);
  const keep = choiceOption(name, "keep", options.keep ?? "head", ["head", "tail", "both"]);
  const given = options.marker;
  if (given !== undefined && typeof given !== "string" && typeof given !== "function")
    throw new TypeError(`${name}: marker must be a string or a function`);
  const marker = typeof given === "function" ? given : given !== undefined ? () => given : defaultMarker;
  const cut = (text: string): string => truncateText(text, maxChars, marker, keep);

  const hook: Hook<ToolCall, ToolResult, "gate"> = {
    name,
    // Outside redaction's check of results made outside its innermost hook too: that check sees the whole result.
    ...placement(name, options.priority, Priority.first, { before: ["redaction", "redaction:unscanned"] }),
    ...(options.match !== undefined ? { match: options.match } : {}),
    after: (result) => {
      const content: unknown = result.content;
      if (typeof content === "string") return content.length > maxChars ? Transform({ ...result, content: cut(content) }) : Continue;
      if (isTextParts(content)) {
        const texts = content.filter((p) => p.type === "text");
        const total = texts.reduce((n, p) => n + p.text.length, 0);
        if (total <= maxChars) return Continue;
        // Text parts (MCP, AI SDK) are cut as one text; other parts (images) are kept as they are.
        const joined = cut(texts.map((p) => p.text).join(""));
        let first = true;
        const parts = content.flatMap((p) => (p.type !== "text" ? [p] : first ? ((first = false), [{ ...p, text: joined }]) : []));
        return Transform({ ...result, content: parts });
      }
      if (content === undefined || content === null) return Continue;
      // Measured as the model will read it (see contentText): a BigInt or a cycle must not fail the call.
      const text = contentText(content);
      return text.length > maxChars ? Transform({ ...result, content: cut(text) }) : Continue;
    },
  };
  return { name, hooks: { toolCall: hook } };
};

type Part = { readonly type: string; readonly text: string };

const isTextParts = (content: unknown): content is readonly Part[] =>
  Array.isArray(content) &&
  content.length > 0 &&
  content.some((p) => (p as Part)?.type === "text") &&
  content.every(
    (p) =>
      typeof p === "object" &&
      p !== null &&
      typeof (p as Part).type === "string" &&
      ((p as Part).type !== "text" || typeof (p as Part).text === "string"),
  );
