import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Reject, Transform } from "../../src/core/index.ts";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import {
  chromeTraceRecorder,
  toChromeTrace,
  type ChromeTrace,
  type ChromeTraceEvent,
  type TimelineRun,
} from "../../src/middleware/chrome-trace.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { countingRedactor } from "./counting-redactor.ts";
import { bashTool } from "../agent/helpers.ts";

type Complete = Extract<ChromeTraceEvent, { ph: "X" }>;

/** The checks a trace viewer makes: shapes and types of every event, metadata for every lane, and events on a thread that nest. */
const expectWellFormed = (trace: ChromeTrace) => {
  const parsed = JSON.parse(JSON.stringify(trace)) as ChromeTrace;
  expect(parsed).toEqual(trace);
  expect(Array.isArray(parsed.traceEvents)).toBe(true);
  expect(parsed.displayTimeUnit).toBe("ms");
  const named = new Set<string>();
  for (const e of parsed.traceEvents) {
    expect(["X", "M"]).toContain(e.ph);
    expect(Number.isInteger(e.pid)).toBe(true);
    expect(typeof e.args).toBe("object");
    if (e.ph === "M") {
      expect(["process_name", "thread_name", "thread_sort_index"]).toContain(e.name);
      if (e.name === "thread_name") named.add(`${e.pid}/${e.tid}`);
      continue;
    }
    expect(typeof e.name).toBe("string");
    expect(["point", "hook"]).toContain(e.cat);
    expect(Number.isInteger(e.tid)).toBe(true);
    expect(Number.isFinite(e.ts) && e.ts >= 0).toBe(true);
    expect(Number.isFinite(e.dur) && e.dur >= 0).toBe(true);
    expect(named.has(`${e.pid}/${e.tid}`)).toBe(true);
  }
  const byThread = new Map<string, Complete[]>();
  for (const e of parsed.traceEvents)
    if (e.ph === "X") byThread.set(`${e.pid}/${e.tid}`, [...(byThread.get(`${e.pid}/${e.tid}`) ?? []), e]);
  for (const events of byThread.values()) {
    const sorted = [...events].sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const open: Complete[] = [];
    for (const e of sorted) {
      while (open.length > 0 && open.at(-1)!.ts + open.at(-1)!.dur <= e.ts) open.pop();
      const parent = open.at(-1);
      if (parent !== undefined) expect(e.ts + e.dur).toBeLessThanOrEqual(parent.ts + parent.dur + 0.001);
      open.push(e);
    }
  }
  return parsed.traceEvents;
};

const run = (over: Partial<TimelineRun>): TimelineRun => ({
  point: "toolCall",
  subject: "Bash",
  sessionId: "s1",
  runId: "r1",
  outcome: "Completed",
  startedAt: 1000,
  durationMs: 10,
  decisions: [],
  ...over,
});

