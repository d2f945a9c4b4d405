import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command, MemorySaver } from "@langchain/langgraph";
import { HumanMessage, createAgent, fakeModel, humanInTheLoopMiddleware, type AgentMiddleware, type BaseMessage } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { langchainMiddleware, type LangChainMiddlewareOptions } from "../../src/adapters/langchain.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { AgentStack } from "../../src/agent/stack.ts";
import { Continue, Reject } from "../../src/core/index.ts";
import { approval, withMiddleware } from "../../src/middleware/index.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { MemoryStore } from "../../src/core/memory-store.ts";
import { describeRedisProcess, startRedis, type RedisServer } from "../support/redis.ts";
import { answer, bashTool, logged, loggingBash, transcript } from "./langchain-fixtures.ts";
import { saveCheckpoints } from "./langchain-saver.ts";
import { scaled } from "../support/scale.ts";

type Result = { messages: BaseMessage[]; __interrupt__?: { id: string; value: unknown }[] };
const thread = (id = "approvals") => ({ configurable: { thread_id: id } });

/** An agent whose model asks for `git push`, then answers "pushed"; bash needs approval. */
const pushAgent = (
  options: {
    stack?: AgentStack;
    middleware?: AgentMiddleware;
    checkpointer?: MemorySaver | undefined;
    tools?: Parameters<typeof createAgent>[0]["tools"];
  } = {},
) => {
  const { bash, ran } = bashTool();
  const stack = options.stack ?? withMiddleware(createAgentStack(), approval({ match: "bash" }));
  const model = fakeModel()
    .respondWithTools([{ name: "bash", args: { command: "git push" }, id: "c1" }])
    .respond(answer("pushed"));
  const checkpointer = "checkpointer" in options ? options.checkpointer : new MemorySaver();
  const agent = createAgent({
    model,
    tools: options.tools ?? [bash],
    middleware: [options.middleware ?? langchainMiddleware(stack)],
    ...(checkpointer !== undefined ? { checkpointer } : {}),
  });
  return { agent, ran, model, checkpointer };
};

const start = (agent: ReturnType<typeof createAgent>, config = thread()) =>
  agent.invoke({ messages: [new HumanMessage("push it")] }, config) as Promise<Result>;
const resume = (agent: ReturnType<typeof createAgent>, value: unknown, config = thread()) =>
  agent.invoke(new Command({ resume: value }), config) as Promise<Result>;

