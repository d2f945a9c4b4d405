/**
 * Checklist I (data hygiene): huge and deep inputs (I2), awkward unicode in names, reasons and
 * paths (I3, with the fuzzing in fuzz.test.ts), values JSON cannot carry on their way to an
 * external hook (I4), and path spellings that try to slip past a path rule (I5).
 */
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { Continue, Reject, Trace } from "../../src/core/index.ts";
import { externalHook } from "../../src/executors/external.ts";
import { call, isWellFormed, newStack } from "./helpers.ts";

/** An external PreToolUse hook that allows everything and counts how often it was asked. */
const allowing = (options: { maxInputBytes?: number } = {}) => {
  const asked = { n: 0 };
  const hook = externalHook({ event: "PreToolUse", name: "ext", ...options }, 1000, async () => {
    asked.n++;
    return {};
  });
  return { hook, asked };
};
const deep = (levels: number): unknown => {
  let v: unknown = "leaf";
  for (let i = 0; i < levels; i++) v = { d: v };
  return v;
};

describe("I2: oversized and deeply nested tool input", () => {
  it("runs a 10 MB tool input through the onion and an external hook, frozen in strict mode", async () => {
    const big = "x".repeat(10 * 1024 * 1024);
    const { hook, asked } = allowing();
    const stack = createAgentStack({ strict: true }).use("toolCall", hook);
    const outcome = await stack.run("toolCall", { id: "c", name: "Write", input: { content: big } }, (c) => ({
      content: String((c.input.content as string).length),
    }));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: String(big.length) } });
    expect(asked.n).toBe(1);
  });

  it("refuses to send an event over the hook's byte cap, saying so, before anything is sent", async () => {
    const { hook, asked } = allowing({ maxInputBytes: 1024 * 1024 });
    const outcome = await createAgentStack()
      .use("toolCall", hook)
      .run("toolCall", { id: "c", name: "Write", input: { content: "y".repeat(2 * 1024 * 1024) } }, () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { reason: string }).reason).toMatch(/bytes is more than the 1048576-byte limit/);
    expect(asked.n).toBe(0);
  });

  it("refuses 10 000-deep nesting for an external hook with a clear error, not a stack overflow (strict mode off)", async () => {
    const { hook, asked } = allowing();
    const outcome = await createAgentStack({ strict: false })
      .use("toolCall", hook)
      .run("toolCall", { id: "c", name: "Write", input: { v: deep(10_000) } }, () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { reason: string }).reason).toMatch(/nesting deeper than 256/);
    expect(asked.n).toBe(0);
  });

  // Before 2058b5a deepFreeze recursed once per level outside execute()'s guard, and this threw a
  // RangeError synchronously from stack.run.
  it("settles with an Outcome for 10 000-deep input in strict mode, frozen all the way down", async () => {
    const stack = newStack().use("tool", { name: "h", before: () => Continue });
    let outcome: unknown;
    try {
      outcome = await stack.run("tool", call("Read", { v: deep(10_000) }), () => ({ content: "ok" }));
    } catch (error) {
      outcome = { threw: error };
    }
    expect(outcome).toMatchObject({ _tag: "Completed" });
    const input = call("Read", { v: deep(10_000) });
    await newStack()
      .use("tool", { name: "h", before: () => Continue })
      .run("tool", input, () => ({ content: "ok" }));
    let leaf: unknown = input.input.v;
    for (let i = 0; i < 9_999; i++) leaf = (leaf as { d: unknown }).d;
    expect(Object.isFrozen(leaf)).toBe(true);
  });
});

