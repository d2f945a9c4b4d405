import { describe, expect, it } from "vitest";
import { Outcome } from "../../src/core/index.ts";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  streamStarter,
  streamThroughStack,
  type ModelRequest,
  type StreamPart,
  type ToolCall,
} from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { pattern, defaultDetectors } from "../../src/middleware/detectors.ts";
import { RedactionBlockedError, redaction } from "../../src/middleware/redaction.ts";

const KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123";
const request: ModelRequest = { model: "scripted", messages: [{ role: "user", content: "hi" }] };
const call = (input: Record<string, unknown>): ToolCall => ({ id: "call_1", name: "Bash", input });

describe("redaction, hook by hook", () => {
  it("rewrites a user prompt before any other hook sees it", async () => {
    const seen: string[] = [];
    const stack = withMiddleware(createAgentStack(), redaction()).use("userPrompt", { name: "spy", before: (p) => void seen.push(p.text) });
    const outcome = await stack.run("userPrompt", { text: "I am bob@example.com" }, (p) => p);
    expect(outcome).toEqual(Outcome.completed({ text: "I am [REDACTED:email]" }));
    expect(seen).toEqual(["I am [REDACTED:email]"]);
  });

  it("rejects a user prompt holding a blocked kind, naming the kind and never the data", async () => {
    const stack = withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } }));
    const outcome = await stack.run("userPrompt", { text: `my key is ${KEY}` }, (p) => p);
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "redaction", reason: "user prompt contains api_key; blocked by redaction" });
    expect(JSON.stringify(outcome)).not.toContain(KEY);
  });

  it("redacts tool input before the tool runs and tool output before anyone reads it", async () => {
    const ran: unknown[] = [];
    const stack = withMiddleware(createAgentStack(), redaction({ strategy: "mask" }));
    const outcome = await stack.run("toolCall", call({ command: "curl -H 'x: 4111111111111111'" }), (c) => {
      ran.push(c.input.command);
      return { content: { rows: ["mail a.person@example.org"] } };
    });
    expect(ran).toEqual(["curl -H 'x: ************1111'"]);
    expect(outcome).toEqual(Outcome.completed({ content: { rows: ["mail ****************.org"] } }));
  });

  it("redacts every data field of a tool result, MCP's structuredContent too, and keeps isError and _meta as they are", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const result = {
      content: [{ type: "text", text: "see data" }],
      structuredContent: { email: "alice@example.com", token: KEY },
      isError: false,
      _meta: { requestId: "r-1" },
    };
    const outcome = await stack.run("toolCall", call({}), () => result);
    expect(outcome).toEqual(
      Outcome.completed({
        content: [{ type: "text", text: "see data" }],
        structuredContent: { email: "[REDACTED:email]", token: "[REDACTED:api_key]" },
        isError: false,
        _meta: { requestId: "r-1" },
      }),
    );
    const blocked = await withMiddleware(createAgentStack(), redaction({ strategies: { email: "block" } })).run(
      "toolCall",
      call({}),
      () => result,
    );
    expect(blocked).toMatchObject({ _tag: "Rejected", reason: "tool output of Bash contains email; blocked by redaction" });
  });

  it("rejects a tool result whose object keys hold a blocked kind, and redacts such keys otherwise", async () => {
    const result = { content: { byUser: { "alice@example.com": { visits: 3 } } } };
    const blocked = await withMiddleware(createAgentStack(), redaction({ strategies: { email: "block" } })).run(
      "toolCall",
      call({}),
      () => result,
    );
    expect(blocked).toMatchObject({ _tag: "Rejected", reason: "tool output of Bash contains email; blocked by redaction" });
    const redacted = await withMiddleware(createAgentStack(), redaction()).run("toolCall", call({}), () => result);
    expect(redacted).toEqual(Outcome.completed({ content: { byUser: { "[REDACTED:email]": { visits: 3 } } } }));
    const input = await withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } })).run(
      "toolCall",
      call({ headers: { [KEY]: "x" } }),
      () => ({ content: "never" }),
    );
    expect(input).toMatchObject({ _tag: "Rejected", reason: "tool input of Bash contains api_key; blocked by redaction" });
  });

  it("rejects a tool call whose input or output holds a blocked kind", async () => {
    const stack = withMiddleware(createAgentStack(), redaction({ strategies: { ip_address: "block" } }));
    const input = await stack.run("toolCall", call({ host: "10.1.2.3" }), () => ({ content: "never" }));
    expect(input).toMatchObject({ _tag: "Rejected", reason: "tool input of Bash contains ip_address; blocked by redaction" });
    const output = await stack.run("toolCall", call({}), () => ({ content: "peer 10.1.2.3" }));
    expect(output).toMatchObject({
      _tag: "Rejected",
      by: "redaction:output",
      reason: "tool output of Bash contains ip_address; blocked by redaction",
    });
  });

  it("redacts model output text and tool-call inputs, leaving call ids alone, on generate", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const id = "toolu_01A09q90qw90lq917835lq9X";
    const outcome = await stack.run("modelCall", request, () => ({
      text: "reach me at bob@example.com",
      toolCalls: [{ id, name: "Mail", input: { to: "bob@example.com" } }],
      finishReason: "tool-calls" as const,
      usage: { inputTokens: 1, outputTokens: 1 },
    }));
    expect(outcome._tag === "Completed" && outcome.value).toMatchObject({
      text: "reach me at [REDACTED:email]",
      toolCalls: [{ id, name: "Mail", input: { to: "[REDACTED:email]" } }],
    });
  });

  it("fails a model call holding a blocked kind with RedactionBlockedError (a Reject is not allowed on modelCall)", async () => {
    const stack = withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } }));
    const outcome = await stack.run("modelCall", request, () => ({
      text: `use ${KEY}`,
      toolCalls: [],
      finishReason: "stop" as const,
      usage: { inputTokens: 1, outputTokens: 1 },
    }));
    expect(outcome._tag).toBe("Failed");
    const error = (outcome as { error: RedactionBlockedError }).error;
    expect(error).toBeInstanceOf(RedactionBlockedError);
    expect(error).toMatchObject({ hook: "redaction", where: "model output", kinds: ["api_key"] });
    expect(error.message).not.toContain(KEY);
  });

  it("lets model failures and rejections through untouched", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const boom = new Error("provider down");
    expect(await stack.run("modelCall", request, () => Promise.reject(boom))).toEqual(Outcome.failed(boom));
  });

  it("can be limited to some places, renamed and moved, and checks its options", () => {
    const m = redaction({ name: "pii", priority: 1, on: { toolInput: false, modelOutput: false } });
    expect(Object.keys(m.hooks)).toEqual(["userPrompt", "toolCall"]);
    expect((m.hooks.toolCall as readonly { name: string }[]).map((h) => h.name)).toEqual(["pii:unscanned", "pii:output", "pii:error"]);
    expect(m.hooks.userPrompt).toMatchObject({ name: "pii", priority: 1 });
    expect(() => redaction({ priority: Number.NaN })).toThrow(/priority/);
    expect(() => redaction({ holdBack: -3 })).toThrow(/holdBack/);
  });
});

