/**
 * What `aiSdkRun` costs a provider call: `aiSdkMiddleware` with one pass-through `around` hook on
 * `modelCall` (and, with `--steps`, `guards()` on the stack, so each call inside a run is a step),
 * timed per call in three phases of one process:
 *
 * - `outside`: calls before any run was opened in the process (no `AsyncLocalStorage` in use);
 * - then one run is opened, and, interleaved sample by sample,
 * - `outside-after`: calls outside any run, in a process where a run was opened once (on Node 20
 *   the first `AsyncLocalStorage.run` makes every later promise of the process slower);
 * - `inside`: the same calls inside one `aiSdkRun`.
 *
 *   npx tsx benchmarks/ai-sdk-run.bench.ts [--samples 15] [--calls 4000] [--steps]
 *
 * Run it in several fresh processes: the figures are the medians of one process's samples, ns
 * per call (wall clock), with `inside / outside-after` (interleaved) and `outside-after / outside`.
 */
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { aiSdkMiddleware, aiSdkRun, createAgentStack, guards, withMiddleware } from "../src/index.ts";

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const samples = arg("samples", 15);
const calls = arg("calls", 4000);
const steps = process.argv.includes("--steps");

const result = {
  content: [{ type: "text" as const, text: "ok" }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage: { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
  warnings: [],
};
const params = { prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "Hello" }] }] };

const base = createAgentStack().use("modelCall", { name: "pass", around: (_ctx, next) => next() });
// Steps past any limit: the guards check every call, and none stops one.
const stack = steps ? withMiddleware(base, guards({ maxSteps: Number.MAX_SAFE_INTEGER, maxTokens: null, maxExecutionTime: null })) : base;
const mock = new MockLanguageModelV3({ doGenerate: async () => result });
// Its call log would grow with every call timed.
Object.defineProperty(mock, "doGenerateCalls", { value: { push: () => 0 } });
const model = wrapLanguageModel({ model: mock, middleware: aiSdkMiddleware(stack) });

const time = async (): Promise<number> => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await model.doGenerate(params as never);
  return Number(process.hrtime.bigint() - start) / calls;
};
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const outside: number[] = [];
for (let i = 0; i < 3; i++) await time();
for (let i = 0; i < samples; i++) outside.push(await time());

const after: number[] = [];
const inside: number[] = [];
await aiSdkRun(stack, {}, async () => {
  for (let i = 0; i < 3; i++) await time();
});
for (let i = 0; i < samples; i++) {
  after.push(await time());
  inside.push(await aiSdkRun(stack, {}, time));
}
const [o, a, n] = [median(outside), median(after), median(inside)];
console.log(
  JSON.stringify({
    node: process.version,
    steps,
    outside: Math.round(o),
    outsideAfter: Math.round(a),
    inside: Math.round(n),
    insideOverOutsideAfter: +(n / a).toFixed(2),
    outsideAfterOverOutside: +(a / o).toFixed(2),
  }),
);
