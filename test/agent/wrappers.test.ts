import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { OutcomeRejectedError, Reject, Replace, Transform, type ToolCall } from "../../src/index.ts";
import {
  ToolCallError,
  createAgentStack,
  createScriptedModel,
  defineTool,
  lookupIn,
  runToolCall,
  wrapModel,
  wrapTool,
  type ModelRequest,
  type ModelResponse,
} from "../../src/agent/index.ts";
import { bashTool } from "./helpers.ts";
import { request } from "./stream-helpers.ts";

describe("wrapModel", () => {
  it("runs generate through the modelCall point, where hooks see the request and the response", async () => {
    const seen: string[] = [];
    const stack = createAgentStack().use("modelCall", {
      name: "see",
      before: (req, ctx) => void seen.push(`before ${ctx.subject} ${req.messages.length} ${ctx.sessionId}`),
      after: (res) => void seen.push(`after ${res.text}`),
    });
    const model = createScriptedModel({ id: "gpt-x", turns: ["hi there"] });

    const response = await wrapModel(stack, model, { sessionId: "s1" }).generate({ ...request(), model: "gpt-x" });

    expect(response.text).toBe("hi there");
    expect(seen).toEqual(["before gpt-x 1 s1", "after hi there"]);
  });

  it("sends the request a hook rewrote to the provider", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "cap",
      before: (req) => Transform({ ...req, maxOutputTokens: 256 } as ModelRequest),
    });
    const model = createScriptedModel({ turns: ["ok"] });

    await wrapModel(stack, model).generate(request());

    expect(model.requests[0]!.maxOutputTokens).toBe(256);
  });

  it("throws the provider's error when the call fails, and the rejection when a hook failed closed", async () => {
    const boom = new Error("503");
    await expect(wrapModel(createAgentStack(), createScriptedModel({ turns: [{ error: boom }] })).generate(request())).rejects.toBe(boom);
    const strict = createAgentStack().use("modelCall", {
      name: "strict",
      failMode: "closed",
      before: () => {
        throw new Error("policy service down");
      },
    });
    await expect(wrapModel(strict, createScriptedModel({ turns: ["x"] })).generate(request())).rejects.toThrow(OutcomeRejectedError);
  });

  it("gives the provider a signal of the run's own, so what the provider leaves listening goes with the run", async () => {
    const given: AbortSignal[] = [];
    const model = {
      id: "m",
      generate: async (_req: ModelRequest, options: { signal: AbortSignal }) => {
        given.push(options.signal);
        options.signal.addEventListener("abort", () => {}); // never removed, as some providers do
        return { text: "ok", toolCalls: [], finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const stack = createAgentStack().use("modelCall", { name: "pass", before: () => undefined });
    const controller = new AbortController();

    for (let i = 0; i < 20; i++) await wrapModel(stack, model).generate(request(), { signal: controller.signal });

    expect(given[0]).not.toBe(controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("returns a cached response without calling the provider", async () => {
    const cached: ModelResponse = { text: "cached", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } };
    const model = createScriptedModel({ turns: [] });

    const response = await wrapModel(createAgentStack().use("modelCall", { name: "cache", before: () => Replace(cached) }), model).generate(
      request(),
    );

    expect(response).toEqual(cached);
    expect(model.requests).toHaveLength(0);
  });
});

describe("wrapTool", () => {
  const guarded = () =>
    createAgentStack().use("toolCall", { name: "no-rm-rf", match: "Bash(rm -rf*)", before: () => Reject("Destructive command blocked") });

  it("runs execute through the toolCall point and returns the content", async () => {
    const ran: string[] = [];
    const bash = wrapTool(guarded(), bashTool(ran));

    expect(await bash.execute({ command: "ls" }, { signal: new AbortController().signal, toolCallId: "c1" })).toBe("ran: ls");
    expect(ran).toEqual(["ls"]);
    expect(bash.name).toBe("Bash");
    expect(bash.inputSchema).toEqual(bashTool().inputSchema);
  });

  it("throws a ToolCallError whose result explains a rejection", async () => {
    const ran: string[] = [];
    const bash = wrapTool(guarded(), bashTool(ran));

    const error = await bash
      .execute({ command: "rm -rf /" }, { signal: new AbortController().signal, toolCallId: "c2" })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ToolCallError);
    expect((error as ToolCallError).result).toEqual({
      content: "Tool call Bash was rejected by no-rm-rf: Destructive command blocked",
      isError: true,
    });
    expect(ran).toEqual([]);
  });

  it("returns results either way from call, with the outcome", async () => {
    const bash = wrapTool(guarded(), bashTool());

    const run = await bash.call({ id: "c3", input: { command: "rm -rf /" } });

    expect(run.outcome).toMatchObject({ _tag: "Rejected", by: "no-rm-rf" });
    expect(run.result.isError).toBe(true);
  });

  it("runs the tool a hook redirected a call to, through runToolCall", async () => {
    const stack = createAgentStack().use("toolCall", {
      name: "redirect",
      match: "rm",
      before: (c) => Transform({ ...c, name: "Trash" } as ToolCall),
    });
    const trash = defineTool({ name: "Trash", execute: (input) => `moved ${String(input.path)} to trash` });
    const rm = defineTool({ name: "rm", execute: () => "deleted" });

    const { result } = await runToolCall(stack, lookupIn([rm, trash]), { id: "1", name: "rm", input: { path: "a.txt" } });

    expect(result).toEqual({ content: "moved a.txt to trash" });
  });
});
