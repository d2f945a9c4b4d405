import { describe, expect, it } from "vitest";
import { createAgentStack, wrapTool, type AgentTool, type ToolCallStack } from "../../src/agent/index.ts";

describe("wrapTool", () => {
  it("refuses a tool without execute at creation, instead of failing every call", () => {
    expect(() => wrapTool(createAgentStack(), { name: "x" } as AgentTool)).toThrow(
      new TypeError('wrapTool "x": execute must be a function, got undefined'),
    );
  });

  it("refuses an execute that is not a function, saying what was given", () => {
    expect(() => wrapTool(createAgentStack(), { name: "x", execute: "run" } as unknown as AgentTool)).toThrow(
      new TypeError('wrapTool "x": execute must be a function, got "run"'),
    );
  });

  it("refuses a tool that is not an object", () => {
    expect(() => wrapTool(createAgentStack(), null as unknown as AgentTool)).toThrow(
      new TypeError("wrapTool: tool must be an object { name, execute }, got null"),
    );
  });

  it("refuses a tool without a name, which no call could reach", () => {
    expect(() => wrapTool(createAgentStack(), { execute: () => "ok" } as unknown as AgentTool)).toThrow(
      new TypeError("wrapTool: tool.name must be a non-empty string, got undefined"),
    );
  });

  it("refuses a stack it cannot run the toolCall point on", () => {
    expect(() => wrapTool({} as ToolCallStack, { name: "x", execute: () => "ok" })).toThrow(
      new TypeError("wrapTool: stack must be a stack with run (createAgentStack()), got {}"),
    );
  });
});
