import { describe, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { newStack } from "./helpers.ts";

const call = { name: "Bash", input: {} };
const op = () => ({ content: "" });

describe("run options that do not compile", () => {
  it("stack.run refuses a misspelt option and wrong-typed ones", () => {
    const stack = newStack();
    // @ts-expect-error an unknown option (a misspelt sessionId)
    void stack.run("tool", call, op, { sesionId: "s1" });
    // @ts-expect-error signal must be an AbortSignal
    void stack.run("tool", call, op, { signal: "stop" });
    // @ts-expect-error metadata must be an object
    void stack.run("tool", call, op, { metadata: "prod" });
    // @ts-expect-error path is a list of names
    void stack.run("tool", call, op, { path: "agent" });
    void stack.run("tool", call, op, { sessionId: "s1", metadata: { tenant: "acme" }, path: ["agent"], timeoutMs: 5 });
  });

  it("agent.run and session.prompt refuse options they do not read", async () => {
    const agent = createAgent({ model: createScriptedModel({ turns: ["hi"] }), stack: createAgentStack() });
    // @ts-expect-error timeoutMs is not an option of agent.run
    void agent.run("hi", { timeoutMs: 5 });
    // @ts-expect-error signal must be an AbortSignal
    void agent.run("hi", { signal: "stop" });
    const session = await agent.session();
    // @ts-expect-error sessionId is a session's option, not a prompt's
    void session.prompt("hi", { sessionId: "s2" });
  });
});
