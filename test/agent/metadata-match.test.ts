import { describe, expect, it } from "vitest";
import { Reject } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { bashTool } from "./helpers.ts";

const script = () => createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "deploy" }, id: "c1" }] }, "Done."] });

describe("metadata matchers in the agent loop", () => {
  const stack = createAgentStack().use("toolCall", {
    name: "prod-freeze",
    match: { all: ["Bash", { metadata: { env: "prod" } }, { not: { metadata: { override: true } } }] },
    before: () => Reject("production is frozen"),
  });

  it("refuse a tool call for the agent whose metadata matches, and run it for one whose does not", async () => {
    const ranProd: string[] = [];
    const ranDev: string[] = [];
    await createAgent({ model: script(), stack, tools: [bashTool(ranProd)], metadata: { env: "prod" } }).run("ship");
    await createAgent({ model: script(), stack, tools: [bashTool(ranDev)], metadata: { env: "dev" } }).run("ship");
    expect(ranProd).toEqual([]);
    expect(ranDev).toEqual(["deploy"]);
  });

  it("read the metadata of the prompt, so one agent can be frozen for one prompt and not the next", async () => {
    const ran: string[] = [];
    const model = createScriptedModel({
      turns: [
        { toolCalls: [{ name: "Bash", input: { command: "deploy" } }] },
        "Done.",
        { toolCalls: [{ name: "Bash", input: { command: "deploy" } }] },
        "Done.",
      ],
    });
    const session = await createAgent({ model, stack, tools: [bashTool(ran)], metadata: { env: "prod" } }).session();
    await session.prompt("ship", { metadata: { env: "prod" } });
    await session.prompt("ship anyway", { metadata: { env: "prod", override: true } });
    await session.close();
    expect(ran).toEqual(["deploy"]);
  });
});
