/** `wrapMcpClient` keeps the SDK client's type, and its options take only what it knows. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expectTypeOf, it } from "vitest";
import { wrapMcpClient, type WrapMcpClientOptions } from "../../src/adapters/mcp.ts";
import { createAgentStack } from "../../src/agent/stack.ts";

const stack = createAgentStack();

describe("wrapMcpClient types", () => {
  it("returns the client's own type", () => {
    expectTypeOf(wrapMcpClient(stack, new Client({ name: "app", version: "1.0.0" }))).toEqualTypeOf<Client>();
  });

  it('takes unlistedTools "refuse" or "send", and nothing else', () => {
    expectTypeOf<{ unlistedTools: "refuse" }>().toExtend<WrapMcpClientOptions>();
    expectTypeOf<{ unlistedTools: "send" }>().toExtend<WrapMcpClientOptions>();
    expectTypeOf<{ unlistedTools: "allow" }>().not.toExtend<WrapMcpClientOptions>();
    // @ts-expect-error: not a way to treat unlisted tools
    wrapMcpClient(stack, new Client({ name: "app", version: "1.0.0" }), { unlistedTools: true });
  });
});
