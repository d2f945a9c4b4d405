/**
 * What a hook's matcher costs per run: a `toolCall` stack of 20 hooks with a sync `before`, where
 * one more hook is added with each kind of match. Subject-only matchers are decided when the
 * subject's chain is compiled (nothing per run); metadata, function and composite matchers with
 * such a part are tested on every run.
 *
 *   npx tsx benchmarks/matchers.bench.ts
 *
 * Not part of `npm run bench`: a check of one path, printed, not written anywhere.
 */
import { do_not_optimize, measure } from "mitata";
import { createAgentStack, type ToolCall } from "../src/agent/index.ts";
import type { MatchSpec } from "../src/core/index.ts";
import { fmt, textTable } from "./util.ts";

const op = async (c: ToolCall): Promise<{ content: string }> => ({ content: c.name });
const call: ToolCall = Object.freeze({ id: "1", name: "Bash", input: Object.freeze({ command: "ls" }) });
const metadata = Object.freeze({ env: "prod", user: "ana" });

const stackWith = (match: MatchSpec<ToolCall> | undefined) => {
  let stack = createAgentStack();
  for (let i = 0; i < 20; i++) stack = stack.use("toolCall", { name: `h${i}`, before: () => undefined });
  return stack.use("toolCall", { name: "matched", ...(match === undefined ? {} : { match }), before: () => undefined });
};

const cases: [string, MatchSpec<ToolCall> | undefined][] = [
  ["20 hooks + 1 without match", undefined],
  ['20 hooks + 1 matching "Bash"', "Bash"],
  ['20 hooks + 1 matching "Read" (not this call)', "Read"],
  ['20 hooks + 1 with { any: ["Read", "^Ba"] } (subject only)', { any: ["Read", "^Ba"] }],
  ['20 hooks + 1 with { metadata: { env: "prod" } }', { metadata: { env: "prod" } }],
  [
    '20 hooks + 1 with { all: ["Bash", { metadata: { env: ["prod", "dev"] } }] }',
    { all: ["Bash", { metadata: { env: ["prod", "dev"] } }] },
  ],
  ["20 hooks + 1 with a function reading ctx.metadata", (_s, _c, { metadata: m }) => m.env === "prod"],
];

const rows: string[][] = [];
for (const [label, match] of cases) {
  const stack = stackWith(match);
  const best: number[] = [];
  for (let round = 0; round < 3; round++) {
    const stats = await measure(
      async () => {
        for (let k = 0; k < 16; k++) do_not_optimize(await stack.run("toolCall", call, op, { metadata }));
      },
      { min_cpu_time: 150e6, batch_samples: 16, min_samples: 8 },
    );
    best.push(stats.p50 / 16);
  }
  rows.push([label, fmt(Math.min(...best))]);
}
console.log(`Node ${process.version}; ns per call, lowest of 3 rounds' medians`);
console.log(textTable(["case", "ns/call"], rows));
