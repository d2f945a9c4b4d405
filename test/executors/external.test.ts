import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Trace } from "../../src/core/index.ts";
import { commandHook } from "../../src/executors/command.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { tempDir } from "./helpers.ts";

/**
 * What a hook with a 1-second timeout is told to have done: the process runner's own message, or,
 * when a busy machine is slow to reap the killed process, its backstop's, 1.5 s later.
 */
const timedOutAfter1s = /(timed out after|did not answer within) 1000 ms/;

/** SessionEnd command handlers from one settings file; run the point once and say how long it took and what the hooks wrote. */
const endSession = async (handlers: readonly Record<string, unknown>[], options: Parameters<typeof fromClaudeSettings>[1] = {}) => {
  const dir = tempDir();
  const log = join(dir, "ends.log");
  const settings = {
    hooks: { SessionEnd: [{ hooks: handlers.map((h) => ({ ...h, command: String(h.command).replaceAll("LOG", `'${log}'`) })) }] },
  };
  const { stack } = fromClaudeSettings(settings, { cwd: dir, killGraceMs: 100, onNotice: () => {}, ...options });
  const start = performance.now();
  const outcome = await stack.run("sessionEnd", { sessionId: "s1", reason: "other" }, () => undefined);
  return { outcome, ms: performance.now() - start, wrote: existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [] };
};

describe("SessionEnd hooks", () => {
  const saved = process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS;
    else process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS = saved;
  });

  it("share one 1.5-second budget: six that hang end the session in about 1.5 s, not 9 s", async () => {
    const sleep = (name: string) => ({ type: "command", command: `sleep 10; echo ${name} >> LOG` });
    const { outcome, ms, wrote } = await endSession(["a", "b", "c", "d", "e", "f"].map(sleep));
    expect(outcome._tag).toBe("Completed");
    expect(wrote).toEqual([]);
    // One after another, each given the budget, they would take 9 s or more, however idle the
    // machine; side by side, a busy one adds its delay once.
    expect(ms).toBeLessThan(9_000);
  });

  it("get a budget raised to the longest per-hook timeout in the settings, hooks without one included", async () => {
    const { wrote } = await endSession([
      { type: "command", command: "sleep 2; echo slow >> LOG" },
      { type: "command", command: "echo quick >> LOG", timeout: 5 },
    ]);
    expect(wrote).toEqual(["quick", "slow"]);
  });

  it("run side by side, as Claude Code runs them: a cleanup hook after one that hangs still runs", async () => {
    const { outcome, wrote } = await endSession([
      { type: "command", command: "sleep 10; echo hung >> LOG" },
      { type: "command", command: "echo cleaned >> LOG" },
    ]);
    expect(outcome._tag).toBe("Completed");
    expect(wrote).toEqual(["cleaned"]);
  });

  it("each have their own timeout inside the budget: a 1-second hook after a 2-second one still runs", async () => {
    const { wrote } = await endSession([
      { type: "command", command: "sleep 2; echo slow >> LOG", timeout: 5 },
      { type: "command", command: "echo quick >> LOG", timeout: 1 },
    ]);
    expect(wrote).toEqual(["quick", "slow"]);
  });

  it("never refuse the session's close, even failing closed: the failure is told, and the hooks beside it finish", async () => {
    const told: string[] = [];
    const { outcome, wrote } = await endSession(
      [
        { type: "command", command: "sleep 10", timeout: 1 },
        { type: "command", command: "sleep 2; echo late >> LOG", timeout: 5 },
      ],
      { failMode: "closed", onNotice: (n) => void told.push(`${n.kind}: ${n.hook}: ${n.message}`) },
    );
    expect(outcome._tag).toBe("Completed");
    expect(wrote).toEqual(["late"]);
    expect(told).toEqual([expect.stringMatching(new RegExp(`^hook-error: SessionEnd:command:sleep: ${timedOutAfter1s.source}`))]);
  });

  it("let a hook that needs longer than another's timeout finish, and name the one that timed out", async () => {
    const told: string[] = [];
    const { outcome, wrote } = await endSession(
      [
        { type: "command", command: "sleep 10", timeout: 1 },
        { type: "command", command: "sleep 3; echo cleaned >> LOG", timeout: 5 },
      ],
      { failMode: "closed", onNotice: (n) => void told.push(n.message) },
    );
    expect(outcome._tag).toBe("Completed");
    expect(told).toEqual([expect.stringMatching(timedOutAfter1s)]);
    expect(wrote).toEqual(["cleaned"]);
  });

  it("tell a hook failing open as what it did, not as a timeout, while a slower hook beside it runs", async () => {
    const dir = tempDir();
    const told: string[] = [];
    const hooks = [
      { type: "command", command: "exit 1", timeout: 1 },
      { type: "command", command: "sleep 3", timeout: 5 },
    ];
    const { stack } = fromClaudeSettings(
      { hooks: { SessionEnd: [{ hooks }] } },
      { cwd: dir, killGraceMs: 100, onNotice: (n) => void told.push(`${n.kind}: ${n.message}`) },
    );
    const outcome = await stack.run("sessionEnd", { sessionId: "s1", reason: "other" }, () => undefined, { trace: new Trace() });
    expect(outcome._tag).toBe("Completed");
    expect(told).toEqual(["hook-error: exited with code 1 (let through)"]);
  });

  it("never wait more than 60 seconds, whatever timeout a hook sets", () => {
    const hook = commandHook({ event: "SessionEnd", command: "true", timeout: 600, killGraceMs: 100 });
    expect(hook.timeoutMs).toBeLessThanOrEqual(60_000 + 100 + 1500 + 1500);
  });

  it("take their budget from CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS when it is set", async () => {
    process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS = "5000";
    const { wrote } = await endSession([{ type: "command", command: "sleep 2; echo slow >> LOG" }]);
    expect(wrote).toEqual(["slow"]);
  });
});
