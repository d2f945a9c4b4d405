/**
 * Budgets and limits shared by several OS processes through a real redis-server, under the faults
 * a server meets: SIGSTOP then SIGCONT (a stall: the server keeps its connections and later runs
 * what was sent meanwhile), SIGKILL then a restart, and a clean restart. Worker processes
 * (fixtures/limits-worker.ts) keep calls going through `budget`, two `rateLimit`s and a
 * `callLimit`; before and after each fault they are quiesced and the store's totals are compared
 * with what the workers were admitted and spent, call by call. The server keeps an append-only
 * file fsynced on every write, so what it acknowledged survives a SIGKILL.
 *
 * test/stores/redis-faults.test.ts asserts on its figures; benchmarks/redis-recovery.bench.ts
 * repeats it in fresh processes and reports the recovery times.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createAgentStack, estimateMessageTokens } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { budget } from "../../src/middleware/budget.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";
import type { WorkerReport } from "./fixtures/limits-report.ts";

/** The faults, as done to the server. */
export type Fault = "stall" | "kill" | "restart";

/** The store's totals against the workers', after a quiesce. */
export interface Totals {
  /** Tokens the budget settled, what it still holds, and what the workers' calls spent. */
  readonly budget: { readonly settled: number; readonly used: number; readonly spent: number };
  /** What each limit counts (`used`), and the calls the workers' limits admitted. */
  readonly limits: {
    readonly sliding: number;
    readonly fixed: number;
    readonly calls: number;
    readonly callsCounter: number;
    readonly admitted: number;
  };
  /** Settles and refunds a worker gave up on. */
  readonly accountingErrors: readonly string[];
}

/** What one fault did. */
export interface FaultFigures {
  readonly fault: Fault;
  /** How long the server was down, in ms. */
  readonly downMs: number;
  /** Calls started while the server was down and admitted before it was back (must be 0: fail closed). */
  readonly admittedWhileDown: number;
  /** Calls started (load stacks) while the server was down. */
  readonly startedWhileDown: number;
  /** Per worker and load stack, ms from the server's return (SIGCONT, or the start of a new server) to its first admitted call. */
  readonly recoveryMs: readonly number[];
  /** How long a new server took to answer PING (loading its append-only file), in ms; 0 after a stall. */
  readonly serverStartMs: number;
  /**
   * Calls started at least `graceMs` after the server could answer again (SIGCONT, or a new server
   * answering PING) that were refused. The server's own start-up is not counted against the store.
   */
  readonly refusedAfterRecovery: number;
  readonly graceMs: number;
  /** Refusal kinds seen (digits as N). */
  readonly refusals: Record<string, number>;
  readonly after: Totals;
}

/** Everything a run of the scenario measured. */
export interface FaultRunFigures {
  readonly workers: number;
  readonly lanes: number;
  /** Calls per second the workers ran before the faults (both load stacks together). */
  readonly callsPerSecond: number;
  readonly before: Totals;
  readonly faults: readonly FaultFigures[];
  readonly drain: {
    readonly tokenLimit: number;
    readonly callLimit: number;
    readonly settled: number;
    readonly used: number;
    readonly spent: number;
    readonly callsAdmitted: number;
    readonly callsCounter: number;
    /** The refusal a call gets once the budget is spent, from a process that shares it. */
    readonly refusal: string;
    /** The most a call of the drain can need (its reservation). */
    readonly need: number;
    readonly accountingErrors: readonly string[];
  };
}

