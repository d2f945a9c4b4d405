/**
 * What compiles with the LangChain adapter: its middleware goes where `createAgent` takes
 * middleware; its options take what they say; a stack over other points is refused.
 */
import { createAgent, fakeModel, type AgentMiddleware } from "langchain";
import { describe, expectTypeOf, it } from "vitest";
import { langchainMiddleware, type LangChainCallInfo, type LangChainMiddlewareOptions } from "../../src/adapters/langchain.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { gate } from "../../src/core/point.ts";
import { createStack } from "../../src/core/stack.ts";

const stack = createAgentStack();

describe("langchainMiddleware types", () => {
  it("is an AgentMiddleware that createAgent accepts", () => {
    expectTypeOf(langchainMiddleware(stack)).toExtend<AgentMiddleware>();
    createAgent({ model: fakeModel(), tools: [], middleware: [langchainMiddleware(stack)] });
  });

  it("takes run options as an object or as a function of the call", () => {
    langchainMiddleware(stack, { run: { metadata: { tenant: "acme" } } });
    langchainMiddleware(stack, {
      run: (call) => {
        expectTypeOf(call).toEqualTypeOf<LangChainCallInfo>();
        expectTypeOf(call.point).toEqualTypeOf<"userPrompt" | "step" | "modelCall" | "toolCall" | "stop">();
        return { metadata: { point: call.point } };
      },
    });
  });

  it("refuses options it does not know how to use", () => {
    // @ts-expect-error approvals are answered by an interrupt or by the stack's handler
    langchainMiddleware(stack, { approvals: "ask" });
    // @ts-expect-error the run's signal is LangGraph's: it is not an option
    langchainMiddleware(stack, { run: { signal: AbortSignal.timeout(1) } });
    // @ts-expect-error a refusal's content is text or content blocks
    langchainMiddleware(stack, { rejected: () => 42 });
    expectTypeOf<LangChainMiddlewareOptions["holdBack"]>().toEqualTypeOf<"none" | "all" | { readonly window: number } | undefined>();
  });

  it("refuses a stack over other points", () => {
    const other = createStack({ fetch: gate<string, string>({ name: "fetch" }) });
    // @ts-expect-error the middleware runs the agent points
    langchainMiddleware(other);
  });
});
