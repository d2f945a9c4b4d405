import { describe, expect, it } from "vitest";
import { toolDetail, toolDetails } from "../../src/agent/points.ts";

const call = (name: string, input: Record<string, unknown>) => ({ id: "1", name, input });

describe("toolDetail", () => {
  it("reads the field of the tool's kind, whatever other keys the input has", () => {
    expect(toolDetail(call("Bash", { path: "x", command: "git push" }))).toBe("git push");
    expect(toolDetail(call("Read", { command: "src/x", file_path: "/etc/shadow" }))).toBe("/etc/shadow");
    expect(toolDetail(call("NotebookEdit", { cmd: "a", notebook_path: "n.ipynb" }))).toBe("n.ipynb");
    expect(toolDetail(call("Grep", { pattern: "TODO", path: "src" }))).toBe("src");
    expect(toolDetail(call("WebFetch", { command: "x", url: "https://example.com" }))).toBe("https://example.com");
  });

  it("has nothing for a known tool whose field is missing, even when another key is a string", () => {
    expect(toolDetail(call("Read", { command: "src/x" }))).toBeUndefined();
  });
});

describe("toolDetails", () => {
  it("lists every candidate field of a tool it does not know, and only the kind's fields of one it does", () => {
    expect(toolDetails(call("mcp__x", { path: "/etc/shadow", query: "src/x", n: 1 }))).toEqual(["/etc/shadow", "src/x"]);
    expect(toolDetails(call("Read", { file_path: "/etc/shadow", command: "src/x" }))).toEqual(["/etc/shadow"]);
  });

  it("counts a Glob pattern that reaches outside its path, so a deny rule on that path still sees it", () => {
    expect(toolDetails(call("Glob", { pattern: "/etc/*" }))).toEqual(["/etc/*"]);
    expect(toolDetails(call("Glob", { pattern: "../secrets/*", path: "src" }))).toEqual(["src", "../secrets/*"]);
    expect(toolDetails(call("Glob", { pattern: "~/.ssh/*", path: "src" }))).toEqual(["src", "~/.ssh/*"]);
    expect(toolDetails(call("Glob", { pattern: "./../../etc/*", path: "src" }))).toEqual(["src", "./../../etc/*"]);
    expect(toolDetails(call("Glob", { pattern: "x/../../../etc/*", path: "src" }))).toEqual(["src", "x/../../../etc/*"]);
    expect(toolDetails(call("Glob", { pattern: "{..,x}/secrets/*", path: "src" }))).toEqual(["src", "{..,x}/secrets/*"]);
    expect(toolDetails(call("Glob", { pattern: "{/etc,x}/passwd", path: "src" }))).toEqual(["src", "{/etc,x}/passwd"]);
    // A relative pattern searches under its path: the path alone decides, as it did before.
    expect(toolDetails(call("Glob", { pattern: "**/*.ts", path: "src" }))).toEqual(["src"]);
    expect(toolDetails(call("Glob", { pattern: "**/*.ts" }))).toEqual(["**/*.ts"]);
  });
});
