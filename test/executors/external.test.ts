import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Trace } from "../../src/core/index.ts";
import { commandHook } from "../../src/executors/command.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { eventually, fixture, tempDir } from "./helpers.ts";
import { settlesWithin } from "../support/timers.ts";

/**
 * What a hook with a 1-second timeout is told to have done: the process runner's own message, or,
 * when a busy machine is slow to reap the killed process, its backstop's, 1.5 s later.
 */
const timedOutAfter1s = /(timed out after|did not answer within) 1000 ms/;

/** Claude Code's SessionEnd budget when neither the settings nor the environment raise it. */
const defaultBudgetMs = 1500;

type Handler = Readonly<Record<string, unknown>>;

/**
 * Runs SessionEnd command handlers from one settings file, all at once. In a command, `LOG` names
 * the file the hooks write what they did to, `STARTED` the file a `held` hook writes its name to
 * when it starts, and `RELEASE` the file it waits for.
 */
const endSession = (handlers: readonly Handler[], options: Parameters<typeof fromClaudeSettings>[1] = {}) => {
  const dir = tempDir();
  const files = { LOG: join(dir, "ends.log"), STARTED: join(dir, "started.log"), RELEASE: join(dir, "release") };
  const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
  const command = (h: Handler) =>
    String(h.command).replace(/\b(LOG|STARTED|RELEASE)\b/g, (name) => `'${files[name as keyof typeof files]}'`);
  const settings = { hooks: { SessionEnd: [{ hooks: handlers.map((h) => ({ ...h, command: command(h) })) }] } };
  const { stack } = fromClaudeSettings(settings, { cwd: dir, killGraceMs: 100, onNotice: () => {}, ...options });
  const ended = stack.run("sessionEnd", { sessionId: "s1", reason: "other" }, () => undefined, { trace: new Trace() });
  return {
    ended,
    done: ended.then((outcome) => ({ outcome, wrote: lines(files.LOG) })),
    /** Let every `held` hook finish. */
    release: (): void => writeFileSync(files.RELEASE, ""),
    /** Whether `name` is in the log (or, with `STARTED`, started), waiting for it as long as a busy machine may need. */
    saw: (name: string, file: "LOG" | "STARTED" = "LOG") => eventually(() => lines(files[file]).includes(name)),
  };
};

/**
 * A hook that writes its name to STARTED, waits until the test releases it, then writes its name
 * to LOG: it runs as long as the test needs, not a guessed number of seconds.
 */
const held = (name: string, extra: Handler = {}): Handler => ({
  type: "command",
  // Bounded (about five minutes), so a test that fails before releasing it leaves no loop behind.
  command: `echo ${name} >> STARTED; i=0; until [ -e RELEASE ] || [ $i -ge 30000 ]; do sleep 0.01; i=$((i + 1)); done; echo ${name} >> LOG`,
  ...extra,
});

/** A hook that writes `name` to STARTED, then hangs until its deadline kills it. */
const hang = (name: string, extra: Handler = {}): Handler => ({
  type: "command",
  command: `${fixture("commands", "hang.sh")} ${name} STARTED`,
  ...extra,
});

/**
 * Waits until `ms` have passed since before `name` started: its deadline timers were set before it
 * wrote its name, so a timer set now for `ms` fires after any of them due within `ms` of its
 * start, however late a busy machine runs them all.
 */
const pastStartOf = async (session: ReturnType<typeof endSession>, name: string, ms: number): Promise<void> => {
  expect(await session.saw(name, "STARTED")).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, ms));
};

/** A hook held to the default budget (or to a 1-second timeout) has been killed by then. */
const pastDefaultBudget = defaultBudgetMs + 100;
/**
 * A hook with a 1-second timeout has answered, or been given up on, by then: its whole deadline
 * (the timeout, the kill grace of 100 ms here, and the 1.5 s backstop) is a timer set as it starts.
 */
const pastOneSecondDeadline = 1000 + 100 + 1500 + 100;

