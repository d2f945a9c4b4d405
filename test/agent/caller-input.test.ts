import { describe, expect, it } from "vitest";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  outputGate,
  sleep,
  streamStarter,
  streamThroughStack,
  wrapModel,
  wrapTool,
  type ModelRequest,
} from "../../src/agent/index.ts";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { collect, request } from "./stream-helpers.ts";
import { settlesWithin } from "../support/timers.ts";

/** An object every read of which throws, as a hostile or broken caller might pass. */
const hostile = (): never =>
  new Proxy(
    {},
    {
      get: () => {
        throw new Error("read refused");
      },
    },
  ) as never;

/** Run `call`; what it did, as data: a synchronous throw is the failure these tests look for. */
const attempt = (call: () => unknown): { threw: unknown } | { value: unknown } => {
  try {
    return { value: call() };
  } catch (threw) {
    return { threw };
  }
};

describe("sleep with bad arguments", () => {
  it("rejects with a TypeError before any timer starts, so nothing throws later", async () => {
    for (const [ms, signal] of [
      [20, {}],
      [20, hostile()],
      [Infinity, undefined],
      [Number.NaN, undefined],
    ] as const) {
      const outcome = attempt(() => sleep(ms, signal as never));
      expect(outcome).toHaveProperty("value");
      await expect((outcome as { value: Promise<void> }).value).rejects.toThrow(TypeError);
    }
    // The timer a bad signal used to leave behind threw when it fired, 20 ms later: wait past it.
    await sleep(40);
  });

  it("still resolves when a lookalike signal's removeEventListener throws", async () => {
    const signal = {
      aborted: false,
      addEventListener: () => {},
      removeEventListener: () => {
        throw new Error("remove boom");
      },
    } as unknown as AbortSignal;
    await expect(sleep(5, signal)).resolves.toBeUndefined();
  });
});

describe("streamed calls with bad options", () => {
  const stack = createAgentStack();
  const model = createScriptedModel({ turns: ["hi"], whenDone: "hi" });
  const cases: [string, unknown, RegExp][] = [
    ["null options", null, /options must be an object/],
    ["a signal that is not an AbortSignal", { signal: {} }, /signal must be an AbortSignal/],
    ["options that throw when read", hostile(), /read refused/],
    ["an unknown hold-back", { holdBack: "bogus" }, /holdBack must be "none", "all" or \{ window: n \}/],
    ["a hold-back window of NaN", { holdBack: { window: Number.NaN } }, /holdBack must be/],
  ];
  for (const [what, options, message] of cases)
    it(`end with a Failed outcome and an error part for ${what}, without throwing`, async () => {
      const started = attempt(() => streamThroughStack(stack, request(), streamStarter(model), options as never));
      expect(started).toHaveProperty("value");
      const call = (started as { value: ReturnType<typeof streamThroughStack> }).value;
      const outcome = await call.outcome;
      expect(outcome._tag).toBe("Failed");
      expect(String((outcome as { error: unknown }).error)).toMatch(message);
      const parts = await collect(call.parts);
      expect(parts.map((p) => p.type)).toEqual(["error"]);
      expect(model.requests).toHaveLength(0); // the provider was never called
    });

  it("end wrapModel's stream with an error part when its options throw when read", async () => {
    const wrapped = wrapModel(stack, createScriptedModel({ turns: ["hi"] }));
    const started = attempt(() => wrapped.stream(request() as ModelRequest, hostile()));
    expect(started).toHaveProperty("value");
    const parts = await collect((started as { value: AsyncIterable<never> }).value);
    expect(parts.map((p) => p.type)).toEqual(["error"]);
    expect((await wrapped.streamWithOutcome(request(), { signal: "stop" as never }).outcome)._tag).toBe("Failed");
  });
});

describe("wrapTool(...).call with a bad call or options", () => {
  const tool = wrapTool(createAgentStack(), { name: "Echo", execute: () => "ok" });

  it("rejects with a TypeError naming the tool for a call that is not an object", async () => {
    const outcome = attempt(() => tool.call(null as never));
    expect(outcome).toHaveProperty("value");
    await expect((outcome as { value: Promise<unknown> }).value).rejects.toThrow(/wrapTool\(Echo\)\.call: the call must be an object/);
  });

  it("rejects, rather than throws, when the call or the options throw when read", async () => {
    for (const [call, options] of [
      [hostile(), undefined],
      [{ id: "1", input: {} }, hostile()],
    ] as const) {
      const outcome = attempt(() => tool.call(call as never, options as never));
      expect(outcome).toHaveProperty("value");
      await expect((outcome as { value: Promise<unknown> }).value).rejects.toThrow("read refused");
    }
  });
});

