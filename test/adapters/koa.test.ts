import { describe, expect, it } from "vitest";
import { fromKoa, type KoaMiddleware } from "../../src/adapters/koa.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ModelRequest, ModelResponse, ToolCall, ToolResult } from "../../src/agent/types.ts";
import { HookError, Outcome } from "../../src/core/index.ts";
import { sleep } from "../reliability/helpers.ts";
import { expectNoUnhandledRejections } from "../reliability/no-unhandled.ts";

const call: ToolCall = { id: "c1", name: "Bash", input: { command: "ls" } };
const ok = (c: { readonly input: Record<string, unknown> }): ToolResult => ({ content: `ran ${String(c.input.command)}` });
type ToolMw = KoaMiddleware<ToolCall, ToolResult>;

const runTool = (mw: ToolMw | ToolMw[], operation: (c: ToolCall) => ToolResult | Promise<ToolResult> = ok) =>
  createAgentStack()
    .use("toolCall", fromKoa(mw, { name: "koa" }))
    .run("toolCall", call, (c) => operation(c as ToolCall));

describe("fromKoa", () => {
  it("composes an array with the first middleware outermost, as koa-compose does", async () => {
    const log: string[] = [];
    const mw =
      (tag: string): ToolMw =>
      async (_ctx, next) => {
        log.push(`${tag} in`);
        await next();
        log.push(`${tag} out`);
      };
    await runTool([mw("a"), mw("b")], (c) => (log.push("operation"), ok(c)));
    expect(log).toEqual(["a in", "b in", "operation", "b out", "a out"]);
  });

  it("passes an input assigned before next() to the operation", async () => {
    const outcome = await runTool(async (ctx, next) => {
      ctx.input = { ...ctx.input, input: { command: "ls -la" } };
      await next();
    });
    expect(outcome).toEqual(Outcome.completed({ content: "ran ls -la" }));
  });

  it("exposes the output after next() and transforms it when assigned", async () => {
    let seen: unknown;
    const outcome = await runTool(async (ctx, next) => {
      await next();
      seen = ctx.output;
      ctx.output = { content: `${String(ctx.output?.content)}!` };
    });
    expect(seen).toEqual({ content: "ran ls" });
    expect(outcome).toEqual(Outcome.completed({ content: "ran ls!" }));
  });

  it("answers in place of the operation when output is assigned without next()", async () => {
    let ran = false;
    const outcome = await runTool(
      (ctx) => {
        ctx.output = { content: "cached" };
      },
      (c) => ((ran = true), ok(c)),
    );
    expect(outcome).toEqual(Outcome.completed({ content: "cached" }));
    expect(ran).toBe(false);
  });

  it("rejects through ctx.reject on a gate point", async () => {
    const outcome = await runTool((ctx) => ctx.reject("no shell today"));
    expect(outcome).toEqual(Outcome.rejected("no shell today", "koa"));
  });

  it("never runs the operation once ctx.reject was called, even when next() follows", async () => {
    let ran = false;
    const guard: ToolMw = async (ctx, next) => {
      if (String(ctx.input.input.command).startsWith("ls")) ctx.reject("no listing");
      await next();
    };
    const outcome = await runTool([guard, async (_ctx, next) => next()], (c) => ((ran = true), ok(c)));
    expect(outcome).toEqual(Outcome.rejected("no listing", "koa"));
    expect(ran).toBe(false);
  });

  it("treats ctx.reject on an observation point as a hook failure (R2)", async () => {
    const failures: HookError[] = [];
    const request: ModelRequest = { model: "m", messages: [] };
    const response: ModelResponse = { text: "hi", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
    const stack = createAgentStack({ onFailure: (e) => void failures.push(e) }).use(
      "modelCall",
      fromKoa<ModelRequest, ModelResponse>((ctx) => ctx.reject("no"), { name: "koa" }),
    );
    expect(await stack.run("modelCall", request, () => response)).toEqual(Outcome.completed(response));
    expect(failures.map((f) => f.kind)).toEqual(["reject-on-observe"]);
  });

  it("fails the hook when a middleware calls next() twice, and runs the operation once", async () => {
    let runs = 0;
    const outcome = await runTool(
      async (_ctx, next) => {
        await next();
        await next();
      },
      (c) => ((runs += 1), ok(c)),
    );
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") {
      expect(outcome.reason).toContain("next() called multiple times");
      expect(outcome.cause).toBeInstanceOf(HookError);
    }
    expect(runs).toBe(1);
  });

  it("fails the hook when a middleware throws synchronously", async () => {
    const outcome = await runTool(() => {
      throw new Error("sync boom");
    });
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.reason).toContain("sync boom");
  });

  it("throws the operation's error from await next(), so a middleware can catch it and recover", async () => {
    let caught: unknown;
    const outcome = await runTool(
      async (ctx, next) => {
        try {
          await next();
        } catch (error) {
          caught = error;
          ctx.output = { content: "fallback" };
        }
      },
      () => {
        throw new Error("ENOENT");
      },
    );
    expect((caught as Error).message).toBe("ENOENT");
    expect(outcome).toEqual(Outcome.completed({ content: "fallback" }));
  });

  it("ends Failed with the operation's own error when no middleware catches it (not a hook failure)", async () => {
    const error = new Error("ENOENT");
    const outcome = await runTool(
      async (_ctx, next) => {
        await next();
      },
      () => {
        throw error;
      },
    );
    expect(outcome).toEqual(Outcome.failed(error));
  });

  it("shows a downstream rejection as ctx.outcome without throwing", async () => {
    let seen: unknown;
    const stack = createAgentStack()
      .use(
        "toolCall",
        fromKoa<ToolCall, ToolResult>(
          async (ctx, next) => {
            await next();
            seen = ctx.outcome;
          },
          { name: "outer", priority: 1 },
        ),
      )
      .use("toolCall", { name: "guard", priority: 2, before: () => ({ _tag: "Reject", reason: "blocked" }) });
    expect(await stack.run("toolCall", call, ok)).toEqual(Outcome.rejected("blocked", "guard"));
    expect(seen).toEqual(Outcome.rejected("blocked", "guard"));
  });

  it("fails the hook when a middleware neither calls next(), sets output nor rejects", async () => {
    const outcome = await runTool(() => undefined);
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.reason).toContain("without calling next()");
  });

  it("shares ctx.state between the composed middleware of one run, and starts it fresh on the next", async () => {
    const states: unknown[] = [];
    const stack = createAgentStack().use(
      "toolCall",
      fromKoa<ToolCall, ToolResult>([
        async (ctx, next) => {
          ctx.state.user = "ada";
          await next();
        },
        async (ctx, next) => {
          states.push({ ...ctx.state });
          ctx.state.seen = true;
          await next();
        },
      ]),
    );
    await stack.run("toolCall", call, ok);
    await stack.run("toolCall", call, ok);
    expect(states).toEqual([{ user: "ada" }, { user: "ada" }]);
  });

  it("gives the hook context (signal, subject) to the middleware", async () => {
    let seen: unknown[] = [];
    await runTool(async (ctx, next) => {
      seen = [ctx.hook.subject, ctx.signal instanceof AbortSignal, ctx.hook.point];
      await next();
    });
    expect(seen).toEqual(["Bash", true, "toolCall"]);
  });

  it("refuses a list with something that is not a function at mount time", () => {
    expect(() => fromKoa([async () => {}, "nope" as never])).toThrow(TypeError);
  });

  it("names the hook after the middleware functions unless given a name", () => {
    async function timing(_ctx: unknown, next: () => Promise<void>) {
      await next();
    }
    expect(fromKoa(timing).name).toBe("koa(timing)");
    expect(fromKoa(timing, { name: "t", priority: 5 })).toMatchObject({ name: "t", priority: 5 });
  });

  describe("with a next() the middleware does not await", () => {
    expectNoUnhandledRejections();
    const slowly = async (c: ToolCall): Promise<ToolResult> => (await sleep(5), ok(c));

    it("waits for it and passes its outcome on, as the core does for a dangling next() (R4)", async () => {
      let runs = 0;
      const outcome = await runTool(
        (_ctx, next) => {
          void next();
        },
        (c) => ((runs += 1), slowly(c)),
      );
      expect(outcome).toEqual(Outcome.completed({ content: "ran ls" }));
      expect(runs).toBe(1);
    });

    it("ends Failed with the operation's own error when that next() fails downstream", async () => {
      const error = new Error("ENOENT");
      const outcome = await runTool(
        (_ctx, next) => {
          void next();
        },
        async () => {
          await sleep(5);
          throw error;
        },
      );
      expect(outcome).toEqual(Outcome.failed(error));
    });

    it("waits for a next() an outer middleware dropped while an inner one is still on its way to the operation", async () => {
      const outcome = await runTool(
        [
          (_ctx, next) => {
            void next();
          },
          async (_ctx, next) => {
            await sleep(5);
            await next();
          },
        ],
        slowly,
      );
      expect(outcome).toEqual(Outcome.completed({ content: "ran ls" }));
    });

    it("fails the hook when it calls next() twice, and runs the operation once", async () => {
      let runs = 0;
      const outcome = await runTool(
        (_ctx, next) => {
          void next();
          void next();
        },
        (c) => ((runs += 1), slowly(c)),
      );
      expect(outcome._tag).toBe("Rejected");
      if (outcome._tag === "Rejected") {
        expect(outcome.reason).toContain("next() called multiple times");
        expect(outcome.cause).toBeInstanceOf(HookError);
      }
      await sleep(10);
      expect(runs).toBe(1);
    });

    it("fails the hook for a second next() even when the middleware catches its refusal, as the core does (R4)", async () => {
      const outcome = await runTool(async (_ctx, next) => {
        await next();
        await next().catch(() => undefined);
      });
      expect(outcome._tag).toBe("Rejected");
      if (outcome._tag === "Rejected") expect(outcome.reason).toContain("next() called multiple times");
    });

    it("fails the hook with what the middleware threw after it", async () => {
      const outcome = await runTool((_ctx, next) => {
        void next();
        throw new Error("boom after next");
      }, slowly);
      expect(outcome._tag).toBe("Rejected");
      if (outcome._tag === "Rejected") expect(outcome.reason).toContain("boom after next");
      await sleep(10);
    });

    it("answers with the output the middleware set, while that next()'s failure stays quiet", async () => {
      const outcome = await runTool(
        (ctx, next) => {
          void next();
          ctx.output = { content: "cached" };
        },
        async () => {
          await sleep(5);
          throw new Error("downstream failure nobody awaits");
        },
      );
      expect(outcome).toEqual(Outcome.completed({ content: "cached" }));
      await sleep(10);
    });

    it("reports a next() called after the hook answered as a failure, and leaks no rejection", async () => {
      const failures: HookError[] = [];
      let runs = 0;
      const stack = createAgentStack({ onFailure: (e) => void failures.push(e) }).use(
        "toolCall",
        fromKoa<ToolCall, ToolResult>(
          (ctx, next) => {
            ctx.output = { content: "cached" };
            setTimeout(() => void next(), 1);
          },
          { name: "koa" },
        ),
      );
      expect(await stack.run("toolCall", call, (c) => ((runs += 1), ok(c as ToolCall)))).toEqual(Outcome.completed({ content: "cached" }));
      await sleep(10);
      expect(runs).toBe(0);
      expect(failures.map((f) => f.kind)).toEqual(["next-misuse"]);
    });
  });
});