describe("redaction on streams", () => {
  const streamed = async (chunks: readonly string[], options = {}) => {
    const stack = withMiddleware(createAgentStack(), redaction(options));
    const model = createScriptedModel({ turns: [{ chunks }] });
    const call = streamThroughStack(stack, request, streamStarter(model));
    const parts: StreamPart[] = [];
    for await (const part of call.parts) parts.push(part);
    const { outcome } = await call.done;
    const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : [])).join("");
    return { parts, text, outcome };
  };

  it("never releases a secret split across chunks at any index", async () => {
    const text = `The key is ${KEY}, and mail bob@example.com.`;
    for (let i = 0; i <= text.length; i++) {
      const { text: out, outcome } = await streamed([text.slice(0, i), text.slice(i)]);
      expect(out).toBe("The key is [REDACTED:api_key], and mail [REDACTED:email].");
      expect(outcome._tag === "Completed" && outcome.value.text).toBe(out);
    }
  });

  it("streams clean text before the end, holding back only the window", async () => {
    const clean = "All good here. ".repeat(20);
    const stack = withMiddleware(createAgentStack(), redaction({ holdBack: 32 }));
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    async function* provider(): AsyncGenerator<StreamPart> {
      yield { type: "text-delta", text: clean };
      await gate;
      yield { type: "finish", finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
    }
    const call = streamThroughStack(stack, request, () => provider());
    const iterator = call.parts[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toEqual({ type: "text-delta", text: clean.slice(0, clean.length - 32) });
    release();
    const rest: StreamPart[] = [];
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
    expect(rest[0]).toEqual({ type: "text-delta", text: clean.slice(-32) });
  });

  it("redacts tool calls as they stream", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Mail", input: { to: "bob@example.com" }, id: "c1" }] }] });
    const call = streamThroughStack(stack, request, streamStarter(model));
    const parts: StreamPart[] = [];
    for await (const part of call.parts) parts.push(part);
    expect(parts.find((p) => p.type === "tool-call")).toEqual({
      type: "tool-call",
      call: { id: "c1", name: "Mail", input: { to: "[REDACTED:email]" } },
    });
  });

  it("releases the held tail of a stream that ends without a finish part", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    async function* provider(): AsyncGenerator<StreamPart> {
      yield { type: "text-delta", text: "mail bob@exa" };
      yield { type: "text-delta", text: "mple.com now" };
    }
    const call = streamThroughStack(stack, request, () => provider());
    let text = "";
    for await (const part of call.parts) if (part.type === "text-delta") text += part.text;
    expect(text).toBe("mail [REDACTED:email] now");
  });

  it("blocks a streamed answer holding a blocked kind: nothing of it is released and the call fails", async () => {
    const { text, outcome, parts } = await streamed(["Sure, it is AKIA", "IOSFODNN7EXAMPLE, enjoy"], { strategies: { api_key: "block" } });
    expect(text).toBe("");
    expect(parts.at(-1)).toMatchObject({ type: "error" });
    expect(outcome._tag).toBe("Failed");
    expect((outcome as { error: unknown }).error).toBeInstanceOf(RedactionBlockedError);
  });

  it("gives a retry outside it a fresh hold-back per attempt", async () => {
    let attempt = 0;
    const stack = withMiddleware(createAgentStack(), redaction()).use("modelCall", {
      name: "retry-once",
      priority: 30,
      around: async (_ctx, next) => {
        const first = await next();
        return first._tag === "Failed" ? next() : first;
      },
    });
    async function* provider(): AsyncGenerator<StreamPart> {
      attempt++;
      yield { type: "text-delta", text: attempt === 1 ? "half a secret bob@exa" : "clean answer" };
      if (attempt === 1) throw new Error("connection reset");
      yield { type: "finish", finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
    }
    const call = streamThroughStack(stack, request, () => provider());
    let text = "";
    for await (const part of call.parts) if (part.type === "text-delta") text += part.text;
    expect(text).toBe("clean answer");
  });
});

