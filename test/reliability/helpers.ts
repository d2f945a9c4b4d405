/**
 * Shared helpers for the reliability suite: a small point set, an unhandled-rejection trap,
 * run counts that scale with `FUZZ_RUNS`, and a tally of fuzz inputs that
 * `scripts/reliability/report.ts` reads back (written only when `RELIABILITY_OUT` is set).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createStack, gate, observe } from "../../src/core/index.ts";
import type { StackOptions } from "../../src/core/index.ts";

export interface Call {
  readonly name: string;
  readonly input: Record<string, unknown>;
}
export interface Result {
  readonly content: string;
}

/** One gate and one observation point, with a detail for `Name(pattern)` conditions. */
export const points = {
  tool: gate<Call, Result>({
    name: "tool",
    subject: (c) => c.name,
    detail: (c) => (typeof c.input.command === "string" ? c.input.command : typeof c.input.path === "string" ? c.input.path : undefined),
  }),
  watch: observe<Call, Result>({ name: "watch", subject: (c) => c.name }),
};

export const newStack = (options: StackOptions = {}) => createStack(points, { strict: true, ...options });

export const call = (name = "Read", input: Record<string, unknown> = {}): Call => ({ name, input });

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * Count `unhandledRejection` events while it is installed. Vitest also fails a file on an
 * unhandled rejection; this trap lets a test assert the count itself, right where it happens.
 */
export const trapUnhandled = () => {
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => void seen.push(reason);
  process.on("unhandledRejection", listener);
  return {
    get count(): number {
      return seen.length;
    },
    seen,
    dispose: () => void process.off("unhandledRejection", listener),
  };
};

/** Let pending rejections surface as `unhandledRejection` (Node reports them after the microtask queue drains). */
export const drainRejections = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

/**
 * Runs for one fuzz property: `FUZZ_RUNS` when set (scale up on demand), else the property's
 * default, chosen to keep it to a few seconds in CI.
 */
export const fuzzRuns = (defaultRuns: number): number => {
  const env = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(env) && env > 0 ? env : defaultRuns;
};

/** A test timeout for a property of `runs` inputs at about `msPerRun` each: twice the estimate, at least 20 s. */
export const fuzzTimeout = (runs: number, msPerRun: number): number => Math.max(20_000, Math.ceil(runs * msPerRun * 2));

/** Inputs each fuzz property tried in this process, by property name. */
const tally = new Map<string, number>();

/** Count one input tried by `property`. */
export const tried = (property: string, n = 1): void => void tally.set(property, (tally.get(property) ?? 0) + n);

/**
 * Write the tally of this file's properties to `$RELIABILITY_OUT/fuzz-<file>.json` (merging
 * nothing: one file per test file). Without `RELIABILITY_OUT` nothing is written.
 */
export const writeTally = (file: string): void => {
  const dir = process.env.RELIABILITY_OUT;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `fuzz-${file}.json`);
  let previous: Record<string, number> = {};
  try {
    previous = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
  } catch {
    previous = {};
  }
  writeFileSync(out, JSON.stringify({ ...previous, ...Object.fromEntries(tally) }, null, 2));
};

export { gc } from "../support/gc.ts";

/** True when `text` has no lone surrogate (String.prototype.isWellFormed, Node 20, not in the ES2023 lib types). */
export const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();
