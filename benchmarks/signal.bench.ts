/**
 * What a caller's signal or a deadline adds to a run: `stack.run` with one `around` hook and an
 * async operation, without options, with `{ signal }` (an operation that never reads
 * `ctx.signal`, and one that does), and with `{ timeoutMs }`, against a hand-written wrapper
 * that settles when its signal aborts (it adds and removes one abort listener per call); and a
 * run whose one hook is a sync `before` with its own `timeoutMs`.
 *
 *   npx tsx benchmarks/signal.bench.ts
 *
 * Not part of `npm run bench`: a check of one path, printed, not written anywhere.
 */
import { do_not_optimize, measure } from "mitata";
import { createStack, gate } from "../src/core/index.ts";
import { fmt, textTable } from "./util.ts";

const caller = new AbortController().signal;
const stack = createStack({ tool: gate<string, string>({ name: "tool" }) }, { strict: false }).use("tool", {
  name: "pass",
  around: (_ctx, next) => next(),
});
const timed = createStack({ tool: gate<string, string>({ name: "tool" }) }, { strict: false }).use("tool", {
  name: "timed",
  timeoutMs: 1000,
  before: () => undefined,
});
const op = async (x: string): Promise<string> => x;
const reads = async (x: string, ctx: { readonly signal: AbortSignal }): Promise<string> => (ctx.signal.aborted ? "" : x);

/** The least a wrapper that settles on abort does: one listener for the duration of the call. */
const handWritten = (x: string, signal: AbortSignal): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    op(x).then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve({ _tag: "Completed", value });
    });
  });

const cases: [string, () => Promise<unknown>][] = [
  ["hand-written, settles on abort (one listener)", () => handWritten("x", caller)],
  ["stack.run, no options", () => stack.run("tool", "x", op)],
  ["stack.run, { signal }", () => stack.run("tool", "x", op, { signal: caller })],
  ["stack.run, { signal }, operation reads ctx.signal", () => stack.run("tool", "x", reads, { signal: caller })],
  ["stack.run, { timeoutMs }", () => stack.run("tool", "x", op, { timeoutMs: 60_000 })],
  ["stack.run, a sync before hook with timeoutMs", () => timed.run("tool", "x", op)],
];

const rows: string[][] = [];
for (const [label, fn] of cases) {
  const best: number[] = [];
  for (let round = 0; round < 3; round++) {
    const stats = await measure(
      async () => {
        for (let k = 0; k < 32; k++) do_not_optimize(await fn());
      },
      { min_cpu_time: 150e6, batch_samples: 16, min_samples: 8 },
    );
    best.push(stats.p50 / 32);
  }
  rows.push([label, fmt(Math.min(...best))]);
}
console.log(`Node ${process.version}; ns per call, lowest of 3 rounds' medians`);
console.log(textTable(["case", "ns/call"], rows));