describe("redaction through the reference loop", () => {
  const tools = (seen: unknown[]) => [
    defineTool<{ query?: unknown }>({
      name: "Lookup",
      execute: ({ query }) => (seen.push(query), `owner: jane.doe@corp.example, key ${KEY}`),
    }),
  ];

  it("keeps PII and secrets out of what the model, the tools and the caller receive, generate and stream alike", async () => {
    for (const stream of [false, true]) {
      const seen: unknown[] = [];
      const parts: string[] = [];
      const model = createScriptedModel({
        chunkSize: 3,
        turns: [{ toolCalls: [{ name: "Lookup", input: { query: "card 4111 1111 1111 1111" } }] }, "The owner is jane.doe@corp.example."],
      });
      const agent = createAgent({
        model,
        tools: tools(seen),
        stream,
        stack: withMiddleware(createAgentStack(), redaction()),
        onPart: (p) => void (p.type === "text-delta" && parts.push(p.text)),
      });
      const turn = await agent.run("I am bob@example.com, look up my card");

      expect(turn.status).toBe("completed");
      expect(turn.text).toBe("The owner is [REDACTED:email].");
      expect(seen).toEqual(["card [REDACTED:credit_card]"]);
      const everything = JSON.stringify([model.requests, turn.result?.messages, parts]);
      for (const secret of ["bob@example.com", "4111 1111 1111 1111", "jane.doe@corp.example", KEY])
        expect(everything).not.toContain(secret);
      if (stream) expect(parts.join("")).toBe("The owner is [REDACTED:email].");
    }
  });

  it("rejects a prompt with a blocked kind before the model is called", async () => {
    const model = createScriptedModel({ turns: ["never"] });
    const agent = createAgent({ model, stack: withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } })) });
    const turn = await agent.run(`here is ${KEY}`);
    expect(turn).toMatchObject({ status: "rejected", by: "redaction" });
    expect(model.requests).toEqual([]);
  });

  it("fails the turn when the model answers with a blocked kind, and the caller never sees it", async () => {
    const parts: string[] = [];
    const model = createScriptedModel({ turns: [`the key: ${KEY}`], chunkSize: 4 });
    const agent = createAgent({
      model,
      stream: true,
      stack: withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } })),
      onPart: (p) => void (p.type === "text-delta" && parts.push(p.text)),
    });
    const turn = await agent.run("tell me the key");
    expect(turn.status).toBe("failed");
    expect(JSON.stringify([turn, parts])).not.toContain(KEY);
  });

  it("accepts custom patterns alongside the defaults", async () => {
    const model = createScriptedModel({ turns: ["ticket TCK-123456 is open"] });
    const detectors = [...defaultDetectors(), pattern("ticket", /TCK-\d{6}/, { window: 10 })];
    const agent = createAgent({
      model,
      stack: withMiddleware(createAgentStack(), redaction({ detectors, strategies: { ticket: "hash" } })),
    });
    const turn = await agent.run("status?");
    expect(turn.text).toMatch(/^ticket \[ticket:sha256:[0-9a-f]{12}\] is open$/);
  });
});
