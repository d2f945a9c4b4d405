import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";

const agentWith = (sessions: string[] = []) =>
  createAgent({
    model: createScriptedModel({ turns: ["hi", "again"] }),
    stack: createAgentStack().use("sessionStart", { name: "seen", before: (s) => void sessions.push(s.sessionId) }),
  });

describe("the agent's run options", () => {
  it("agent.run refuses a misspelt option with a TypeError naming the option meant, before any session opens", async () => {
    const sessions: string[] = [];
    await expect(agentWith(sessions).run("hi", { sesionId: "s1" } as never)).rejects.toThrow(
      new TypeError(
        'agent.run: unknown option "sesionId" (did you mean "sessionId"?); its options are sessionId, source, metadata, signal, messages, onPart',
      ),
    );
    expect(sessions).toEqual([]);
  });

  it("agent.run refuses an option of the wrong type, naming it", async () => {
    const agent = agentWith();
    await expect(agent.run("hi", { signal: "stop" } as never)).rejects.toThrow('agent.run: signal must be an AbortSignal, got "stop"');
    await expect(agent.run("hi", { metadata: "prod" } as never)).rejects.toThrow('agent.run: metadata must be an object, got "prod"');
    await expect(agent.run("hi", { sessionId: 7 } as never)).rejects.toThrow("agent.run: sessionId must be a string, got 7");
    await expect(agent.run("hi", { onPart: true } as never)).rejects.toThrow("agent.run: onPart must be a function, got true");
    await expect(agent.run("hi", { timeoutMs: 5 } as never)).rejects.toThrow(/agent.run: unknown option "timeoutMs"; its options are/);
  });

  it("agent.run runs with options that fit, and with none", async () => {
    const agent = agentWith();
    expect((await agent.run("hi", { sessionId: "s1", metadata: { tenant: "acme" }, signal: new AbortController().signal })).status).toBe(
      "completed",
    );
    expect((await agentWith().run("hi")).status).toBe("completed");
  });

  it("agent.session refuses a prompt's option, which a session does not read", async () => {
    await expect(agentWith().session({ onPart: () => {} } as never)).rejects.toThrow(
      /^agent.session: unknown option "onPart"; its options are sessionId, source, metadata, signal, messages$/,
    );
    await expect(agentWith().session({ source: 1 } as never)).rejects.toThrow(
      'agent.session: source must be a string ("startup", "resume", ...), got 1',
    );
  });

  it("session.prompt refuses a session's option and a wrong-typed one, and the session goes on", async () => {
    const session = await agentWith().session({ sessionId: "s1" });
    await expect(session.prompt("hi", { sessionId: "s2" } as never)).rejects.toThrow(
      /^session.prompt: unknown option "sessionId"; its options are signal, metadata, onPart$/,
    );
    await expect(session.prompt("hi", { metdata: {} } as never)).rejects.toThrow(/unknown option "metdata" \(did you mean "metadata"\?\)/);
    await expect(session.prompt("hi", { signal: {} } as never)).rejects.toThrow("session.prompt: signal must be an AbortSignal, got {}");
    expect((await session.prompt("hi")).status).toBe("completed");
    await session.close();
  });
});
