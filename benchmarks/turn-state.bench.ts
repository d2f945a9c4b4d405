/**
 * What signing a paused turn's state costs: signing it when the turn pauses and checking it on
 * resume (canonical JSON and HMAC-SHA256 of the whole state), against the JSON round trip the
 * pause already makes of it, for histories of 0, 20 and 200 messages of 500 characters.
 *
 *   npx tsx benchmarks/turn-state.bench.ts
 *
 * Not part of `npm run bench`: a check of one path, printed. Each figure is the median of 200
 * calls; the two are interleaved call by call, 3 rounds, min / median / max of the rounds' medians.
 */
import { signTurnState, verifyTurnState, type UnsignedTurnState } from "../src/agent/turn-state.ts";
import { MemoryStore, durableApprovals } from "../src/core/index.ts";
import { fmt, textTable } from "./util.ts";

const approvals = durableApprovals({ store: new MemoryStore(), key: "a-benchmark-key-of-at-least-32-bytes" });
const text = "x".repeat(500);

const stateWith = (messages: number): UnsignedTurnState => {
  const history = Array.from({ length: messages }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `${i} ${text}` }));
  const call = { id: "call-1", name: "Bash", input: { command: "git push origin main" } };
  return JSON.parse(
    JSON.stringify({
      v: 1,
      agent: "agent",
      sessionId: "s1",
      runId: "s1#1-abcdef12",
      prompt: "deploy",
      history,
      metadata: { promptId: "p1" },
      pause: {
        messages: [...history, { role: "user", content: "deploy" }],
        step: { index: 0, response: { text: "", toolCalls: [call] }, carried: [], calls: [{ call }] },
        steps: 1,
        usage: { inputTokens: 10, outputTokens: 5 },
        blocks: 0,
      },
      spent: { steps: 1, usage: { inputTokens: 10, outputTokens: 5 } },
    }),
  );
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = (fn: () => unknown): number => {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e3;
};

const rows: string[][] = [];
for (const messages of [0, 20, 200]) {
  const state = stateWith(messages);
  const signs: number[] = [];
  const trips: number[] = [];
  for (let round = 0; round < 3; round++) {
    const s: number[] = [];
    const t: number[] = [];
    for (let i = 0; i < 200; i++) {
      s.push(time(() => verifyTurnState(approvals, signTurnState(approvals, state))));
      t.push(time(() => JSON.parse(JSON.stringify(state))));
    }
    signs.push(median(s));
    trips.push(median(t));
  }
  const range = (xs: number[]) => `${fmt(Math.min(...xs))} / ${fmt(median(xs))} / ${fmt(Math.max(...xs))}`;
  rows.push([String(messages), range(signs), range(trips), fmt(median(signs) / median(trips))]);
}
console.log(`Node ${process.version}; µs per state, min / median / max of 3 rounds' medians`);
console.log(textTable(["history messages", "sign + check", "JSON round trip", "ratio (medians)"], rows));
