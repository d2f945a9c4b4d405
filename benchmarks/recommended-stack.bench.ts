/**
 * The README's recommended stack around one tool call with a 2 KB result, on the built `dist/`
 * (what users run), against the same stack on another build of the package (by default none; give
 * `--baseline <folder>` with a built `dist/` to compare with), in one run:
 *
 *   withMiddleware(createAgentStack(), guards({ maxSteps: 20, maxTokens: 32_768, maxExecutionTime: 300 }),
 *     toolPolicy({ deny: ["Bash(rm *)", "Bash(git push*)"] }), redaction(), retry({ attempts: 3 }), metrics())
 *
 *   npm run build && npx tsx benchmarks/recommended-stack.bench.ts --baseline /tmp/baseline [--rounds 3]
 *
 * Each round starts a fresh Node process per build (in alternating order), which warms up, then
 * times batches of awaited `stack.run("toolCall", …)` calls, each batch ending with
 * `stack.flush()` so that the observers' work (metrics) is counted, on its own CPU time
 * (`process.cpuUsage`, which leaves out most of what other processes on a shared machine do).
 * Two results are measured: `text`, a 2 KB string of command output, and `json`, 2 KB of structured
 * content (an MCP `structuredContent` of small objects), which is what freezing and the redaction
 * walk cost most on. Every call is a new call object with a new result, as an agent makes them; the
 * command is the same each time (its shell analysis is cached). The figure per process is the
 * median over batches, in µs per call; the table gives min, median and max over the rounds.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");

type Shape = "text" | "json";
const shapes: readonly Shape[] = ["text", "json"];

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");

/** A tool result whose JSON is about `bytes` long. */
const resultOf = (shape: Shape, bytes: number, n: number): Record<string, unknown> => {
  if (shape === "text") {
    const lines: string[] = [];
    for (let size = 0, i = 0; size < bytes; i++) {
      const line = `-rw-r--r--  1 dev  staff  ${1000 + i * 37} Nov 28 12:${String(i % 60).padStart(2, "0")} src/module-${n}-${i}.ts`;
      size += line.length + 1;
      lines.push(line);
    }
    return { content: [{ type: "text", text: lines.join("\n") }] };
  }
  const items: Record<string, unknown>[] = [];
  for (let size = 0, i = 0; size < bytes - 60; i++) {
    const item = {
      id: `item-${n}-${i}`,
      name: `file${i}.ts`,
      size: i * 17,
      tags: ["src", "ts"],
      meta: { owner: `user${i % 7}`, ok: true },
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return { content: [{ type: "text", text: `${items.length} files` }], structuredContent: { items } };
};

/** In a fresh process: µs per call of the recommended stack from the package at `dist`. */
const child = async (dist: string, shape: Shape): Promise<void> => {
  const root = (await import(pathToFileURL(join(dist, "index.js")).href)) as Record<string, any>;
  // `metrics` needs @opentelemetry/api: newer builds export it from agent-onion/otel, older ones from the root.
  const otel = join(dist, "otel.js");
  const m = {
    ...root,
    ...(root.metrics === undefined && existsSync(otel) ? ((await import(pathToFileURL(otel).href)) as Record<string, any>) : {}),
  };
  const stack = m.withMiddleware(
    m.createAgentStack(),
    m.guards({ maxSteps: 20, maxTokens: 32_768, maxExecutionTime: 300 }),
    m.toolPolicy({ deny: ["Bash(rm *)", "Bash(git push*)"] }),
    m.redaction(),
    m.retry({ attempts: 3 }),
    m.metrics(),
  );
  let n = 0;
  const call = async (): Promise<void> => {
    const i = n++;
    const outcome = await stack.run("toolCall", { id: `call-${i}`, name: "Bash", input: { command: "ls -la src" } }, () =>
      resultOf(shape, 2048, i),
    );
    if (outcome._tag !== "Completed") throw new Error(`the call did not complete: ${JSON.stringify(outcome)}`);
  };
  // The result is built inside the operation: its cost is the same on both sides, and measured apart.
  const cpu = (): number => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const batch = 200;
  const timeBatch = async (fn: () => Promise<void>): Promise<number> => {
    const start = cpu();
    for (let k = 0; k < batch; k++) await fn();
    await stack.flush();
    return (cpu() - start) / batch;
  };
  const build = async (): Promise<void> => void resultOf(shape, 2048, n++);
  for (let until = performance.now() + 1500; performance.now() < until; ) await timeBatch(call);
  const calls: number[] = [];
  const builds: number[] = [];
  for (let r = 0; r < 25; r++) {
    calls.push(await timeBatch(call));
    builds.push(await timeBatch(build));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  process.stdout.write(JSON.stringify({ us: median(calls) - median(builds), build: median(builds) }));
};

const measure = (dist: string, shape: Shape): { us: number; build: number } => {
  const out = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", dist, "--shape", shape], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (out.status !== 0) throw new Error(`measuring ${dist} (${shape}) failed (exit ${out.status ?? out.signal})`);
  return JSON.parse(out.stdout) as { us: number; build: number };
};

const summary = (xs: readonly number[], digits = 1): string => {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(digits));
  return `${f(s[Math.floor(s.length / 2)]!)} (${f(s[0]!)}–${f(s[s.length - 1]!)})`;
};

const main = (): void => {
  const rounds = Number(args.get("rounds") ?? 3);
  const baseline = args.get("baseline");
  if (args.get("no-build") === undefined) execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const sides: [string, string][] = [["this build", join(root, "dist")]];
  if (baseline !== undefined) sides.push(["baseline", join(resolve(baseline), "dist")]);
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    `Node ${process.version}, ${cpu}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `command: npx tsx benchmarks/recommended-stack.bench.ts${baseline !== undefined ? ` --baseline ${baseline}` : ""} --rounds ${rounds}\n`,
  );
  for (const shape of shapes) {
    const us = new Map<string, number[]>(sides.map(([name]) => [name, []]));
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      const got = new Map(order.map(([name, dist]) => [name, measure(dist, shape).us]));
      for (const [name, v] of got) us.get(name)!.push(v);
      if (baseline !== undefined) ratios.push(got.get("this build")! / got.get("baseline")!);
    }
    console.log(`${shape} result (2 KB), µs per call, median (min–max) of ${rounds} processes:`);
    for (const [name] of sides) console.log(`  ${name.padEnd(11)} ${summary(us.get(name)!)}`);
    if (baseline !== undefined) console.log(`  ratio this build ÷ baseline, per round: ${summary(ratios, 2)}`);
  }
};

const childDist = args.get("child");
if (childDist !== undefined) await child(childDist, (args.get("shape") ?? "text") as Shape);
else main();