describe("langchainMiddleware approvals through LangGraph interrupts", () => {
  it("pauses a call the approval hook asks about, with the request LangChain's own human-in-the-loop makes", async () => {
    const ours = pushAgent();
    const paused = await start(ours.agent);
    const theirs = pushAgent({
      middleware: humanInTheLoopMiddleware({
        interruptOn: { bash: { allowedDecisions: ["approve", "edit", "reject"], description: "bash wants to run" } },
      } as never) as unknown as AgentMiddleware,
    });
    const theirPause = await start(theirs.agent);
    expect(ours.ran).toEqual([]);
    expect(paused.__interrupt__?.map((i) => i.value)).toEqual(theirPause.__interrupt__?.map((i) => i.value));
    expect(paused.__interrupt__?.[0]?.value).toEqual({
      actionRequests: [{ name: "bash", args: { command: "git push" }, description: "bash wants to run" }],
      reviewConfigs: [{ actionName: "bash", allowedDecisions: ["approve", "edit", "reject"] }],
    });
  });

  it("runs the call once the person approves, and the run goes on", async () => {
    const { agent, ran } = pushAgent();
    await start(agent);
    const done = await resume(agent, { decisions: [{ type: "approve" }] });
    expect(ran).toEqual(["git push"]);
    expect(transcript(done.messages)).toEqual(["human: push it", "ai: push it", "tool: ran: git push", "ai: pushed"]);
  });

  it("runs the arguments the person edited", async () => {
    const { agent, ran } = pushAgent();
    await start(agent);
    await resume(agent, { decisions: [{ type: "edit", editedAction: { name: "bash", args: { command: "git push --dry-run" } } }] });
    expect(ran).toEqual(["git push --dry-run"]);
  });

  it("refuses the call with the person's message, which the model reads", async () => {
    const { agent, ran, model } = pushAgent();
    await start(agent);
    const done = await resume(agent, { decisions: [{ type: "reject", message: "not on a Friday" }] });
    expect(ran).toEqual([]);
    expect(transcript(done.messages)).toContain(
      "tool(error): Tool call bash was rejected by approval: bash was not approved: not on a Friday",
    );
    expect(model.calls.at(-1)?.messages.at(-1)?.text).toBe(
      "Tool call bash was rejected by approval: bash was not approved: not on a Friday",
    );
  });

  it("reads an agent-onion decision as a resume value too, and refuses what it cannot read", async () => {
    const first = pushAgent();
    await start(first.agent);
    await resume(first.agent, { decision: "approve" });
    expect(first.ran).toEqual(["git push"]);
    const second = pushAgent();
    await start(second.agent);
    const done = await resume(second.agent, "yes please");
    expect(second.ran).toEqual([]);
    expect(transcript(done.messages).find((l) => l.startsWith("tool"))).toMatch(/^tool\(error\): .*the resume value is not a decision/);
  });

  it("does not run the call again when the same pause is resumed twice in a row", async () => {
    const { agent, ran } = pushAgent();
    await start(agent);
    await resume(agent, { decisions: [{ type: "approve" }] });
    await resume(agent, { decisions: [{ type: "approve" }] });
    expect(ran).toEqual(["git push"]);
  });

  it("pauses each of several calls on its own, each resumed by its interrupt id", async () => {
    const { bash, ran } = bashTool();
    const model = fakeModel()
      .respondWithTools([
        { name: "bash", args: { command: "make" }, id: "c1" },
        { name: "bash", args: { command: "make install" }, id: "c2" },
      ])
      .respond(answer("built"));
    const agent = createAgent({
      model,
      tools: [bash],
      middleware: [langchainMiddleware(withMiddleware(createAgentStack(), approval({ match: "bash" })))],
      checkpointer: new MemorySaver(),
    });
    const paused = await start(agent);
    const pending = paused.__interrupt__ ?? [];
    expect(pending.map((i) => (i.value as { actionRequests: { args: unknown }[] }).actionRequests[0]?.args)).toEqual([
      { command: "make" },
      { command: "make install" },
    ]);
    const answers = Object.fromEntries(
      pending.map((i, n) => [i.id, { decisions: [n === 0 ? { type: "approve" } : { type: "reject", message: "not yet" }] }]),
    );
    const done = await resume(agent, answers);
    expect(ran).toEqual(["make"]);
    expect(transcript(done.messages).filter((l) => l.startsWith("tool"))).toEqual([
      "tool: ran: make",
      "tool(error): Tool call bash was rejected by approval: bash was not approved: not yet",
    ]);
  });

  it("pauses once for each hook that asks about one call, and runs the call once every one approved", async () => {
    const stack = withMiddleware(
      createAgentStack(),
      approval({ name: "lead", match: "bash" }),
      approval({ name: "security", match: "bash", priority: 30, reason: "security review" }),
    );
    const { agent, ran } = pushAgent({ stack });
    const first = await start(agent);
    const second = await resume(agent, { decisions: [{ type: "approve" }] });
    const done = await resume(agent, { decisions: [{ type: "approve" }] });
    const asked = (r: Result) =>
      r.__interrupt__?.map((i) => (i.value as { actionRequests: { description: string }[] }).actionRequests[0]?.description);
    expect([asked(first), asked(second), asked(done)]).toEqual([["bash wants to run"], ["security review"], undefined]);
    expect(ran).toEqual(["git push"]);
  });

  it("runs a call approved by interrupt id once, however often that resume is sent at the same time", async () => {
    const { agent, ran } = pushAgent();
    const paused = await start(agent);
    const id = (paused.__interrupt__ as { id: string }[])[0]!.id;
    const order = () =>
      resume(agent, { [id]: { decisions: [{ type: "approve" }] } }).then(
        () => "ok",
        (e: Error) => e.name,
      );
    await Promise.all([order(), order()]);
    expect(ran).toEqual(["git push"]);
  });

  it("takes each hook's answer once with a shared store too: the task run again replays the earlier answer, which is no second use", async () => {
    const stack = withMiddleware(
      createAgentStack(),
      approval({ name: "lead", match: "bash" }),
      approval({ name: "security", match: "bash", priority: 30, reason: "security review" }),
    );
    const { agent, ran } = pushAgent({ stack, middleware: langchainMiddleware(stack, { store: new MemoryStore() }) });
    await start(agent);
    const second = await resume(agent, { decisions: [{ type: "approve" }] });
    expect(second.__interrupt__).toHaveLength(1);
    await resume(agent, { decisions: [{ type: "approve" }] });
    expect(ran).toEqual(["git push"]);
  });

  it("runs a call two hooks approved once, when the last resume is sent twice by interrupt id", async () => {
    const stack = withMiddleware(
      createAgentStack(),
      approval({ name: "lead", match: "bash" }),
      approval({ name: "security", match: "bash", priority: 30, reason: "security review" }),
    );
    const { agent, ran } = pushAgent({ stack, middleware: langchainMiddleware(stack, { store: new MemoryStore() }) });
    await start(agent);
    const second = await resume(agent, { decisions: [{ type: "approve" }] });
    const id = (second.__interrupt__ as { id: string }[])[0]!.id;
    const order = () =>
      resume(agent, { [id]: { decisions: [{ type: "approve" }] } }).then(
        () => "ok",
        (e: Error) => e.name,
      );
    await Promise.all([order(), order()]);
    expect(ran).toEqual(["git push"]);
  });

  it("pauses only the calls hooks ask about: a guard's refusal and an allowed call go on", async () => {
    const { bash, ran } = bashTool();
    const stack = withMiddleware(
      createAgentStack().use("toolCall", { name: "no-rm", match: "bash(rm*)", before: () => Reject("no deleting") }),
      approval({ match: "bash(git push*)" }),
    );
    const model = fakeModel()
      .respondWithTools([
        { name: "bash", args: { command: "rm x" }, id: "c1" },
        { name: "bash", args: { command: "ls" }, id: "c2" },
      ])
      .respond(answer("ok"));
    const agent = createAgent({ model, tools: [bash], middleware: [langchainMiddleware(stack)], checkpointer: new MemorySaver() });
    const result = await start(agent);
    expect(result.__interrupt__).toBeUndefined();
    expect(ran).toEqual(["ls"]);
  });

  it("fails without a checkpointer as LangChain's own human-in-the-loop fails", async () => {
    const failure = async (middleware?: AgentMiddleware) => {
      const { agent } = pushAgent({ checkpointer: undefined, ...(middleware !== undefined ? { middleware } : {}) });
      return start(agent).then(
        () => undefined,
        (e: Error) => e,
      );
    };
    const ours = await failure();
    const theirs = await failure(humanInTheLoopMiddleware({ interruptOn: { bash: true } } as never) as unknown as AgentMiddleware);
    expect(ours?.message).toBe(theirs?.message);
    expect(ours?.message).toMatch(/No checkpointer set/);
  });

  it("asks the stack's approval handler in process with approvals: handler", async () => {
    const asked: unknown[] = [];
    const stack = withMiddleware(
      createAgentStack({ approval: (request) => (asked.push(request.input), { decision: "approve" }) }),
      approval({ match: "bash" }),
    );
    const { agent, ran } = pushAgent({
      middleware: langchainMiddleware(stack, { approvals: "handler" } satisfies LangChainMiddlewareOptions),
      checkpointer: undefined,
    });
    const done = await start(agent);
    expect(done.__interrupt__).toBeUndefined();
    expect(asked).toEqual([{ id: "c1", name: "bash", input: { command: "git push" } }]);
    expect(ran).toEqual(["git push"]);
  });

  it("records the paused call as aborted for observers, and the resumed one as completed", async () => {
    const outcomes: string[] = [];
    const watch = createAgentStack().use("toolCall", {
      name: "watch",
      observe: (event) =>
        void outcomes.push(
          event.outcome._tag === "Failed"
            ? `Failed: ${(event.outcome.error as Error).name} (${((event.outcome.error as Error).cause as Error).name})`
            : event.outcome._tag,
        ),
    });
    const stack = withMiddleware(watch, approval({ match: "bash" }));
    const { agent } = pushAgent({ stack });
    await start(agent);
    await resume(agent, { decisions: [{ type: "approve" }] });
    await stack.flush();
    expect(outcomes).toEqual(["Failed: RunAbortedError (ApprovalPendingError)", "Completed"]);
  });

  it("keeps a hook that does not ask out of the pause", async () => {
    const seen: string[] = [];
    const stack = withMiddleware(
      createAgentStack().use("toolCall", { name: "log", after: (r) => (seen.push(String(r.content)), Continue) }),
      approval({ match: "bash" }),
    );
    const { agent } = pushAgent({ stack });
    await start(agent);
    expect(seen).toEqual([]);
    await resume(agent, { decisions: [{ type: "approve" }] });
    expect(seen).toEqual(["ran: git push"]);
  });
});

