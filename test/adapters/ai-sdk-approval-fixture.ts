/**
 * One "deployment" of an AI SDK app whose tools ask a person through the SDK's tool approval, with
 * durable approvals: the same stack configuration (a guard that counts, the approval middleware,
 * an audit log, a trace), the same tools and a scripted model, over a given store. The tests build
 * one per simulated process; the worker builds one in a real second process.
 */
import { PassThrough } from "node:stream";
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { durableApprovals, Trace, type StateStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { audit } from "../../src/middleware/audit.ts";
import { generated, toolResultsIn, usage } from "./ai-sdk-fixtures.ts";

/** The signing key every process of the deployment shares. */
export const approvalKey = "an-ai-sdk-test-key-of-32-bytes-or-more";

/** A provider answer that calls bash with `command` under `toolCallId`. */
const callBash = (command: string, toolCallId: string) => ({
  content: [{ type: "tool-call" as const, toolCallId, toolName: "bash", input: JSON.stringify({ command }) }],
  finishReason: { unified: "tool-calls" as const, raw: "tool_use" },
  usage: usage(5, 5),
  warnings: [],
});

/**
 * A model that calls bash with `command` under `toolCallId` when no tool answered yet, and then
 * with `next` (once), if given; then it says what the tools answered.
 */
export const scriptedModel = (command: string, toolCallId: string, next?: { readonly command: string; readonly toolCallId: string }) =>
  new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = toolResultsIn(prompt);
      if (results.length === 0) return callBash(command, toolCallId);
      if (next !== undefined && !results.some((p) => p.toolCallId === next.toolCallId)) return callBash(next.command, next.toolCallId);
      return generated(`done: ${results.map((p) => JSON.stringify(p.output)).join(" | ")}`) as never;
    },
  });

/** What one process of the deployment recorded. */
export interface Recorded {
  /** Commands the tool ran. */
  readonly ran: string[];
  /** Commands a guard outside the approval hook saw. */
  readonly seen: string[];
  readonly trace: Trace;
  /** The audit log's lines so far. */
  lines(): Record<string, unknown>[];
}

/**
 * The deployment over `store`: `ask` runs a first turn (the model calls bash with `command`), and
 * `answer` the next one, with the person's answer to the approval request. `middleware`: whether the
 * model goes through `aiSdkMiddleware` on the same stack (which reads a denial from the prompt).
 *
 * @example
 * const app = deployment(new MemoryStore()); const { messages, approvalId } = await app.ask("git push", "call-1")
 */
export const deployment = (store: StateStore, options: { readonly ownApproval?: boolean } = {}) => {
  const approvals = durableApprovals({ store, key: approvalKey, ttlMs: 60_000 });
  const out = new PassThrough();
  const written: Record<string, unknown>[] = [];
  out.on("data", (chunk: Buffer) => {
    for (const line of String(chunk).split("\n")) if (line !== "") written.push(JSON.parse(line) as Record<string, unknown>);
  });
  const recorded: Recorded = { ran: [], seen: [], trace: new Trace(), lines: () => [...written] };
  const stack = withMiddleware(
    createAgentStack({ approval: approvals }),
    approval({ match: "bash(git push*)" }),
    audit({ to: out, redact: false }),
  ).use("toolCall", { name: "count", before: (c) => void recorded.seen.push(String(c.input.command)) });
  const tools = wrapAiSdkTools(
    stack,
    {
      bash: tool({
        inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
        ...(options.ownApproval === true
          ? { needsApproval: async ({ command }: { command: string }) => command.startsWith("deploy") || command.endsWith("--force") }
          : {}),
        execute: async ({ command }) => (recorded.ran.push(command), `ran ${command}`),
      }),
    },
    { approval: "ai-sdk", run: { sessionId: "s1", trace: recorded.trace } },
  );
  const modelOf = (command: string, toolCallId: string, middleware: boolean, next?: { command: string; toolCallId: string }) => {
    const m = scriptedModel(command, toolCallId, next);
    return middleware ? wrapLanguageModel({ model: m, middleware: aiSdkMiddleware(stack) }) : m;
  };

  /** A first turn: the model calls bash; the SDK's approval request, and the messages to answer it in. */
  const ask = async (command: string, toolCallId: string) => {
    const first = await generateText({ model: modelOf(command, toolCallId, false), tools, prompt: command, stopWhen: stepCountIs(3) });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    const messages: ModelMessage[] = [{ role: "user", content: command }, ...first.response.messages];
    return { approvalId: request?.approvalId, messages, text: first.text };
  };

  /** The next turn, with the person's answer; what the model read back. */
  const answer = async (
    asked: { readonly messages: readonly ModelMessage[]; readonly approvalId: string },
    approved: boolean,
    reason: string,
    how: { readonly middleware: boolean; readonly next?: { command: string; toolCallId: string } },
  ) => {
    const result = await generateText({
      model: modelOf("", "", how.middleware, how.next),
      tools,
      messages: [
        ...asked.messages,
        { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved, reason }] },
      ],
      stopWhen: stepCountIs(3),
    });
    await stack.flush();
    return { text: result.text };
  };

  return { approvals, stack, tools, recorded, ask, answer };
};
