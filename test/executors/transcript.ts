/**
 * Transcripts in Claude Code's format (one JSON object per line, `type` and `message` as the
 * Anthropic API has them), for hooks that read `transcript_path` as Claude Code's scripts do.
 */
import { randomUUID } from "node:crypto";
import type { Message } from "../../src/agent/types.ts";

/** The JSONL text of a conversation, as Claude Code writes it to `transcript_path`. */
export const claudeTranscript = (sessionId: string, cwd: string, messages: readonly Message[]): string => {
  let parent: string | null = null;
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    const uuid = randomUUID();
    const common = {
      parentUuid: parent,
      isSidechain: false,
      userType: "external",
      cwd,
      sessionId,
      version: "2.1.328",
      uuid,
      timestamp: new Date().toISOString(),
    };
    if (m.role === "user") lines.push(JSON.stringify({ ...common, type: "user", message: { role: "user", content: m.content } }));
    else if (m.role === "tool")
      lines.push(
        JSON.stringify({
          ...common,
          type: "user",
          message: {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: m.toolCallId, content: m.content, is_error: m.isError === true }],
          },
        }),
      );
    else {
      const content = [
        ...(m.content ? [{ type: "text", text: m.content }] : []),
        ...(m.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input })),
      ];
      lines.push(
        JSON.stringify({
          ...common,
          type: "assistant",
          message: {
            id: `msg_${uuid.slice(0, 8)}`,
            type: "message",
            role: "assistant",
            model: "claude-sonnet-5",
            content,
            stop_reason: m.toolCalls?.length ? "tool_use" : "end_turn",
          },
        }),
      );
    }
    parent = uuid;
  }
  return `${lines.join("\n")}\n`;
};
