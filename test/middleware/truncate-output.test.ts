import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { Outcome, Priority } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { truncateOutput, truncateText } from "../../src/middleware/truncate-output.ts";
import { recordingTool, runAgent, toolCall, toolMessagesSeen } from "./harness.ts";

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const run = (options: Parameters<typeof truncateOutput>[0], content: unknown) =>
  withMiddleware(createAgentStack(), truncateOutput(options)).run("toolCall", toolCall("Read"), () => ({ content }));

describe("truncateOutput", () => {
  it("cuts a long text result to maxChars, marker included, saying how much was left out", async () => {
    const outcome = await run({ maxChars: 60 }, "x".repeat(200));
    const text = outcome._tag === "Completed" ? (outcome.value.content as string) : "";
    expect(text.length).toBeLessThanOrEqual(60);
    expect(text).toMatch(/^x+\n\[… truncated 1\d\d of 200 characters …\]\n$/);
  });

  it("leaves a short result exactly as it was", async () => {
    expect(await run({ maxChars: 10 }, "short")).toEqual(Outcome.completed({ content: "short" }));
  });

  it("measures content with a BigInt or a cycle as the model reads it, never failing the call", async () => {
    const row: Record<string, unknown> = { id: 1n };
    row.self = row;
    expect(await run({ maxChars: 100 }, row)).toEqual(Outcome.completed({ content: row }));
    const long = await run({ maxChars: 60 }, { ids: Array.from({ length: 50 }, (_, i) => BigInt(i)), row });
    expect(long._tag).toBe("Completed");
    expect((long as { value: { content: string } }).value.content).toMatch(
      /^\{"ids":\["0","1",.*\[… truncated \d+ of \d+ characters …\]\n$/s,
    );
  });

  it("keeps the end, or both ends, when asked, with a custom marker", async () => {
    const digits = "0123456789".repeat(3);
    expect(await run({ maxChars: 10, keep: "tail", marker: "…" }, digits)).toEqual(Outcome.completed({ content: "…123456789" }));
    expect(await run({ maxChars: 9, keep: "both", marker: (o) => `[${o}]` }, digits)).toEqual(Outcome.completed({ content: "012[25]89" }));
  });

  it("cuts text parts as one text and keeps other parts, and cuts other content as JSON text", async () => {
    const parts = [
      { type: "text", text: "a".repeat(30) },
      { type: "image", data: "..." },
      { type: "text", text: "b".repeat(30) },
    ];
    const outcome = await run({ maxChars: 20, marker: "|" }, parts);
    expect(outcome).toEqual(
      Outcome.completed({
        content: [
          { type: "text", text: `${"a".repeat(19)}|` },
          { type: "image", data: "..." },
        ],
      }),
    );
    const json = await run({ maxChars: 12, marker: "…" }, { rows: ["long", "long", "long"] });
    expect(json).toEqual(Outcome.completed({ content: '{"rows":["l…' }));
  });

  it("runs outermost, so an inner after hook sees the whole output first", async () => {
    const seen: number[] = [];
    const stack = withMiddleware(createAgentStack(), truncateOutput({ maxChars: 10 })).use("toolCall", {
      name: "redact",
      priority: Priority.guard,
      after: (r) => void seen.push((r.content as string).length),
    });
    await stack.run("toolCall", toolCall("Read"), () => ({ content: "y".repeat(100) }));
    expect(seen).toEqual([100]);
  });

  it("refuses a bad configuration with a TypeError naming the field", () => {
    expect(() => truncateOutput({ maxChars: 0 })).toThrow(/truncateOutput: maxChars must be an integer >= 1/);
    expect(() => truncateOutput({ maxChars: 10, marker: 3 as never })).toThrow(/marker must be a string or a function/);
  });

  test.prop([
    fc.string({ unit: "grapheme", maxLength: 300 }),
    fc.integer({ min: 20, max: 200 }),
    fc.constantFrom("head" as const, "tail" as const, "both" as const),
  ])("never returns more than maxChars and never splits a surrogate pair", (text, maxChars, keep) => {
    const out = truncateText(text, maxChars, (o) => `[${o}]`, keep);
    expect(out.length).toBeLessThanOrEqual(Math.max(maxChars, text.length <= maxChars ? text.length : 0));
    expect(out).not.toMatch(loneSurrogate);
    if (text.length <= maxChars) expect(out).toBe(text);
  });
});

describe("truncateOutput through the reference loop", () => {
  it("hands the model the truncated result", async () => {
    const cat = recordingTool("Cat", () => "line\n".repeat(1_000));
    const stack = withMiddleware(createAgentStack(), truncateOutput({ maxChars: 100 }));
    const { model } = await runAgent(stack, [{ toolCalls: [{ name: "Cat" }] }, "done"], { tools: [cat] });
    const [seen] = toolMessagesSeen(model);
    expect(seen?.length).toBeLessThanOrEqual(100);
    expect(seen).toContain("truncated");
  });
});
