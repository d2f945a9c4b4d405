/**
 * The load test: N concurrent runs (default 10 000) through one stack of 20 hooks (befores that
 * transform, afters that transform, arounds that rewrite the result, gates that reject or
 * replace), each hook awaiting real asynchronous work (microtasks, immediates, timers) so runs
 * interleave. Every outcome is compared with what a plain model of the onion says that input
 * must give, and every hook checks it sees its own run's identity: no cross-talk, nothing lost.
 *
 * Used by test/reliability/load.test.ts and scripts/reliability/report.ts.
 */
import {
  createStack,
  gate,
  Continue,
  Reject,
  Replace,
  Transform,
  type Hook,
  type HookContext,
  type Outcome,
} from "../../src/core/index.ts";

interface Work {
  readonly id: number;
  readonly trail: string;
}
interface Done {
  readonly content: string;
}
type Kind = "before" | "after" | "around" | "gate";

const points = { work: gate<Work, Done>({ name: "work", subject: (w) => `w${w.id % 5}` }) };
const kindOf = (i: number): Kind => (["before", "after", "around", "gate"] as const)[i % 4]!;

/** Real asynchronous work of three kinds, chosen by run and hook so that runs interleave. */
const pause = (id: number, i: number): Promise<void> => {
  switch ((id * 31 + i) % 3) {
    case 0:
      return Promise.resolve();
    case 1:
      return new Promise((r) => setImmediate(r));
    default:
      return new Promise((r) => setTimeout(r, 0));
  }
};

export interface LoadOptions {
  readonly runs?: number;
  readonly hooks?: number;
}

export interface LoadFigures {
  readonly runs: number;
  readonly hooks: number;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly runsPerSecond: number;
  readonly outcomes: { readonly completed: number; readonly rejected: number; readonly replaced: number; readonly failed: number };
  /** Outcomes that differ from the model's. */
  readonly mismatches: number;
  /** Runs whose promise never settled or rejected. */
  readonly lost: number;
  /** Times a hook saw another run's identity, metadata or input. */
  readonly crossTalk: number;
  readonly examples: readonly string[];
}

/** What the onion must answer for run `id`: the hooks' semantics written out as a plain loop (R1, R3). */
export const expectedOutcome = (id: number, hooks: number): Outcome<Done> => {
  let trail = "";
  let outcome: Outcome<Done> | undefined;
  let stop = hooks;
  for (let i = 0; i < hooks && outcome === undefined; i++) {
    const kind = kindOf(i);
    if (kind === "before" && (id + i) % 3 === 0) trail += `b${i}`;
    if (kind === "gate" && id % 97 === i) outcome = { _tag: "Rejected", reason: `no ${id}`, by: `h${i}` };
    else if (kind === "gate" && id % 89 === i) outcome = { _tag: "Completed", value: { content: `cached ${id}` } };
    if (outcome !== undefined) stop = i;
  }
  outcome ??= { _tag: "Completed", value: { content: `${id}:${trail}` } };
  for (let j = stop - 1; j >= 0; j--) {
    if (outcome._tag !== "Completed") break;
    const kind = kindOf(j);
    if ((kind === "after" && (id + j) % 2 === 0) || (kind === "around" && id % 7 === j % 7))
      outcome = { _tag: "Completed", value: { content: `${outcome.value.content}|${kind === "after" ? "a" : "r"}${j}` } };
  }
  return outcome;
};

/** Run the load test and return its figures. */
export const runLoad = async (options: LoadOptions = {}): Promise<LoadFigures> => {
  const runs = options.runs ?? 10_000;
  const hookCount = options.hooks ?? 20;
  let crossTalk = 0;
  const examples: string[] = [];
  const check = (i: number, input: Work, ctx: HookContext<Work>): void => {
    const id = input.id;
    if (ctx.runId !== `run-${id}` || ctx.metadata.id !== id || ctx.sessionId !== `s${id % 100}` || ctx.subject !== `w${id % 5}`) {
      crossTalk++;
      if (examples.length < 5) examples.push(`hook h${i} of run ${id} saw runId ${ctx.runId}, metadata.id ${String(ctx.metadata.id)}`);
    }
  };

  let stack = createStack(points, { strict: true });
  for (let i = 0; i < hookCount; i++) {
    const name = `h${i}`;
    let hook: Hook<Work, Done, "gate">;
    switch (kindOf(i)) {
      case "before":
        hook = {
          name,
          priority: i,
          before: async (w, ctx) => {
            check(i, w as Work, ctx);
            await pause(w.id, i);
            return (w.id + i) % 3 === 0 ? Transform({ ...w, trail: `${w.trail}b${i}` }) : Continue;
          },
        };
        break;
      case "after":
        hook = {
          name,
          priority: i,
          after: async (out, w, ctx) => {
            check(i, w as Work, ctx);
            await pause(w.id, i);
            return (w.id + i) % 2 === 0 ? Transform({ content: `${out.content}|a${i}` }) : Continue;
          },
        };
        break;
      case "around":
        hook = {
          name,
          priority: i,
          around: async (ctx, next) => {
            check(i, ctx.input as Work, ctx);
            const id = ctx.input.id;
            await pause(id, i);
            const outcome = await next();
            await pause(id, i + 1);
            return outcome._tag === "Completed" && id % 7 === i % 7 ? Transform({ content: `${outcome.value.content}|r${i}` }) : outcome;
          },
        };
        break;
      case "gate":
        hook = {
          name,
          priority: i,
          before: (w, ctx) => {
            check(i, w as Work, ctx);
            if (w.id % 97 === i) return Reject(`no ${w.id}`);
            if (w.id % 89 === i) return Replace({ content: `cached ${w.id}` });
            return Continue;
          },
        };
        break;
    }
    stack = stack.use("work", hook);
  }

  const start = performance.now();
  const settled = new Array<Outcome<Done> | undefined>(runs);
  let rejectedPromises = 0;
  await Promise.all(
    Array.from({ length: runs }, (_, id) =>
      stack
        .run(
          "work",
          { id, trail: "" },
          async (w) => {
            await pause(w.id, hookCount);
            return { content: `${w.id}:${w.trail}` };
          },
          { runId: `run-${id}`, sessionId: `s${id % 100}`, metadata: { id } },
        )
        .then(
          (o) => void (settled[id] = o),
          () => void rejectedPromises++,
        ),
    ),
  );
  const durationMs = performance.now() - start;

  let mismatches = 0;
  let lost = rejectedPromises;
  const outcomes = { completed: 0, rejected: 0, replaced: 0, failed: 0 };
  for (let id = 0; id < runs; id++) {
    const got = settled[id];
    if (got === undefined) {
      lost++;
      continue;
    }
    if (got._tag === "Rejected") outcomes.rejected++;
    else if (got._tag === "Failed") outcomes.failed++;
    else if (got.value.content.startsWith("cached")) outcomes.replaced++;
    else outcomes.completed++;
    const want = expectedOutcome(id, hookCount);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      mismatches++;
      if (examples.length < 10) examples.push(`run ${id}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    }
  }
  return {
    runs,
    hooks: hookCount,
    concurrency: runs,
    durationMs: Math.round(durationMs),
    runsPerSecond: Math.round(runs / (durationMs / 1000)),
    outcomes,
    mismatches,
    lost,
    crossTalk,
    examples,
  };
};
