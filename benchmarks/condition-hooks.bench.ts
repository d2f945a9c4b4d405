/**
 * 1,000 `Bash(...)` condition hooks on one tool call against one such hook, on the built `dist/`
 * (what users run), with the stack's defaults (inputs frozen), in fresh processes; optionally
 * against another build (`--baseline <folder>` holding a built `dist/`), in the same run:
 *
 *   npm run build && npx tsx benchmarks/condition-hooks.bench.ts [--baseline /tmp/baseline] [--rounds 3]
 *
 * Each call carries a command the process has not seen (a counter in a comment), so the shell
 * analysis runs once per call, as for an agent's calls; every hook tests a different pattern that
 * does not match. Each process warms up, then times batches on its own CPU time
 * (`process.cpuUsage`); its figure is the median over batches. The table gives min, median and
 * max over the rounds.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");

interface Figures {
  readonly one: number;
  readonly thousand: number;
}

/**
 * What a fresh process runs: µs per call with one condition hook and with 1,000, from the package
 * at `DIST`. Plain JavaScript run by `node` itself, as users run the package, with no TypeScript
 * loader in the process.
 */
const childSource = `
const m = await import(process.env.DIST);
const stackOf = (hooks) => {
  let stack = m.createAgentStack();
  for (let i = 0; i < hooks; i++) stack = stack.use("toolCall", { name: "h" + i, match: "Bash(tool" + i + " *)", before: () => m.Continue });
  return stack;
};
let n = 0;
const call = () => ({ id: "c", name: "Bash", input: { command: "git status --short && npm test 2>&1 | tail -5 # " + n++ } });
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
const perCall = async (stack, calls) => {
  const start = cpu();
  for (let i = 0; i < calls; i++) {
    const outcome = await stack.run("toolCall", call(), () => ({ content: "" }));
    if (outcome._tag !== "Completed") throw new Error("the call did not complete: " + JSON.stringify(outcome));
  }
  return (cpu() - start) / calls;
};
const one = stackOf(1);
const thousand = stackOf(1000);
for (let until = performance.now() + 1500; performance.now() < until; ) {
  await perCall(one, 200);
  await perCall(thousand, 20);
}
const a = [];
const b = [];
for (let r = 0; r < 15; r++) {
  a.push(await perCall(one, 500));
  b.push(await perCall(thousand, 50));
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
process.stdout.write(JSON.stringify({ one: median(a), thousand: median(b) }));
`;

const measure = (dist: string): Figures => {
  const out = spawnSync(process.execPath, ["--input-type=module", "--eval", childSource], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production", DIST: pathToFileURL(join(dist, "index.js")).href },
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (out.status !== 0) throw new Error(`measuring ${dist} failed (exit ${out.status ?? out.signal})`);
  return JSON.parse(out.stdout) as Figures;
};

const summary = (xs: readonly number[], digits = 1): string => {
  const s = [...xs].sort((x, y) => x - y);
  const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(digits));
  return `${f(s[Math.floor(s.length / 2)]!)} (${f(s[0]!)}–${f(s[s.length - 1]!)})`;
};

const main = (): void => {
  const rounds = Number(args.get("rounds") ?? 3);
  const baseline = args.get("baseline");
  const sides: [string, string][] = [["this build", join(root, "dist")]];
  if (baseline !== undefined) sides.push(["baseline", join(resolve(baseline), "dist")]);
  console.log(
    `Node ${process.version}, ${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `command: npx tsx benchmarks/condition-hooks.bench.ts${baseline !== undefined ? ` --baseline ${baseline}` : ""} --rounds ${rounds}\n`,
  );
  const got = new Map<string, Figures[]>(sides.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++)
    for (const [name, dist] of r % 2 === 0 ? sides : [...sides].reverse()) got.get(name)!.push(measure(dist));
  console.log(`µs per call, median (min–max) of ${rounds} processes:`);
  for (const [name] of sides) {
    const figures = got.get(name)!;
    console.log(
      `  ${name.padEnd(11)} 1 hook ${summary(figures.map((f) => f.one))}, 1,000 hooks ${summary(figures.map((f) => f.thousand))}, ratio ${summary(
        figures.map((f) => f.thousand / f.one),
        2,
      )}`,
    );
  }
};

main();
