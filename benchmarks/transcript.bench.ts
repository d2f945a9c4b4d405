/**
 * What the reference agent's transcript costs: one session (open, one prompt whose answer makes
 * one tool call, then the final answer, close) with the transcript off, in the default temporary
 * directory (removed at the close), and in a directory of its own (kept), in µs at p50 and p99.
 * The difference is the transcript's: five appended lines, the file made and, by default, removed.
 * With `--heap`: the heap after a full collection along one long session (compacted to a budget, so
 * the conversation itself stays bounded), transcript off and on: what a transcript keeps in memory.
 *
 *   npx tsx benchmarks/transcript.bench.ts [--heap] [--turns 3000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { measure } from "mitata";
import { createAgent } from "../src/agent/agent.ts";
import type { AgentOptions } from "../src/agent/agent-types.ts";
import type { LanguageModel } from "../src/agent/model.ts";
import type { ModelResponse } from "../src/agent/types.ts";
import { createScriptedModel } from "../src/agent/scripted-model.ts";
import { createAgentStack } from "../src/agent/stack.ts";
import { defineTool } from "../src/agent/tool.ts";
import { summarizeOldest } from "../src/agent/compaction.ts";
import { gc } from "../test/support/gc.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

/** Heap used after a full collection, in KiB, at each of `marks` turns of one long session. */
const heapAlong = async (transcript: boolean | { dir: string }, turns: number, marks: readonly number[]): Promise<number[]> => {
  // A model that keeps nothing (the scripted one records every request).
  let calls = 0;
  const model: LanguageModel = {
    id: "plain",
    generate: async (request): Promise<ModelResponse> => {
      const usage = { inputTokens: 10, outputTokens: 5 };
      return request.messages.at(-1)!.role === "user"
        ? {
            text: "Listing.",
            toolCalls: [{ id: `call_${++calls}`, name: "Bash", input: { command: "ls" } }],
            finishReason: "tool-calls",
            usage,
          }
        : { text: "Two files.", toolCalls: [], finishReason: "stop", usage };
    },
  };
  const tools = [defineTool({ name: "Bash", execute: () => "a.txt\nb.txt" })];
  const agent = createAgent({
    model,
    stack: createAgentStack({ strict: false }),
    tools,
    transcript,
    idleNotificationMs: false,
    contextBudget: 400,
    compact: summarizeOldest({ keep: 4 }),
  });
  const session = await agent.session();
  const out: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    await session.prompt(`list the files, turn ${turn}`);
    if (marks.includes(turn)) {
      gc();
      gc();
      out.push(process.memoryUsage().heapUsed / 1024);
    }
  }
  await session.close();
  return out;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  if (args.has("heap")) {
    const turns = Number(args.get("turns") ?? 3000);
    const marks = [Math.round(turns / 6), Math.round(turns / 2), turns];
    const dir = mkdtempSync(join(tmpdir(), "agent-onion-transcript-heap-"));
    try {
      const rows: string[][] = [];
      for (const [name, transcript] of [
        ["transcript off", false],
        ["transcript on (kept)", { dir }],
        ["transcript off, again", false],
      ] as const)
        rows.push([name, ...(await heapAlong(transcript, turns, marks)).map((k) => fmt(k, 0))]);
      console.log(textTable(["heap after GC (KiB) at turn", ...marks.map(String)], rows));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  const kept = mkdtempSync(join(tmpdir(), "agent-onion-transcript-bench-"));
  const model = createScriptedModel({
    turns: [],
    whenDone: (request) =>
      request.messages.at(-1)!.role === "user"
        ? { text: "Listing.", toolCalls: [{ name: "Bash", input: { command: "ls" } }] }
        : "Two files.",
  });
  const tools = [defineTool({ name: "Bash", execute: () => "a.txt\nb.txt" })];
  const stack = createAgentStack({ strict: false });
  const agent = (transcript: NonNullable<AgentOptions["transcript"]>) =>
    createAgent({ model, stack, tools, transcript, idleNotificationMs: false });
  const cases = [
    ["transcript off", agent(false)],
    ["default directory (removed at close)", agent(true)],
    ["a directory of its own (kept)", agent({ dir: kept })],
  ] as const;
  const before = loadavg();
  const rows: string[][] = [];
  try {
    for (const [name, a] of cases) {
      const stats = await measure(async () => {
        const turn = await a.run("list the files");
        if (turn.status !== "completed") throw new Error(`unexpected ${turn.status}`);
      });
      rows.push([
        name,
        fmt(stats.p50 / 1e3, 1),
        fmt(stats.p99 / 1e3, 1),
        fmt(stats.min / 1e3, 1),
        fmt(stats.max / 1e3, 1),
        String(stats.samples.length),
      ]);
    }
  } finally {
    rmSync(kept, { recursive: true, force: true });
  }
  console.log(
    `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), load ${before.map((l) => l.toFixed(2)).join(" ")} -> ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}\n`,
  );
  console.log(textTable(["one session, one tool call (µs)", "p50", "p99", "min", "max", "samples"], rows));
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
