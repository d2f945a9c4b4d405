import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { isMcpError, mcpError, mcpErrorLookalike, McpErrorCode } from "../../src/adapters/mcp-errors.ts";

const fields = (error: Error) => ({
  name: error.name,
  message: error.message,
  code: (error as { code?: unknown }).code,
  data: (error as { data?: unknown }).data,
  own: Object.keys(error).sort(),
});

describe("the MCP SDK's errors, made by the adapter", () => {
  it("numbers its codes as the SDK's ErrorCode does", () => {
    expect(McpErrorCode).toEqual({
      RequestTimeout: ErrorCode.RequestTimeout,
      InvalidRequest: ErrorCode.InvalidRequest,
      InvalidParams: ErrorCode.InvalidParams,
      InternalError: ErrorCode.InternalError,
    });
  });

  it("are the SDK's own McpError when the SDK can be loaded", async () => {
    const error = await mcpError(McpErrorCode.InvalidParams, "bad output");
    expect(error).toBeInstanceOf(McpError);
    expect(fields(error)).toEqual(fields(new McpError(ErrorCode.InvalidParams, "bad output")));
  });

  it("are, without the SDK, a lookalike that differs from the SDK's McpError only by its class", () => {
    const real = new McpError(ErrorCode.RequestTimeout, "Error: user pressed stop");
    const lookalike = mcpErrorLookalike(McpErrorCode.RequestTimeout, "Error: user pressed stop");
    expect(fields(lookalike)).toEqual(fields(real));
    expect(lookalike).not.toBeInstanceOf(McpError);
    expect([isMcpError(lookalike), isMcpError(real), isMcpError(new Error("x"))]).toEqual([true, true, false]);
  });
});