const worker = fileURLToPath(new URL("./langchain-resume-worker.ts", import.meta.url));
type Report = { ok: true; transcript: string[] } | { ok: false; name: string; message: string; cause?: string };
const resumeElsewhere = (args: string[]): Promise<Report> =>
  new Promise((resolve, reject) => {
    const child = fork(worker, args, { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let report: Report | undefined;
    child.once("message", (m) => (report = m as Report));
    child.once("exit", (code) =>
      report !== undefined ? resolve(report) : reject(new Error(`worker exited with ${String(code)} before reporting`)),
    );
  });

describe("langchainMiddleware approvals across OS processes", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "agent-onion-langchain-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Pause in this process with a tool that logs to `log`, over `store` if given; the checkpoints go to a file. */
  const pauseHere = async (name: string, store?: RedisStore) => {
    const log = join(dir, `${name}.log`);
    const file = join(dir, `${name}.json`);
    const checkpointer = new MemorySaver();
    const stack = withMiddleware(createAgentStack(), approval({ match: "bash" }));
    const middleware = store !== undefined ? langchainMiddleware(stack, { store }) : undefined;
    const { agent } = pushAgent({ checkpointer, tools: [loggingBash(log)], ...(middleware !== undefined ? { middleware } : {}) });
    const paused = await start(agent);
    saveCheckpoints(checkpointer, file);
    return { log, file, paused };
  };

  it(
    "refuses an answer in a second process without a shared store, saying so: only the process that asked can take it",
    async () => {
      const { log, file, paused } = await pauseHere("unshared");
      expect(paused.__interrupt__).toHaveLength(1);
      const report = await resumeElsewhere([file, log, JSON.stringify({ decisions: [{ type: "approve" }] })]);
      expect(report).toMatchObject({ ok: true });
      const tool = (report as { transcript: string[] }).transcript.find((l) => l.startsWith("tool"));
      expect(tool).toMatch(/not an approval of this call: .*no shared store/);
      expect(logged(log)).toEqual([]);
    },
    scaled(60_000),
  );

  describeRedisProcess("with a Redis store claiming each answer", () => {
    let server: RedisServer;
    beforeAll(async () => void (server = await startRedis()));
    afterAll(async () => await server?.stop());

    it(
      "resumes in a second process with the person's decision, and the tool runs there, once",
      async () => {
        const asking = new RedisStore({ connection: server.url });
        const { log, file, paused } = await pauseHere("edit", asking).finally(() => asking.close());
        expect(paused.__interrupt__).toHaveLength(1);
        expect(logged(log)).toEqual([]);
        const report = await resumeElsewhere([
          file,
          log,
          JSON.stringify({ decisions: [{ type: "edit", editedAction: { name: "bash", args: { command: "git push --dry-run" } } }] }),
          server.url,
        ]);
        expect(report).toEqual({ ok: true, transcript: ["human: push it", "ai: push it", "tool: ran: git push --dry-run", "ai: pushed"] });
        expect(logged(log)).toEqual(["git push --dry-run"]);
      },
      scaled(60_000),
    );

    it(
      "refuses a second resume of the same pause in another process, and the tool does not run again",
      async () => {
        // Every process of the deployment shares the store: the one that asks keeps the question there.
        const asking = new RedisStore({ connection: server.url });
        const { log, file } = await pauseHere("claim", asking).finally(() => asking.close());
        const approve = JSON.stringify({ decisions: [{ type: "approve" }] });
        const first = await resumeElsewhere([file, log, approve, server.url]);
        expect(first.ok).toBe(true);
        // The same saved pause, resumed again elsewhere (a retried webhook, a second worker).
        const second = await resumeElsewhere([file, log, approve, server.url]);
        expect(second).toMatchObject({ ok: false, cause: "ApprovalResumedError", message: expect.stringMatching(/already answered/) });
        expect(logged(log)).toEqual(["git push"]);
        const store = new RedisStore({ connection: server.url });
        try {
          expect(await store.get<number>(`langchain:resume:approvals:${encodeURIComponent(await claimNamespace(file))}:0`)).toBe(2);
        } finally {
          await store.close();
        }
      },
      scaled(60_000),
    );
  });
});

/** The checkpoint namespace of the paused tool task, as the worker's runtime sees it (from the saved pending writes). */
const claimNamespace = async (file: string): Promise<string> => {
  const { loadCheckpoints } = await import("./langchain-saver.ts");
  const saver = loadCheckpoints(file);
  const tuple = await saver.getTuple(thread());
  const task = tuple?.pendingWrites?.find(([, channel]) => channel === "__interrupt__")?.[0];
  return `tools:${String(task)}`;
};
