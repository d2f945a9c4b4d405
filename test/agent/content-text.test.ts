import { describe, expect, it } from "vitest";
import { contentText } from "../../src/agent/content-text.ts";
import { createAgent, createAgentStack, createScriptedModel, defineTool } from "../../src/agent/index.ts";

describe("contentText", () => {
  it("gives strings as they are and anything else as JSON", () => {
    expect(contentText("plain")).toBe("plain");
    expect(contentText({ files: 2, names: ["a"] })).toBe('{"files":2,"names":["a"]}');
    expect(contentText(undefined)).toBe("undefined");
  });

  it("writes a BigInt as its digits and an object inside itself as [Circular], but a repeated one in full", () => {
    const shared = { k: 1 };
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    expect(contentText({ id: 12n })).toBe('{"id":"12"}');
    expect(contentText(loop)).toBe('{"a":1,"self":"[Circular]"}');
    expect(contentText([shared, shared])).toBe('[{"k":1},{"k":1}]');
  });

  it("says so instead of throwing when a getter throws", () => {
    expect(
      contentText({
        get boom() {
          throw new Error("no");
        },
      }),
    ).toBe("[content that cannot be shown as text]");
  });
});

describe("a tool whose result JSON cannot show as it is", () => {
  it("does not fail the turn: the model reads the BigInt's digits and [Circular]", async () => {
    const row: Record<string, unknown> = { id: 12n };
    row.parent = row;
    const model = createScriptedModel({ turns: [{ toolCalls: [{ id: "c1", name: "Rows", input: {} }] }, "Done."] });
    const result = await createAgent({ model, stack: createAgentStack(), tools: [defineTool({ name: "Rows", execute: () => row })] }).run(
      "go",
    );
    expect(result.status).toBe("completed");
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", content: '{"id":"12","parent":"[Circular]"}' });
  });
});
