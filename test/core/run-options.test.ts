import { describe, expect, it } from "vitest";
import { MemoryStore, Trace } from "../../src/core/index.ts";
import { runOptionsError } from "../../src/core/run-options.ts";
import { newStack } from "./helpers.ts";

const call = { name: "Bash", input: { command: "ls" } };
const op = () => ({ content: "ran" });

describe("stack.run's options", () => {
  it("are taken when every option is known and of its type, and when there are none", async () => {
    const stack = newStack();
    const full = {
      signal: new AbortController().signal,
      sessionId: "s1",
      runId: "r1",
      metadata: { tenant: "acme" },
      path: ["agent"],
      timeoutMs: 1_000,
      trace: new Trace(),
      onContext: () => {},
      store: new MemoryStore(),
      approval: () => ({ decision: "approve" as const }),
    };
    expect((await stack.run("tool", call, op, full))._tag).toBe("Completed");
    expect((await stack.run("tool", call, op))._tag).toBe("Completed");
    expect((await stack.run("tool", call, op, {}))._tag).toBe("Completed");
    expect((await stack.run("tool", call, op, { sessionId: undefined, metadata: undefined }))._tag).toBe("Completed");
  });

  it("refuse an unknown option with a TypeError naming it and the option it was probably meant to be", async () => {
    const stack = newStack();
    const ran: unknown[] = [];
    await expect(stack.run("tool", call, (c) => (ran.push(c), op()), { sesionId: "s1" } as never)).rejects.toThrow(
      new TypeError(
        'stack.run("tool"): unknown option "sesionId" (did you mean "sessionId"?); its options are signal, sessionId, runId, metadata, path, timeoutMs, trace, onContext, store, approval',
      ),
    );
    await expect(stack.run("tool", call, op, { timeout: 5 } as never)).rejects.toThrow(
      /unknown option "timeout" \(did you mean "timeoutMs"\?\)/,
    );
    await expect(stack.run("tool", call, op, { colour: "red" } as never)).rejects.toThrow(/unknown option "colour"; its options are/);
    expect(ran).toEqual([]);
  });

  it("refuse an option of the wrong type with a TypeError naming the option, what it must be and what it got", async () => {
    const stack = newStack();
    const wrong: [Record<string, unknown>, string][] = [
      [{ signal: "stop" }, "signal must be an AbortSignal, got a string"],
      [{ signal: new AbortController() }, "signal must be an AbortSignal"],
      [{ timeoutMs: -1 }, "timeoutMs must be a positive number of ms up to 2147483647, got -1"],
      [{ timeoutMs: Number.NaN }, "timeoutMs must be a positive number of ms up to 2147483647, got NaN"],
      [{ sessionId: 42 }, "sessionId must be a string, got 42"],
      [{ runId: { id: 1 } }, 'runId must be a string, got {"id":1}'],
      [{ metadata: "prod" }, 'metadata must be an object, got "prod"'],
      [{ metadata: ["prod"] }, 'metadata must be an object, got ["prod"]'],
      [{ metadata: null }, "metadata must be an object, got null"],
      [{ path: "agent" }, 'path must be a list of names (strings), got "agent"'],
      [{ path: ["agent", 2] }, "path must be a list of names (strings)"],
      [{ trace: [] }, "trace must be a Trace (new Trace()), got []"],
      [{ store: new Map() }, "store must be a StateStore"],
      [{ approval: "yes" }, 'approval must be a function or durableApprovals(), got "yes"'],
      [{ onContext: "log" }, "onContext must be a function, got string"],
    ];
    for (const [options, message] of wrong)
      await expect(stack.run("tool", call, op, options as never), JSON.stringify(options)).rejects.toThrow(`stack.run("tool"): ${message}`);
  });

  it("refuse options that are not an object", async () => {
    const stack = newStack();
    for (const options of [null, "fast", 5, [{ sessionId: "s1" }]])
      await expect(stack.run("tool", call, op, options as never), JSON.stringify(options)).rejects.toThrow(
        /^stack.run\("tool"\): options must be an object, got /,
      );
  });

  it("are read by a check that says nothing of options that fit", () => {
    expect(runOptionsError("tool", { sessionId: "s1", metadata: {} })).toBeUndefined();
    expect(runOptionsError("tool", { metdata: {} })?.message).toMatch(/unknown option "metdata" \(did you mean "metadata"\?\)/);
  });
});
