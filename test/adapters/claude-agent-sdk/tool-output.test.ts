import { describe, expect, it } from "vitest";
import { fitToolOutput, textInShape } from "../../../src/adapters/claude-agent-sdk/tool-output.ts";

// The shapes Claude Code 2.1.332 reports on PostToolUse (see the real-client tests).
const bash = { stdout: "key=sk-live-1", stderr: "warn", interrupted: false, isImage: false, noOutputExpected: false };
const read = { type: "text", file: { filePath: "/p/s.txt", content: "TOP-SECRET\n", numLines: 2, startLine: 1, totalLines: 2 } };
const mcp = [{ type: "text", text: "rows: 3" }];

describe("tool output in the tool's own shape", () => {
  it("keeps a replacement of the original's shape as it is", () => {
    const redacted = { ...bash, stdout: "key=[redacted]" };
    expect(fitToolOutput(bash, redacted)).toBe(redacted);
    expect(fitToolOutput(mcp, [{ type: "text", text: "rows: [hidden]" }])).toEqual([{ type: "text", text: "rows: [hidden]" }]);
  });

  it("puts text where the model reads it, for shell output, files, content blocks and strings", () => {
    expect(fitToolOutput(bash, "withheld")).toEqual({ ...bash, stdout: "withheld", stderr: "" });
    expect(fitToolOutput(read, "withheld")).toEqual({ ...read, file: { ...read.file, content: "withheld" } });
    expect(fitToolOutput(mcp, "withheld")).toEqual([{ type: "text", text: "withheld" }]);
    expect(fitToolOutput("original", "withheld")).toBe("withheld");
  });

  it("writes a replacement of another shape as text in the original's", () => {
    expect(fitToolOutput(bash, { answer: 42 })).toEqual({ ...bash, stdout: '{"answer":42}', stderr: "" });
    expect(fitToolOutput(bash, { stdout: "only stdout" })).toEqual({ ...bash, stdout: '{"stdout":"only stdout"}', stderr: "" });
  });

  it("knows no text field of an unknown shape", () => {
    const write = { type: "create", filePath: "/p/x", content: "x", structuredPatch: [] };
    expect(textInShape(write, "withheld")).toBeUndefined();
    expect(fitToolOutput(write, "withheld")).toBeUndefined();
    expect(textInShape(42, "withheld")).toBeUndefined();
  });
});
