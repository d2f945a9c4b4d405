/**
 * Checklist C (timeouts and cancellation): never-settling hooks on gates and observers with real
 * short timeouts and a handle baseline (C1), cancellation reaching the hook, the operation and a
 * child process (C2), a background command hook bounded by its own deadline (C4), and invalid
 * timeout configuration at every place one can be given (C5).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { Continue, type HookError, RegistrationError, RunAbortedError, gate } from "../../src/core/index.ts";
import { commandHook } from "../../src/executors/command.ts";
import { BackgroundQueue } from "../../src/executors/queue.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import type { ExternalNotice } from "../../src/executors/protocol.ts";
import { call, newStack, sleep } from "./helpers.ts";
import { scaled } from "../support/scale.ts";
import { settlesWithin, timersLeftBy } from "../support/timers.ts";
import { alive, eventually, fixture, tempDir } from "../executors/helpers.ts";

// A deadline under test must beat a timer this much later. Timers fire in the order they are due,
// however late a busy event loop runs them, so this is no race against the machine's load.
const epsilon = 1_000;

describe("C1: a hook that never settles", () => {
  it("fails a gate closed within its timeout, aborts its signal, and leaves no timer behind", async () => {
    let hookSignal: AbortSignal | undefined;
    const stack = newStack().use("tool", {
      name: "stuck",
      timeoutMs: 30,
      before: (_c, ctx) => {
        hookSignal = ctx.signal;
        return new Promise(() => {});
      },
    });
    const start = performance.now();
    let ran = false;
    const run = () => stack.run("tool", call(), () => ((ran = true), { content: "" }));
    let outcome!: Awaited<ReturnType<typeof run>>;
    let inTime = false;
    const left = await timersLeftBy(async () => {
      inTime = await settlesWithin(
        30 + epsilon,
        run().then((o) => (outcome = o)),
      );
    });
    const took = performance.now() - start;
    expect(inTime).toBe(true);
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { cause: HookError }).cause.kind).toBe("timeout");
    expect(ran).toBe(false);
    expect(hookSignal?.aborted).toBe(true);
    expect(took).toBeGreaterThanOrEqual(29); // not before its deadline: a busy machine only makes it later
    expect(left).toBe(0);
  });

  it("drops an observer-point hook (fail open) within its timeout, keeping the operation's result", async () => {
    const stack = newStack().use("watch", { name: "stuck-after", timeoutMs: 30, after: () => new Promise(() => {}) });
    let outcome: unknown;
    let inTime = false;
    const left = await timersLeftBy(async () => {
      inTime = await settlesWithin(
        30 + epsilon,
        stack.run("watch", call(), () => ({ content: "kept" })).then((o) => (outcome = o)),
      );
    });
    expect(inTime).toBe(true);
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "kept" } });
    expect(stack.stats.failOpen).toBe(1);
    expect(left).toBe(0);
  });

  it("settles a run whose untimed hook never settles at the run's own deadline", async () => {
    const stack = newStack().use("tool", { name: "stuck", before: () => new Promise(() => {}) });
    const running = stack.run("tool", call(), () => ({ content: "" }), { timeoutMs: 30 });
    expect(await settlesWithin(30 + epsilon, running)).toBe(true);
    const outcome = await running;
    expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut).toBe(true);
  });
});

describe("C3: a timeout racing the answer under event-loop lag", () => {
  it("treats an answer that arrives past the hook's deadline as a timeout, even when the loop ran the answer's timer first", async () => {
    const stack = newStack().use("tool", {
      name: "slow",
      timeoutMs: 15,
      before: async () => {
        await sleep(60);
        return Continue;
      },
    });
    setTimeout(() => {}, 60); // an older timer of the same duration as the hook's work, so its list is served first
    await sleep(50);
    let ran = false;
    const running = stack.run("tool", call(), () => ((ran = true), { content: "" }));
    const end = Date.now() + 100;
    while (Date.now() < end); // the event loop is busy past both deadlines
    const outcome = await running;
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { cause: HookError }).cause.kind).toBe("timeout");
    expect(ran).toBe(false);
  });
});

describe("C2: the caller aborts mid-chain", () => {
  it("aborts the hook's and the operation's signal, starts no later hook, and settles as Aborted", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    let opSignal: AbortSignal | undefined;
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        around: async (ctx, next) => {
          const o = await next();
          seen.push(`outer saw ${o._tag}, signal aborted=${ctx.signal.aborted}`);
          return o;
        },
      })
      .use("tool", { name: "later", priority: 3, before: () => void seen.push("later started") });
    const running = stack.run(
      "tool",
      call(),
      async (_c, ctx) => {
        opSignal = ctx.signal;
        await sleep(10_000, ctx.signal);
        return { content: "too late" };
      },
      { signal: controller.signal },
    );
    await sleep(5);
    controller.abort(new Error("caller gave up"));
    const outcome = await running;
    expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && !outcome.error.timedOut).toBe(true);
    expect(opSignal?.aborted).toBe(true);
    expect(seen).toEqual(["later started"]); // started before the abort; the outer around's post-phase is abandoned
  });

  it("stops a command hook's process when the caller aborts", async () => {
    const dir = tempDir();
    const pidFile = join(dir, "pid");
    const script = join(dir, "hang.sh");
    writeFileSync(script, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 30\n`, { mode: 0o755 });
    const stack = createAgentStack().use(
      "toolCall",
      commandHook({ event: "PreToolUse", command: script, timeoutMs: 20_000, killGraceMs: 100 }),
    );
    const controller = new AbortController();
    const running = stack.run("toolCall", { id: "c", name: "Bash", input: { command: "ls" } }, () => ({ content: "ran" }), {
      signal: controller.signal,
    });
    const { existsSync, readFileSync } = await import("node:fs");
    expect(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "")).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    controller.abort();
    const outcome = await running;
    expect(outcome._tag).toBe("Failed");
    expect(await eventually(() => !alive(pid))).toBe(true);
  });
});

describe("C4: a fire-and-forget hook outlives its run", () => {
  it("returns at once, is bounded by its own deadline, and reports the timeout as a background failure", async () => {
    const notices: ExternalNotice[] = [];
    const hook = commandHook({
      event: "PostToolUse",
      async: true,
      command: process.execPath,
      args: [fixture("commands", "sleep.mjs"), "30000"],
      timeoutMs: 200,
      killGraceMs: 50,
      onNotice: (n) => notices.push(n),
    });
    const stack = createAgentStack().use("toolCall", hook);
    const outcome = await stack.run("toolCall", { id: "c", name: "Bash", input: { command: "ls" } }, () => ({ content: "ran" }));
    expect(outcome._tag).toBe("Completed");
    expect(notices).toEqual([]); // the run did not wait for the hook's deadline, which tells of its end
    // Bounded by its 200 ms deadline, not the 30 s its process would sleep.
    expect(await settlesWithin(scaled(15_000), stack.flush())).toBe(true);
    expect(notices.map((n) => n.kind)).toEqual(["background-failure"]);
    // The process runner's message, or its backstop's when a busy machine is slow to reap the process.
    expect(notices[0]!.message).toMatch(/timed out|did not answer within 200 ms/);
  });
});

describe("C4: cancelled on shutdown", () => {
  it("stops a running background command's process, reports it cancelled, and never starts the waiting ones", async () => {
    const dir = tempDir();
    const script = join(dir, "hang.sh");
    writeFileSync(script, `#!/bin/sh\necho $$ > "${dir}/pid-$1"\nexec sleep 30\n`, { mode: 0o755 });
    const notices: ExternalNotice[] = [];
    const queue = new BackgroundQueue({ concurrency: 1 });
    const hook = (n: number) =>
      commandHook({
        event: "PostToolUse",
        name: `bg-${n}`,
        async: true,
        queue,
        command: script,
        args: [String(n)],
        timeoutMs: 20_000,
        killGraceMs: 100,
        onNotice: (x) => notices.push(x),
      });
    const stack = createAgentStack().use("toolCall", hook(1)).use("toolCall", hook(2));
    expect((await stack.run("toolCall", { id: "c", name: "Bash", input: { command: "ls" } }, () => ({ content: "ran" })))._tag).toBe(
      "Completed",
    );
    const { existsSync, readFileSync } = await import("node:fs");
    const pidFile = (n: number) => join(dir, `pid-${n}`);
    expect(await eventually(() => existsSync(pidFile(1)) || existsSync(pidFile(2)))).toBe(true);
    const first = existsSync(pidFile(1)) ? 1 : 2;
    await eventually(() => readFileSync(pidFile(first), "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile(first), "utf8").trim());
    // Stops the process at once, not at its 20 s deadline or the 30 s it would sleep.
    expect(
      await settlesWithin(
        scaled(10_000),
        queue.cancel(new Error("shutting down")).then(() => stack.flush()),
      ),
    ).toBe(true);
    expect(await eventually(() => !alive(pid))).toBe(true);
    expect(existsSync(pidFile(3 - first))).toBe(false); // the waiting one never started
    expect(queue.cancelled).toBe(2);
    expect(notices.map((n) => [n.hook, n.kind, n.message])).toEqual([[`bg-${first}`, "cancelled", "cancelled: shutting down"]]);
  });

  it("waits only for the jobs it stopped, and runs a job pushed from an abort listener as usual", async () => {
    const queue = new BackgroundQueue({ concurrency: 4 });
    let late: AbortSignal | undefined;
    void queue.push(
      "stops-slowly",
      (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener(
            "abort",
            () => {
              void queue.push("pushed-while-cancelling", async (s) => {
                late = s;
              });
              setTimeout(resolve, 20);
            },
            { once: true },
          ),
        ),
    );
    await sleep(5); // the job has started and listens
    const cancelled = queue.cancel();
    let afterDone = false;
    void queue.push("pushed-after", async () => {
      await sleep(300);
      afterDone = true;
    });
    await cancelled;
    expect(afterDone).toBe(false); // not held up by the 300 ms job pushed after (its timer is due later than the 20 ms stop)
    expect(late?.aborted).toBe(false);
    expect(queue.cancelled).toBe(1);
    await queue.idle();
    expect(queue.completed).toBe(2);
  });

  it("takes new jobs again after a cancel", async () => {
    const queue = new BackgroundQueue();
    await queue.cancel();
    let ran = false;
    await queue.push("later", async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(queue.completed).toBe(1);
  });
});

describe("C5: invalid timeout configuration", () => {
  const bad: [string, unknown][] = [
    ["-1", -1],
    ["0", 0],
    ["NaN", NaN],
    ["Infinity", Infinity],
    ["2^31 (over setTimeout's range)", 2 ** 31],
    ["a string", "5"],
  ];

  it.each(bad)("refuses a hook timeoutMs of %s at registration, naming the field", (_label, value) => {
    expect(() => newStack().use("tool", { name: "h", timeoutMs: value as number, before: () => Continue })).toThrow(RegistrationError);
    expect(() => newStack().use("tool", { name: "h", timeoutMs: value as number, before: () => Continue })).toThrow(
      /hook "h": timeoutMs must be/,
    );
  });

  it.each(bad)("refuses a point timeoutMs of %s when the point is defined", (_label, value) => {
    expect(() => gate({ name: "p", timeoutMs: value as number })).toThrow(/point "p": timeoutMs must be a positive/);
  });

  it.each(bad.filter(([l]) => l !== "Infinity" && l !== "2^31 (over setTimeout's range)" && l !== "a string"))(
    "refuses a command hook timeout of %s when the hook is built",
    (_label, value) => {
      expect(() => commandHook({ event: "PreToolUse", command: "true", timeout: value as number })).toThrow(
        /timeout must be a positive number/,
      );
    },
  );

  it("caps a command hook timeout above the maximum rather than overflowing the timer (documented choice)", () => {
    const hook = commandHook({ event: "PreToolUse", command: "true", timeout: 1e12 }) as { timeoutMs?: number };
    expect(hook.timeoutMs).toBeLessThanOrEqual(2_147_483_647);
  });

  it.each(bad.filter(([l]) => l !== "2^31 (over setTimeout's range)"))(
    "refuses a settings timeout of %s at load, with the JSON pointer",
    (_label, value) => {
      const settings = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true", timeout: value }] }] } };
      expect(() => fromClaudeSettings(settings as never)).toThrow(
        /settings: \/hooks\/PreToolUse\/0\/hooks\/0(\/timeout)?: .*(positive number|Expected number)/,
      );
    },
  );

  it.each(bad)("refuses a run's timeoutMs of %s: the run's promise rejects with a TypeError naming the option", async (_label, value) => {
    const stack = newStack().use("tool", { name: "h", before: () => Continue });
    await expect(
      stack.run(
        "tool",
        call(),
        async () => {
          await sleep(5);
          return { content: "" };
        },
        { timeoutMs: value as number },
      ),
    ).rejects.toThrow(TypeError);
    await expect(stack.run("tool", call(), async () => ({ content: "" }), { timeoutMs: value as number })).rejects.toThrow(/timeoutMs/);
  });
});
