/**
 * Metrics around provider calls: one `around` hook on `modelCall` times every call and reads
 * its usage, for `generate` and for streams alike (streams also report the time to the first
 * chunk). Works with any loop through `wrapModel`.
 *
 * Run: node --import tsx examples/metrics.ts
 * @expect calls measured: 2
 */
import { Priority, createAgentStack, createScriptedModel, wrapModel, type ModelResponse } from "agent-onion";

interface Sample {
  readonly model: string;
  readonly ms: number;
  readonly tokens: number;
  readonly ttfcMs?: number | undefined;
  readonly outcome: string;
}
const samples: Sample[] = [];

const stack = createAgentStack().use("modelCall", {
  name: "latency-and-usage",
  priority: Priority.telemetry,
  around: async (ctx, next) => {
    const started = performance.now();
    const outcome = await next();
    const response = outcome._tag === "Completed" ? (outcome.value as ModelResponse) : undefined;
    samples.push({
      model: ctx.subject ?? "?",
      ms: performance.now() - started,
      tokens: response ? response.usage.inputTokens + response.usage.outputTokens : 0,
      ttfcMs: response?.timeToFirstChunkMs,
      outcome: outcome._tag,
    });
    return outcome;
  },
});

const model = wrapModel(
  stack,
  createScriptedModel({ id: "demo-model", turns: ["Hello!", "A streamed hello, chunk by chunk."], chunkSize: 6, delayMs: 5 }),
);
const messages = [{ role: "user" as const, content: "Say hello" }];

await model.generate({ model: model.id, messages });
let streamed = "";
for await (const part of model.stream({ model: model.id, messages })) if (part.type === "text-delta") streamed += part.text;
console.log(`streamed: ${streamed}`);

for (const s of samples)
  console.log(
    `modelCall ${s.model} ${s.outcome} ${s.ms.toFixed(1)} ms, ${s.tokens} tokens${s.ttfcMs !== undefined ? `, first chunk after ${s.ttfcMs.toFixed(1)} ms` : ""}`,
  );
console.log(`calls measured: ${samples.length}`);