describe("settings refused where they are made, not by every later call", () => {
  const model = createScriptedModel({ turns: ["ok"], whenDone: "ok" });

  it("createAgent refuses a sub-agent's maxSteps of NaN or -1, and a sub-agent tool without execute", () => {
    const stack = createAgentStack();
    expect(() => createAgent({ model, stack, subagents: [{ name: "helper", maxSteps: Number.NaN }] })).toThrow(
      /createAgent: subagent "helper": maxSteps must be an integer of at least 1, got NaN/,
    );
    expect(() => createAgent({ model, stack, subagents: [{ name: "helper", maxSteps: -1 }] })).toThrow(
      /maxSteps must be an integer of at least 1, got -1/,
    );
    expect(() => createAgent({ model, stack, subagents: [{ name: "helper", tools: [{ name: "Read" } as never] }] })).toThrow(
      /tool "Read" of subagent "helper" has no execute function/,
    );
  });

  it("createAgent refuses an unknown stream hold-back", () => {
    expect(() => createAgent({ model, stack: createAgentStack(), stream: { holdBack: "bogus" as never } })).toThrow(
      /createAgent: stream\.holdBack must be/,
    );
    expect(() => createAgent({ model, stack: createAgentStack(), stream: { holdBack: { window: -1 } } })).toThrow(TypeError);
    // A window of 0 holds nothing back, and Infinity everything: both were accepted before these checks and still are.
    for (const window of [0, 2.5, Infinity])
      expect(() => createAgent({ model, stack: createAgentStack(), stream: { holdBack: { window } } })).not.toThrow();
  });

  it("wrapModel and aiSdkMiddleware refuse an unknown hold-back when made, not on every stream", () => {
    expect(() => wrapModel(createAgentStack(), model, { holdBack: { window: Number.NaN } })).toThrow(/wrapModel: holdBack must be/);
    expect(() => aiSdkMiddleware(createAgentStack(), { holdBack: "some" as never })).toThrow(/aiSdkMiddleware: holdBack must be/);
    expect(() => wrapModel(createAgentStack(), model, { holdBack: { window: 0 } })).not.toThrow();
  });

  it("outputGate refuses a hold-back of none (its check could never stop text already sent) and a missing check", () => {
    expect(() => outputGate({ name: "g", holdBack: "none" as never, check: () => undefined })).toThrow(
      /outputGate "g": holdBack must be "all" or \{ window: n \}/,
    );
    expect(() => outputGate({ name: "g", holdBack: { window: Number.NaN }, check: () => undefined })).toThrow(TypeError);
    expect(() => outputGate({ name: "g", check: 5 as never })).toThrow(/outputGate "g": check must be a function/);
  });

  it("agent.session refuses messages that are not an array, instead of every prompt failing later", async () => {
    const agent = createAgent({ model, stack: createAgentStack() });
    await expect(agent.session({ messages: 5 as never })).rejects.toThrow(/agent\.session: messages must be an array/);
    await expect(agent.session(null as never)).rejects.toThrow(/agent\.session: options must be an object/);
  });
});

/** A signal from a polyfill or another realm: it looks like an AbortSignal but is not Node's own. */
const lookalikeSignal = () => {
  const listeners = new Set<() => void>();
  const signal = {
    aborted: false,
    reason: undefined as unknown,
    addEventListener: (_type: string, fn: () => void) => void listeners.add(fn),
    removeEventListener: (_type: string, fn: () => void) => void listeners.delete(fn),
  };
  const abort = (reason: unknown) => {
    Object.assign(signal, { aborted: true, reason });
    for (const fn of [...listeners]) fn();
  };
  return { signal: signal as unknown as AbortSignal, abort, listeners };
};

describe("a session whose signal and prompt signal are both lookalikes", () => {
  it("combines them by hand, answers the prompt, and leaves no listener on either", async () => {
    const session = lookalikeSignal();
    const prompt = lookalikeSignal();
    const agent = createAgent({ model: createScriptedModel({ turns: ["hello"], whenDone: "hello" }), stack: createAgentStack() });
    const turn = await (await agent.session({ signal: session.signal })).prompt("hi", { signal: prompt.signal });
    expect([turn.status, turn.text]).toEqual(["completed", "hello"]);
    expect([session.listeners.size, prompt.listeners.size]).toEqual([0, 0]);
  });

  it("ends the turn as aborted when the prompt's lookalike signal aborts while the model answers", async () => {
    const prompt = lookalikeSignal();
    const model = createScriptedModel({ turns: ["a long answer"], firstChunkDelayMs: 5_000 });
    const agent = createAgent({ model, stack: createAgentStack() });
    const session = await agent.session({ signal: lookalikeSignal().signal });
    setTimeout(() => prompt.abort(new Error("user left")), 20);
    const turning = session.prompt("hi", { signal: prompt.signal });
    expect(await settlesWithin(2_000, turning)).toBe(true); // not after the model's 5 s first chunk
    const turn = await turning;
    expect(turn.status).toBe("aborted");
  });

  it("answers the prompt when both lookalikes throw from removeEventListener, which only keeps their listeners", async () => {
    const throwing = () =>
      ({
        ...lookalikeSignal().signal,
        removeEventListener: () => {
          throw new Error("remove boom");
        },
      }) as unknown as AbortSignal;
    const agent = createAgent({ model: createScriptedModel({ turns: ["hello"], whenDone: "hello" }), stack: createAgentStack() });
    const turn = await (await agent.session({ signal: throwing() })).prompt("hi", { signal: throwing() });
    expect([turn.status, turn.text]).toEqual(["completed", "hello"]);
  });

  it("ends the turn as aborted when a lone lookalike signal (no throwIfAborted) aborts while the model answers", async () => {
    const prompt = lookalikeSignal();
    const model = createScriptedModel({ turns: ["a long answer"], firstChunkDelayMs: 5_000 });
    const session = await createAgent({ model, stack: createAgentStack() }).session();
    setTimeout(() => prompt.abort(new Error("user left")), 20);
    const turn = await session.prompt("hi", { signal: prompt.signal });
    expect(turn.status).toBe("aborted");
  });

  it("ends the turn as aborted when the prompt's lookalike signal is already aborted", async () => {
    const prompt = lookalikeSignal();
    prompt.abort(new Error("user left"));
    const agent = createAgent({ model: createScriptedModel({ turns: ["hello"], whenDone: "hello" }), stack: createAgentStack() });
    const turn = await (await agent.session({ signal: lookalikeSignal().signal })).prompt("hi", { signal: prompt.signal });
    expect(turn.status).toBe("aborted");
  });
});
