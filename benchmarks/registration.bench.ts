/**
 * Registration cost: `use()` n hooks one after another, for n from 2,500 to 20,000. Linear
 * registration takes about 8 times as long for 8 times the hooks; a quadratic one about 64.
 *
 *   npm run build && npx tsx benchmarks/registration.bench.ts        # 3 fresh processes
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

type Library = typeof import("../src/index.ts");
const built = new URL("../dist/index.js", import.meta.url);

const measure = async (): Promise<void> => {
  if (!existsSync(fileURLToPath(built))) throw new Error("benchmarks/registration.bench.ts: run `npm run build` first");
  const { Continue, createStack, gate } = (await import(built.href)) as Library;
  const points = { tool: gate<{ name: string }, string>({ name: "tool", subject: (c) => c.name }) };
  const register = (n: number): number => {
    const started = performance.now();
    let stack = createStack(points);
    for (let i = 0; i < n; i++) stack = stack.use("tool", { name: `h${i}`, before: () => Continue });
    return performance.now() - started;
  };
  register(2_000);
  const small = Math.min(register(2_500), register(2_500), register(2_500));
  const large = Math.min(register(20_000), register(20_000), register(20_000));
  console.log(JSON.stringify({ smallMs: small, largeMs: large, ratio: large / small }));
};

if (process.argv.includes("--child")) await measure();
else {
  const rows = [1, 2, 3].map(() => {
    const out = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    return JSON.parse(out.stdout) as { smallMs: number; largeMs: number; ratio: number };
  });
  const sorted = (k: "smallMs" | "largeMs" | "ratio") => rows.map((r) => r[k]).sort((a, b) => a - b);
  for (const k of ["smallMs", "largeMs", "ratio"] as const) {
    const [min, median, max] = sorted(k);
    console.log(`${k.padEnd(8)} min ${min!.toFixed(2)}  median ${median!.toFixed(2)}  max ${max!.toFixed(2)}`);
  }
  console.log("2,500 vs 20,000 hooks: linear registration gives a ratio near 8, quadratic near 64");
}
