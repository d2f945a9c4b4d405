/**
 * What the model was sent, read from the Messages API requests the mock recorded: each tool
 * call with the result the model got back and the text blocks that came with it (hook context
 * arrives there as `<system-reminder>` blocks), and every text the model could read.
 */
import type { ContentBlock, MessagesRequest } from "./mock-anthropic.ts";

/** A tool call and what came back to the model for it. */
export interface ToolExchange {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** The tool_result's text (blocks joined by newlines). */
  readonly text: string;
  readonly isError: boolean;
  /** The texts that came with the result, up to the next assistant message: system reminders, hook context. */
  readonly alongside: readonly string[];
}

/**
 * The text of a tool_result's content: a string, or text blocks joined.
 *
 * @example
 * blockText([{ type: "text", text: "a" }, { type: "text", text: "b" }]) // "a\nb"
 */
export const blockText = (content: ContentBlock["content"]): string =>
  typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? (b.text ?? "") : `[${b.type}]`)).join("\n");

const blocksOf = (content: string | readonly ContentBlock[]): readonly ContentBlock[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;

/**
 * Every tool call of the conversation in `request`, in order, with its result.
 *
 * @example
 * toolExchanges(lastRequest.body).map((t) => t.text) // ["(Bash completed with no output)"]
 */
export const toolExchanges = (request: MessagesRequest): ToolExchange[] => {
  const calls = new Map<string, ContentBlock>();
  const out: ToolExchange[] = [];
  // The results of the latest user message, still collecting the messages that follow it.
  let open: { results: ContentBlock[]; texts: string[] } | undefined;
  const close = (): void => {
    for (const b of open?.results ?? []) {
      const call = calls.get(b.tool_use_id!);
      out.push({
        id: b.tool_use_id!,
        name: call?.name ?? "",
        input: call?.input,
        text: blockText(b.content),
        isError: b.is_error === true,
        alongside: open!.texts,
      });
    }
    open = undefined;
  };
  for (const message of request.messages) {
    const blocks = blocksOf(message.content);
    if (message.role === "assistant") {
      close();
      for (const b of blocks) if (b.type === "tool_use" && b.id) calls.set(b.id, b);
      continue;
    }
    const results = blocks.filter((b) => b.type === "tool_result" && b.tool_use_id);
    if (results.length > 0) {
      close();
      open = { results, texts: [] };
    }
    // Hook context arrives as text beside the results or as system messages after them.
    if (open) for (const b of blocks) if (b.type === "text") open.texts.push(b.text ?? "");
  }
  close();
  return out;
};

/**
 * Every text of the conversation the model could read in `request`, except the system prompt:
 * user text, tool results, and the text of system messages Claude Code adds to the conversation.
 *
 * @example
 * conversationText(request).includes("Current branch: main") // the SessionStart context arrived
 */
export const conversationText = (request: MessagesRequest): string => {
  const parts: string[] = [];
  for (const message of request.messages) {
    if (message.role === "assistant") continue;
    for (const b of blocksOf(message.content)) {
      if (b.type === "text") parts.push(b.text ?? "");
      else if (b.type === "tool_result") parts.push(blockText(b.content));
    }
  }
  return parts.join("\n");
};