describe("the Chrome trace export", () => {
  it("writes runs as complete events in microseconds, a session per process, a point per thread", () => {
    const trace = toChromeTrace([
      run({ point: "run", subject: undefined, startedAt: 1000, durationMs: 50 }),
      run({
        startedAt: 1010,
        durationMs: 5,
        decisions: [
          {
            point: "toolCall",
            runId: "r1",
            hook: "guard",
            phase: "before",
            action: "Continue",
            at: 0.5,
            startedAt: 1010.5,
            callId: "c1",
            ms: 1.25,
          },
        ],
      }),
    ]);
    const events = expectWellFormed(trace);
    const complete = events.filter((e): e is Complete => e.ph === "X");
    expect(complete.map((e) => [e.name, e.cat, e.ts, e.dur])).toEqual([
      ["run", "point", 0, 50_000],
      ["toolCall Bash", "point", 10_000, 5_000],
      ["guard before", "hook", 10_500, 1_250],
    ]);
    expect(complete[0]!.tid).not.toBe(complete[1]!.tid);
    expect(complete[1]!.tid).toBe(complete[2]!.tid);
    expect(events.filter((e) => e.name === "thread_name").map((e) => e.args.name)).toEqual(["run", "toolCall"]);
    expect(events.find((e) => e.name === "process_name")?.args.name).toBe("session s1");
  });

  it("puts overlapping runs of one point on lanes of their own, and reuses a lane once it is free", () => {
    const trace = toChromeTrace([
      run({ runId: "a", startedAt: 0, durationMs: 10 }),
      run({ runId: "b", startedAt: 5, durationMs: 10 }),
      run({ runId: "c", startedAt: 12, durationMs: 1 }),
    ]);
    const events = expectWellFormed(trace);
    const tidOf = (id: string) => (events.find((e) => e.ph === "X" && e.args.runId === id) as Complete).tid;
    expect(tidOf("a")).not.toBe(tidOf("b"));
    expect(tidOf("c")).toBe(tidOf("a"));
    expect(events.filter((e) => e.name === "thread_name").map((e) => e.args.name)).toEqual(["toolCall", "toolCall #2"]);
  });

  it("clamps decisions into their run so a thread always nests, and scrubs reasons and subjects", () => {
    const trace = toChromeTrace([
      run({
        subject: "mail bob@example.com",
        outcome: "Rejected",
        by: "no",
        reason: "AKIAIOSFODNN7EXAMPLE is a key",
        durationMs: 2,
        decisions: [
          {
            point: "toolCall",
            runId: "r1",
            hook: "no",
            phase: "before",
            action: "Reject",
            reason: "AKIAIOSFODNN7EXAMPLE is a key",
            at: 1.5,
            startedAt: 1001.5,
            callId: "c1",
            ms: 3,
          },
        ],
      }),
    ]);
    const text = JSON.stringify(expectWellFormed(trace));
    expect(text).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(text).not.toContain("bob@example.com");
    expect(text).toContain("[REDACTED:api_key] is a key");
  });

  it("scrubs hook names in event names and the rejecting hook's name, as it scrubs reasons", () => {
    const name = "notify:sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    const trace = toChromeTrace([
      run({
        outcome: "Rejected",
        by: name,
        reason: "no",
        durationMs: 2,
        decisions: [
          {
            point: "toolCall",
            runId: "r1",
            hook: name,
            phase: "before",
            action: "Reject",
            reason: "no",
            at: 0.5,
            startedAt: 1000.5,
            callId: "c1",
            ms: 1,
          },
        ],
      }),
    ]);
    const events = expectWellFormed(trace).filter((e): e is Complete => e.ph === "X");
    expect(JSON.stringify(events)).not.toContain("sk_live_4eC39HqLyjWDarjtT1zdp7dc");
    expect(events.find((e) => e.cat === "point")!.args.by).toBe("notify:[REDACTED:api_key]");
    expect(events.find((e) => e.cat === "hook")!.name).toBe("notify:[REDACTED:api_key] before");
  });

  it("scrubs each hook name once per recorder, however many runs name it and however often the trace is written", async () => {
    const { redactor, timesScrubbed } = countingRedactor();
    const timeline = chromeTraceRecorder({ redact: redactor });
    const stack = withMiddleware(createAgentStack(), timeline)
      .use("toolCall", { name: "tag", priority: 5, before: (c) => Transform({ ...c, input: { ...c.input, tagged: true } }) })
      .use("toolCall", { name: "no-rm", priority: 10, before: () => Reject("Destructive command blocked") });
    for (const id of ["1", "2"]) await stack.run("toolCall", { id, name: "Bash", input: {} }, () => ({ content: "" }));
    await stack.flush();
    timeline.toJSON();
    const events = expectWellFormed(timeline.toJSON()).filter((e): e is Complete => e.ph === "X");
    expect(events.filter((e) => e.name === "no-rm before")).toHaveLength(2);
    expect(events.filter((e) => e.args.by === "no-rm")).toHaveLength(2);
    expect([timesScrubbed("tag"), timesScrubbed("no-rm")]).toEqual([1, 1]);
  });

  it("scrubs the run id as it scrubs the session it names", async () => {
    const timeline = chromeTraceRecorder();
    const stack = withMiddleware(createAgentStack(), timeline);
    await createAgent({ model: createScriptedModel({ turns: ["ok"] }), stack }).run("hi", { sessionId: "alice.smith@example.com" });
    await stack.flush();
    const events = expectWellFormed(timeline.toJSON());
    expect(JSON.stringify(events)).not.toContain("alice.smith@example.com");
    const runIds = events.filter((e): e is Complete => e.ph === "X" && e.cat === "point").map((e) => String(e.args.runId));
    expect(runIds.length).toBeGreaterThan(0);
    for (const id of runIds) expect(id.startsWith("[REDACTED:email]#")).toBe(true);
  });

  it("is empty but valid for no runs", () => {
    expect(expectWellFormed(toChromeTrace([]))).toEqual([]);
  });

  it("records a whole agent turn through the reference loop and writes a file Perfetto can open", async () => {
    const dir = await mkdtemp(join(tmpdir(), "trace-"));
    try {
      const timeline = chromeTraceRecorder();
      const model = createScriptedModel({
        turns: [
          {
            toolCalls: [
              { name: "Bash", input: { command: "ls" } },
              { name: "Bash", input: { command: "rm -rf /" } },
            ],
          },
          "Done.",
        ],
      });
      const stack = withMiddleware(createAgentStack(), timeline)
        .use("toolCall", { name: "tag", before: (c) => Transform(c) })
        .use("toolCall", { name: "no-rm", match: "Bash(rm*)", before: () => Reject("no") });
      await createAgent({ model, stack, tools: [bashTool()] }).run("go");
      await stack.flush();
      const path = join(dir, "run.trace.json");
      await timeline.write(path);

      const trace = JSON.parse(await readFile(path, "utf8")) as ChromeTrace;
      const events = expectWellFormed(trace);
      const points = events.filter((e): e is Complete => e.ph === "X" && e.cat === "point").map((e) => e.name);
      expect(points).toEqual(
        expect.arrayContaining([
          "sessionStart startup",
          "userPrompt",
          "run",
          "step 0",
          "modelCall scripted",
          "toolCall Bash",
          "stop",
          "sessionEnd other",
        ]),
      );
      expect(
        events
          .filter((e) => e.ph === "X" && e.cat === "hook")
          .map((e) => `${e.name}:${e.args.action}`)
          .sort(),
      ).toEqual(["no-rm before:Reject", "tag before:Transform", "tag before:Transform"]);
      expect(timeline.runs.length).toBe(points.length);
      timeline.clear();
      expect(timeline.runs).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps at most maxRuns runs, dropping the oldest", async () => {
    const timeline = chromeTraceRecorder({ maxRuns: 2 });
    const stack = withMiddleware(createAgentStack(), timeline);
    for (const id of ["a", "b", "c"]) await stack.run("toolCall", { id, name: "T", input: {} }, () => ({ content: "" }), { runId: id });
    await stack.flush();
    expect(timeline.runs.map((r) => r.runId)).toEqual(["b", "c"]);
    for (const id of ["d", "e", "f"]) await stack.run("toolCall", { id, name: "T", input: {} }, () => ({ content: "" }), { runId: id });
    await stack.flush();
    expect(timeline.runs.map((r) => r.runId)).toEqual(["e", "f"]);
    expect(() => chromeTraceRecorder({ maxRuns: 0 })).toThrow(/maxRuns/);
  });

  it("refuses points that are not a list of agent point names when it is made, naming the hook and the field", () => {
    expect(() => chromeTraceRecorder({ points: "run" as never })).toThrow(
      new TypeError('chrome-trace: points must be a list of agent point names, got "run"'),
    );
  });

  it("refuses a redact option it could not use when it is made, not when the trace is written", () => {
    expect(() => chromeTraceRecorder({ redact: { strategy: "x" as never } })).toThrow(TypeError);
    expect(() => chromeTraceRecorder({ redact: { strategy: "x" as never } })).toThrow(/strategy must be one of/);
  });

  it("refuses a redact option that is not a redactor, its options or false when it is made, naming the hook and the field", () => {
    expect(() => chromeTraceRecorder({ redact: "yes" as never })).toThrow(
      new TypeError('chrome-trace: redact must be a redactor, redactor options or false, got "yes"'),
    );
    expect(() => chromeTraceRecorder({ name: "tl", redact: true as never })).toThrow(
      new TypeError("tl: redact must be a redactor, redactor options or false, got true"),
    );
    for (const redact of [false, {}, createRedactor()] as const) expect(() => chromeTraceRecorder({ redact })).not.toThrow();
  });
});