describe("I3: awkward unicode in names, reasons and paths", () => {
  const awkward: [string, string][] = [
    ["a lone high surrogate", "guard\uD800"],
    ["a lone low surrogate", "\uDC00guard"],
    ["NUL", "gu\u0000ard"],
    ["zero-width joiners", "gu\u200Dar\u200Bd"],
    ["a right-to-left override", "guard\u202Etxt.exe"],
    ["a homoglyph (Cyrillic а)", "gu\u0430rd"],
    ["an emoji", "guard 🛡️"],
    ["an escape sequence", "guard\u001b[2J\u001b]52;c;AAAA\u0007"],
  ];

  it.each(awkward)("registers, runs, traces and serialises a hook named with %s, rejecting with that text", async (_label, text) => {
    const trace = new Trace();
    const stack = newStack().use("tool", { name: text, before: () => Reject(text) });
    const outcome = await stack.run("tool", call(text, { path: text }), () => ({ content: "" }), { trace });
    expect(outcome).toEqual({ _tag: "Rejected", reason: text, by: text });
    expect(() => trace.format()).not.toThrow();
    const json = JSON.stringify(trace.entries);
    expect(isWellFormed(json)).toBe(true);
    expect(JSON.parse(json)[0].hook).toBe(text);
    expect(stack.explain("tool", call(text))[0]?.hook).toBe(text);
  });

  it("matches names exactly: a homoglyph or an invisible character is another tool", async () => {
    const stack = newStack().use("tool", { name: "no-bash", match: "Bash", before: () => Reject("no") });
    for (const name of ["B\u0430sh", "Bash\u200B", "Ba\u0000sh", "bash"])
      expect((await stack.run("tool", call(name), () => ({ content: "ran" })))._tag).toBe("Completed");
    expect((await stack.run("tool", call("Bash"), () => ({ content: "ran" })))._tag).toBe("Rejected");
  });
});

describe("I4: values JSON cannot carry, on their way to an external hook", () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  it.each([
    ["a BigInt", { n: 10n }, /tool_input\.n.*BigInt/],
    ["a cycle", { tree: cyclic }, /tool_input\.tree\.self.*circular/],
    ["a function", { cb: () => 1 }, /tool_input\.cb.*function/],
    ["a symbol in a list", { list: [1, Symbol("s")] }, /tool_input\.list\[1\].*symbol/],
    ["NaN", { x: NaN }, /tool_input\.x.*NaN is not a finite number/],
  ])("fails the hook closed naming the field for %s", async (_label, input, message) => {
    const { hook, asked } = allowing();
    const outcome = await createAgentStack({ strict: false })
      .use("toolCall", hook)
      .run("toolCall", { id: "c", name: "Tool", input: input as never }, () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { reason: string }).reason).toMatch(message);
    expect((outcome as { reason: string }).reason).toMatch(/hook "ext"/);
    expect(asked.n).toBe(0);
  });
});

describe("I5: path spellings against a path rule", () => {
  const guarded = newStack()
    .use("tool", { name: "no-env", match: "Read(.env)", before: () => Reject("secrets") })
    .use("tool", { name: "no-etc", match: "Read(//etc/**)", before: () => Reject("system files") })
    .use("tool", { name: "src-only", match: "Write(src/**)", before: () => Continue });
  const verdict = async (tool: string, path: string) => (await guarded.run("tool", call(tool, { path }), () => ({ content: "ran" })))._tag;

  it.each([
    ".env",
    "./.env",
    "src/../.env",
    "a/b/../../.env",
    "a\\..\\.env",
    "deep/dir/.env",
    "src/./.env",
    "src//.env",
    "~/.env",
    "//server/share/.env",
  ])("refuses reading %j through Read(.env)", async (path) => {
    expect(await verdict("Read", path)).toBe("Rejected");
  });

  it.each(["/etc/passwd", "/etc/./passwd", "/tmp/../etc/shadow", "/etc//ssl/private/key", "\\etc\\passwd"])(
    "refuses reading %j through Read(//etc/**)",
    async (path) => {
      expect(await verdict("Read", path)).toBe("Rejected");
    },
  );

  it.each([".envrc", ".env.example", "env", "src/.env.d/x"])("lets %j through (another file)", async (path) => {
    expect(await verdict("Read", path)).toBe("Completed");
  });
});