describe("SessionEnd hooks", () => {
  const saved = process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS;
    else process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS = saved;
  });

  it("share one 1.5-second budget: six that hang end the session in about 1.5 s, not 9 s", async () => {
    const sleep = (name: string) => ({ type: "command", command: `sleep 10; echo ${name} >> LOG` });
    const session = endSession(["a", "b", "c", "d", "e", "f"].map(sleep));
    // Side by side, each hook's whole deadline (the budget, the kill grace and the backstop: about
    // 3 s) is a timer set as it starts, now, so all fire before a timer of 8 s set now, however
    // late a busy machine runs them. One after another, the sixth would start only after the other
    // five had used 7.5 s of budget.
    expect(await settlesWithin(8_000, session.ended)).toBe(true);
    const { outcome, wrote } = await session.done;
    expect(outcome._tag).toBe("Completed");
    expect(wrote).toEqual([]);
  });

  it("get a budget raised to the longest per-hook timeout in the settings, hooks without one included", async () => {
    const session = endSession([held("slow"), { type: "command", command: "echo quick >> LOG", timeout: 30 }]);
    expect(await session.saw("quick")).toBe(true);
    await pastStartOf(session, "slow", pastDefaultBudget);
    session.release();
    expect((await session.done).wrote).toEqual(["quick", "slow"]);
  });

  it("run side by side, as Claude Code runs them: a cleanup hook after one that hangs still runs", async () => {
    const { outcome, wrote } = await endSession([
      { type: "command", command: "sleep 10; echo hung >> LOG" },
      { type: "command", command: "echo cleaned >> LOG" },
    ]).done;
    expect(outcome._tag).toBe("Completed");
    expect(wrote).toEqual(["cleaned"]);
  });

  it("each have their own timeout inside the budget: a 1-second hook after a slower one still runs", async () => {
    const session = endSession([held("slow", { timeout: 30 }), { type: "command", command: "echo quick >> LOG", timeout: 1 }]);
    expect(await session.saw("quick")).toBe(true);
    await pastStartOf(session, "slow", pastDefaultBudget);
    session.release();
    expect((await session.done).wrote).toEqual(["quick", "slow"]);
  });

  it("never refuse the session's close, even failing closed: the failure is told, and the hooks beside it finish", async () => {
    const told: string[] = [];
    const session = endSession([hang("doomed", { timeout: 1 }), held("late", { timeout: 30 })], {
      failMode: "closed",
      onNotice: (n) => void told.push(`${n.kind}: ${n.hook}: ${n.message}`),
    });
    // The hook beside the failed one is still running when the failure comes back, and finishes after.
    await pastStartOf(session, "doomed", pastOneSecondDeadline);
    session.release();
    const { outcome, wrote } = await session.done;
    expect(outcome._tag).toBe("Completed");
    expect(wrote).toEqual(["late"]);
    expect(told).toEqual([expect.stringMatching(new RegExp(`^hook-error: SessionEnd:command:hang.sh: ${timedOutAfter1s.source}`))]);
  });

  it("let a hook that needs longer than another's timeout finish, and name the one that timed out", async () => {
    const told: string[] = [];
    const session = endSession([hang("doomed", { timeout: 1 }), held("cleaned", { timeout: 30 })], {
      failMode: "closed",
      onNotice: (n) => void told.push(n.message),
    });
    await pastStartOf(session, "doomed", pastOneSecondDeadline);
    session.release();
    const { outcome, wrote } = await session.done;
    expect(outcome._tag).toBe("Completed");
    expect(told).toEqual([expect.stringMatching(timedOutAfter1s)]);
    expect(wrote).toEqual(["cleaned"]);
  });

  it("tell a hook failing open as what it did, not as a timeout, while a slower hook beside it runs", async () => {
    const told: string[] = [];
    const session = endSession(
      [{ type: "command", command: "echo failing >> STARTED; exit 1", timeout: 1 }, held("slow", { timeout: 30 })],
      {
        onNotice: (n) => void told.push(`${n.kind}: ${n.message}`),
      },
    );
    // Slower than the failing hook's whole deadline.
    await pastStartOf(session, "failing", pastOneSecondDeadline);
    session.release();
    const { outcome, wrote } = await session.done;
    expect(outcome._tag).toBe("Completed");
    expect(told).toEqual(["hook-error: exited with code 1 (let through)"]);
    expect(wrote).toEqual(["slow"]);
  });

  it("never wait more than 60 seconds, whatever timeout a hook sets", () => {
    const hook = commandHook({ event: "SessionEnd", command: "true", timeout: 600, killGraceMs: 100 });
    expect(hook.timeoutMs).toBeLessThanOrEqual(60_000 + 100 + 1500 + 1500);
  });

  it("take their budget from CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS when it is set", async () => {
    process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS = "30000";
    const session = endSession([held("slow")]);
    await pastStartOf(session, "slow", pastDefaultBudget);
    session.release();
    expect((await session.done).wrote).toEqual(["slow"]);
  });
});