const fixture = fileURLToPath(new URL("./fixtures/limits-worker.ts", import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const sum = (reports: readonly WorkerReport[], pick: (r: WorkerReport) => number | undefined): number =>
  reports.reduce((n, r) => n + (pick(r) ?? 0), 0);

/**
 * Run the scenario: start a server and `workers` processes, load, check, then each fault in turn
 * with a check after it, then run two limits dry.
 *
 * @example
 * const figures = await redisFaults({ faults: ["stall", "kill", "restart"] })
 */
export const redisFaults = async ({
  faults = ["stall", "kill", "restart"] as readonly Fault[],
  workers = 3,
  lanes = 8,
  opMs = 5,
  downMs = 1_500,
  stallMs = 3_000,
  afterMs = 3_000,
  graceMs = 2_000,
  drainTokens = 40_000,
  drainCalls = 500,
  drainMaxMs = 60_000,
} = {}): Promise<FaultRunFigures> => {
  const server: RedisServer = await startRedis({ appendOnly: true });
  const keyPrefix = `faults-${randomUUID()}:`;
  const maxOutputTokens = 100;
  const children: ChildProcess[] = [];
  const store = new RedisStore({ connection: server.url, keyPrefix });
  try {
    for (let i = 0; i < workers; i++) {
      children.push(
        fork(fixture, [server.url, keyPrefix, lanes, opMs, drainTokens, drainCalls, maxOutputTokens].map(String), {
          execArgv: ["--import", "tsx"],
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      );
    }
    const next = <T>(child: ChildProcess, type: string): Promise<T> =>
      new Promise((resolve, reject) => {
        const onMessage = (message: { type: string }): void => {
          if (message.type !== type) return;
          child.off("message", onMessage).off("exit", onExit);
          resolve(message as T);
        };
        const onExit = (code: number | null): void => reject(new Error(`worker exited with ${String(code)} while waiting for "${type}"`));
        child.on("message", onMessage).once("exit", onExit);
      });
    await Promise.all(children.map((c) => next(c, "ready")));
    const run = (mode: "load" | "drain"): void => children.forEach((c) => c.send({ type: "run", mode }));
    const quiesce = async (): Promise<WorkerReport[]> => {
      const answers = children.map((c) => next<{ report: WorkerReport }>(c, "quiet"));
      children.forEach((c) => c.send({ type: "quiesce" }));
      return (await Promise.all(answers)).map((a) => a.report);
    };

    // What the workers were admitted and spent since the start, against what the store holds.
    let spent = 0;
    let admitted = 0;
    const totals = async (reports: readonly WorkerReport[]): Promise<Totals> => {
      spent += sum(reports, (r) => r.spent.budget);
      admitted += sum(reports, (r) => r.admitted.limits);
      return {
        budget: { settled: Number((await store.get<number>("fleet:global")) ?? 0), used: await store.used("fleet:global"), spent },
        limits: {
          sliding: await store.used("sliding:global:*"),
          fixed: await store.used("fixed:global:*"),
          calls: await store.used("calls:global:*"),
          callsCounter: Number((await store.get<number>("calls:global:*")) ?? 0),
          admitted,
        },
        accountingErrors: reports.flatMap((r) => r.accountingErrors),
      };
    };

    run("load");
    const loadStart = Date.now();
    await sleep(1_000);
    const first = await quiesce();
    const callsPerSecond = Math.round(
      sum(first, (r) => (r.started.budget ?? 0) + (r.started.limits ?? 0)) / ((Date.now() - loadStart) / 1000),
    );
    const before = await totals(first);

    const figures: FaultFigures[] = [];
    for (const fault of faults) {
      run("load");
      await sleep(500);
      // Down from the instant the server stops answering: SIGSTOP takes effect at once; a killed or
      // stopped server is down once its process has exited (a clean stop serves until it exits).
      if (fault === "stall") server.freeze();
      else if (fault === "kill") await server.crash();
      else await server.pause();
      const down = Date.now();
      // A stall outlasts two of the workers' command timeouts (1 s): a lane whose call in flight was
      // settling when the server stopped gives up that settle without refusing the call (it is
      // retried), and only its next call's reserve times out. So every lane is refused at least
      // once, and starts a call while the server is stopped, wherever its call was at the stop.
      await sleep(fault === "stall" ? stallMs : downMs);
      // Back from the instant it is sent SIGCONT or started again: its own start-up counts in the recovery.
      const back = Date.now();
      if (fault === "stall") server.thaw();
      else await server.resume();
      const answering = Date.now();
      await sleep(afterMs);
      const reports = await quiesce();
      const calls = reports.flatMap((r) => ["budget", "limits"].flatMap((name) => r.calls[name] ?? []));
      const recoveryMs = reports.flatMap((r) =>
        ["budget", "limits"].map((name) => {
          const firstAdmitted = Math.min(...(r.calls[name] ?? []).map(([, ranAt]) => ranAt).filter((ranAt) => ranAt >= back));
          return firstAdmitted - back;
        }),
      );
      const refusals: Record<string, number> = {};
      for (const r of reports) for (const [why, n] of Object.entries(r.refusals)) refusals[why] = (refusals[why] ?? 0) + n;
      figures.push({
        fault,
        downMs: back - down,
        // Started after the server went down and admitted before it was back: impossible if
        // admission fails closed. (Judged by the start: a worker learns of an admission late when
        // its event loop lags, so when the operation ran says little about when it was admitted.)
        admittedWhileDown: calls.filter(([startedAt, ranAt]) => startedAt > down && ranAt !== 0 && ranAt < back - 20).length,
        startedWhileDown: calls.filter(([startedAt]) => startedAt > down && startedAt < back).length,
        recoveryMs,
        serverStartMs: answering - back,
        refusedAfterRecovery: calls.filter(([startedAt, ranAt]) => startedAt >= answering + graceMs && ranAt === 0).length,
        graceMs,
        refusals,
        after: await totals(reports),
      });
    }

    // Run both limits dry: each worker stops once it sees both refuse for good, however long its
    // calls take on this machine (a bound only keeps a broken run from hanging the suite).
    const allDrained = Promise.all(children.map((c) => next(c, "drained")));
    allDrained.catch(() => {});
    run("drain");
    let bound: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([allDrained, new Promise((r) => (bound = setTimeout(r, drainMaxMs)))]);
    clearTimeout(bound);
    const drained = await quiesce();
    // A process that shares the budget asks for one more call.
    const probe = withMiddleware(createAgentStack({ store }), budget({ name: "drain", limit: drainTokens, maxOutputTokens }));
    const outcome = await probe.run("modelCall", { model: "m", messages: [{ role: "user", content: "hi" }], maxOutputTokens }, () => {
      throw new Error("the model must not be called");
    });
    const refusal = outcome._tag === "Failed" ? String((outcome.error as Error).message) : JSON.stringify(outcome);
    const drain = {
      tokenLimit: drainTokens,
      callLimit: drainCalls,
      settled: Number((await store.get<number>("drain:global")) ?? 0),
      used: await store.used("drain:global"),
      spent: sum(drained, (r) => r.spent.drainBudget),
      callsAdmitted: sum(drained, (r) => r.admitted.drainCalls),
      callsCounter: Number((await store.get<number>("drainCalls:global:*")) ?? 0),
      refusal,
      need: estimateMessageTokens([{ role: "user", content: "hi" }]) + maxOutputTokens,
      accountingErrors: drained.flatMap((r) => r.accountingErrors),
    };
    return { workers, lanes, callsPerSecond, before, faults: figures, drain };
  } finally {
    for (const child of children) if (child.connected) child.send({ type: "exit" });
    await sleep(100);
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await store.close();
    await server.stop();
  }
};
