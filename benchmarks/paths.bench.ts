/**
 * What path rules cost per tool call: `toolPolicy` with path rules on a `Write` call, with and
 * without resolving symbolic links, for 1 and 100 rules (the path is normalised once per call,
 * whatever the number of rules), against the same policy with a name-only rule; and the cost of a
 * hostile RegExp matcher on a 10,000-character subject.
 *
 *   npx tsx benchmarks/paths.bench.ts
 *
 * Not part of `npm run bench`: a check of one path, printed, not written anywhere.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { do_not_optimize, measure } from "mitata";
import { createAgentStack, type ToolCall } from "../src/agent/index.ts";
import { compileMatcher } from "../src/core/match/matcher.ts";
import { withMiddleware } from "../src/middleware/apply.ts";
import { toolPolicy } from "../src/middleware/tool-policy.ts";
import { fmt, textTable } from "./util.ts";

const project = mkdtempSync(join(tmpdir(), "agent-onion-bench-"));
mkdirSync(join(project, "src"));
writeFileSync(join(project, "src", "a.ts"), "x");
const op = async (): Promise<{ content: string }> => ({ content: "ran" });
const stackWith = (deny: string[], symlinks = true) =>
  withMiddleware(
    createAgentStack({ strict: false }),
    toolPolicy({ deny, paths: { projectDir: project, cwd: project, symlinks }, onUnknownTool: () => {} }),
  );
const rules = (n: number) => Array.from({ length: n }, (_, i) => `Write(/etc/dir${i}/**)`);
// A fresh call object per run, as an agent makes: the per-call cache does not carry over.
const write = (path: string): ToolCall => ({ id: "1", name: "Write", input: { file_path: path } });

const cases: [string, () => Promise<unknown>][] = [
  [
    "name-only rule (Bash)",
    (
      (s) => () =>
        s.run("toolCall", write("src/a.ts"), op)
    )(stackWith(["Bash"])),
  ],
  [
    "1 path rule, existing file",
    (
      (s) => () =>
        s.run("toolCall", write("src/a.ts"), op)
    )(stackWith(rules(1))),
  ],
  [
    "1 path rule, new file in a new directory",
    (
      (s) => () =>
        s.run("toolCall", write("src/new/dir/b.ts"), op)
    )(stackWith(rules(1))),
  ],
  [
    "1 path rule, links not resolved",
    (
      (s) => () =>
        s.run("toolCall", write("src/a.ts"), op)
    )(stackWith(rules(1), false)),
  ],
  [
    "100 path rules, existing file",
    (
      (s) => () =>
        s.run("toolCall", write("src/a.ts"), op)
    )(stackWith(rules(100))),
  ],
];

const rows: string[][] = [];
for (const [label, fn] of cases) {
  const best: number[] = [];
  for (let round = 0; round < 3; round++) {
    const stats = await measure(
      async () => {
        for (let k = 0; k < 16; k++) do_not_optimize(await fn());
      },
      { min_cpu_time: 150e6, batch_samples: 16, min_samples: 8 },
    );
    best.push(stats.p50 / 16);
  }
  rows.push([label, fmt(Math.min(...best))]);
}
const hostile = compileMatcher("^(a+)+$", "hostile");
const subject = `${"a".repeat(10_000)}!`;
const regex = await measure(() => do_not_optimize(hostile.matchSubject(subject)), { min_cpu_time: 150e6 });
rows.push(["^(a+)+$ on 10,000 a's and !", fmt(regex.p50)]);
rmSync(project, { recursive: true, force: true });
console.log(`Node ${process.version}; ns per call, lowest of 3 rounds' medians (the RegExp row: median)`);
console.log(textTable(["case", "ns/call"], rows));
