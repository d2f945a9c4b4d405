/**
 * A long session of the reference agent with the recommended middleware stack (the README's:
 * guards, toolPolicy, redaction, retry, metrics), a scripted model that calls a tool every other
 * request, and compaction on: what its heap, its store and its time per turn do as turns go by.
 * test/agent/session-memory.test.ts runs it in a child process started with `--expose-gc`;
 * benchmarks/session-memory.bench.ts reports its figures.
 *
 *   node --expose-gc --import tsx test/agent/session-memory.ts [turns] [sampleEvery]
 *
 * prints the figures as JSON.
 */
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { createAgent, createAgentStack, createScriptedModel, defineTool } from "../../src/agent/index.ts";
import { MemoryStore } from "../../src/core/index.ts";
import { guards, redaction, retry, toolPolicy, withMiddleware } from "../../src/middleware/index.ts";
import { metrics } from "../../src/otel.ts";

/** One reading, taken after a full collection. */
export interface SessionSample {
  readonly turn: number;
  readonly heapUsedBytes: number;
  /** Keys the stack's MemoryStore holds (values and reservation sets). */
  readonly storeKeys: number;
  /** Messages of the conversation after this turn (compaction keeps it bounded). */
  readonly messages: number;
  /** Mean wall time of the turns since the previous sample, in ms. */
  readonly msPerTurn: number;
}

/** The figures of a long session. */
export interface SessionFigures {
  readonly turns: number;
  readonly samples: readonly SessionSample[];
  /** Least-squares slope of heap after GC over the samples from `fromTurn` on, in bytes per turn. */
  readonly slopeBytesPerTurn: number;
  readonly fromTurn: number;
  /** Turns that did not complete (each should). */
  readonly notCompleted: number;
}

/**
 * The slope of `y` over `x` by least squares.
 *
 * @example
 * slope([0, 1, 2], [10, 12, 14]) // 2
 */
export const slope = (x: readonly number[], y: readonly number[]): number => {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((x[i] as number) - mx) * ((y[i] as number) - my);
    den += ((x[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
};

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (typeof collect !== "function") throw new Error("session-memory needs node --expose-gc");
  // Twice: the first pass can leave what finalizers and weak callbacks release for the second.
  collect();
  collect();
};

/**
 * Run `turns` turns in one session and sample heap, store and time every `sampleEvery` turns
 * (and after turn 100, the reference point of the bound).
 *
 * @example
 * const figures = await longSession({ turns: 5_000 })
 */
export const longSession = async ({ turns = 5_000, sampleEvery = 250, contextBudget = 2_000 } = {}): Promise<SessionFigures> => {
  const store = new MemoryStore();
  const stack = withMiddleware(
    createAgentStack({ store }),
    guards({ maxSteps: 20, maxTokens: 32_768, maxExecutionTime: 300 }),
    toolPolicy({ deny: ["Bash(rm *)", "Bash(git push*)"], allow: ["Echo"] }),
    redaction(),
    retry({ attempts: 3 }),
    metrics(),
  );
  const echo = defineTool<{ text?: unknown }>({
    name: "Echo",
    description: "Repeat the text",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    execute: ({ text }) => `echo: ${String(text)}`,
  });
  const model = createScriptedModel({
    turns: [],
    whenDone: (_request, index) =>
      index % 2 === 0 ? { toolCalls: [{ name: "Echo", input: { text: `note ${index}` } }] } : `Done with request ${index}.`,
  });
  const agent = createAgent({ model, tools: [echo], stack, contextBudget });
  const session = await agent.session({ source: "startup" });
  const samples: SessionSample[] = [];
  let notCompleted = 0;
  let since = performance.now();
  let sinceTurn = 0;
  const sample = async (turn: number): Promise<void> => {
    const msPerTurn = (performance.now() - since) / Math.max(1, turn - sinceTurn);
    await stack.flush();
    gc();
    samples.push({
      turn,
      heapUsedBytes: process.memoryUsage().heapUsed,
      storeKeys: store.size,
      messages: session.messages.length,
      msPerTurn,
    });
    since = performance.now();
    sinceTurn = turn;
  };
  for (let turn = 1; turn <= turns; turn++) {
    const result = await session.prompt(`Step ${turn}: write a note.`);
    if (result.status !== "completed") notCompleted++;
    if (turn === 100 || turn % sampleEvery === 0) await sample(turn);
  }
  await session.close("prompt_input_exit");
  const fromTurn = Math.min(1_000, Math.floor(turns / 5));
  const late = samples.filter((s) => s.turn >= fromTurn);
  return {
    turns,
    samples,
    fromTurn,
    slopeBytesPerTurn: slope(
      late.map((s) => s.turn),
      late.map((s) => s.heapUsedBytes),
    ),
    notCompleted,
  };
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const turns = Number(process.argv[2] ?? 5_000);
  const sampleEvery = Number(process.argv[3] ?? 250);
  longSession({ turns, sampleEvery }).then(
    (figures) => process.stdout.write(`${JSON.stringify(figures)}\n`),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
