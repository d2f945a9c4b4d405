import { describe, expect, it } from "vitest";
import { toolDetail, toolDetails } from "../../src/agent/points.ts";
import { boxInput } from "../../src/agent/tool-input.ts";
import { createAgentStack } from "../../src/agent/index.ts";
import { Reject } from "../../src/core/action.ts";
import { UNREADABLE_DETAIL } from "../../src/core/match/detail.ts";
import { toolPolicy, withMiddleware } from "../../src/middleware/index.ts";

const call = (name: string, input: Record<string, unknown>) => ({ id: "1", name, input });

describe("toolDetail", () => {
  it("reads the field of the tool's kind, whatever other keys the input has", () => {
    expect(toolDetail(call("Bash", { path: "x", command: "git push" }))).toBe("git push");
    expect(toolDetail(call("Read", { command: "src/x", file_path: "/etc/shadow" }))).toBe("/etc/shadow");
    expect(toolDetail(call("NotebookEdit", { cmd: "a", notebook_path: "n.ipynb" }))).toBe("n.ipynb");
    expect(toolDetail(call("Grep", { pattern: "TODO", path: "src" }))).toBe("src");
    expect(toolDetail(call("WebFetch", { command: "x", url: "https://example.com" }))).toBe("https://example.com");
  });

  it("is unreadable when the fields that could be the detail disagree, so a deny hook's condition matches", async () => {
    expect(toolDetail(call("mcp__fs__read_file", { file_path: "/tmp/ok", path: "/etc/passwd" }))).toBe(UNREADABLE_DETAIL);
    expect(toolDetail(call("Read", { file_path: "src/a.ts", path: "/etc/passwd" }))).toBe(UNREADABLE_DETAIL);
    expect(toolDetail(call("Read", { file_path: "src/a.ts", path: "src/a.ts" }))).toBe("src/a.ts");
    expect(toolDetail(call("Bash", { command: "ls", cmd: "rm -rf /tmp/x" }))).toBe(UNREADABLE_DETAIL);
    const stack = createAgentStack().use("toolCall", {
      name: "no-etc",
      match: "mcp__fs__read_file(/etc/**)",
      before: () => Reject("not /etc"),
    });
    const decoy = call("mcp__fs__read_file", { file_path: "/tmp/ok", path: "/etc/passwd" });
    expect(await stack.run("toolCall", decoy, () => ({ content: "read" }))).toMatchObject({ _tag: "Rejected" });
    const plain = call("mcp__fs__read_file", { path: "/tmp/ok" });
    expect(await stack.run("toolCall", plain, () => ({ content: "read" }))).toMatchObject({ _tag: "Completed" });
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

  it("reads an input that was not an object as the detail itself, for any tool", async () => {
    expect(toolDetails(call("bash", boxInput("rm -rf /")))).toEqual(["rm -rf /"]);
    expect(toolDetails(call("Read", boxInput("/etc/shadow")))).toEqual(["/etc/shadow"]);
    expect(toolDetails(call("mcp__x", boxInput(["rm", "-rf", "/"])))).toEqual([UNREADABLE_DETAIL]);
    expect(toolDetails(call("bash", boxInput(null)))).toEqual([]);
    // The mark is a symbol: a model's JSON holding `{ value }` is an ordinary input.
    expect(toolDetails(call("bash", { value: "rm -rf /" }))).toEqual([]);
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["bash(rm *)"] }));
    expect(await stack.run("toolCall", call("bash", boxInput("rm -rf /")), () => ({ content: "ran" }))).toMatchObject({ _tag: "Rejected" });
    expect(await stack.run("toolCall", call("bash", boxInput("ls")), () => ({ content: "ran" }))).toMatchObject({ _tag: "Completed" });
  });

  it("reads a search (Grep, Glob, LS) as one glob: its directory, read literally, then its file pattern", () => {
    expect(toolDetails(call("Glob", { pattern: "/etc/*" }))).toEqual(["/etc/**/*"]);
    expect(toolDetails(call("Glob", { pattern: "../secrets/*", path: "src" }))).toEqual(["src/../secrets/*"]);
    expect(toolDetails(call("Glob", { pattern: "~/.ssh/*", path: "src" }))).toEqual(["~/.ssh/**/*"]);
    expect(toolDetails(call("Glob", { pattern: "x/../../../etc/*", path: "src" }))).toEqual(["src/x/../../../etc/*"]);
    expect(toolDetails(call("Glob", { pattern: "**/*.ts", path: "src" }))).toEqual(["src/**/*.ts"]);
    expect(toolDetails(call("Glob", { pattern: "**/*.ts" }))).toEqual(["./**/*.ts"]);
    expect(toolDetails(call("Glob", { pattern: "*", path: "a*b[1]" }))).toEqual(["a[*]b[[]1[]]/**/*"]);
    expect(toolDetails(call("Grep", { pattern: "TODO", glob: "*.env" }))).toEqual(["./**/*.env"]);
    expect(toolDetails(call("Grep", { pattern: "TODO", path: "/etc", glob: "ssh/*" }))).toEqual(["/etc/ssh/*"]);
    expect(toolDetails(call("LS", { path: "/etc" }))).toEqual(["/etc"]);
    expect(toolDetails(call("LS", {}))).toEqual(["."]);
  });

  it("reads a file pattern without a slash at any depth, as ripgrep's --glob does", () => {
    expect(toolDetails(call("Glob", { pattern: "*.pem" }))).toEqual(["./**/*.pem"]);
    expect(toolDetails(call("Glob", { pattern: "/etc/*.key" }))).toEqual(["/etc/**/*.key"]);
    expect(toolDetails(call("Glob", { pattern: "/etc/ssl/*/x.key" }))).toEqual(["/etc/ssl/*/x.key"]);
  });

  it("splits Grep's glob into globs as Claude Code does: on whitespace, then on commas outside braces", () => {
    expect(toolDetails(call("Grep", { pattern: "x", glob: "*.ts,.env" }))).toEqual(["{./**/*.ts,./**/.env}"]);
    expect(toolDetails(call("Grep", { pattern: "x", glob: "*.ts  .env" }))).toEqual(["{./**/*.ts,./**/.env}"]);
    expect(toolDetails(call("Grep", { pattern: "x", glob: "*.{ts,tsx}" }))).toEqual(["{./**/*.ts,./**/*.tsx}"]);
    expect(toolDetails(call("Grep", { pattern: "x", path: "src", glob: "/a.ts" }))).toEqual(["{/**/a.ts,src/a.ts}"]);
  });

  it("reads a glob that starts with ! as an exclusion, which narrows nothing", () => {
    expect(toolDetails(call("Grep", { pattern: "x", path: "src", glob: "!*.ts" }))).toEqual(["src"]);
    expect(toolDetails(call("Grep", { pattern: "x", path: "src", glob: "!*.ts,*.env" }))).toEqual(["src/**/*.env"]);
    expect(toolDetails(call("Glob", { pattern: "!*.md" }))).toEqual(["."]);
  });

  it("expands a Glob pattern's braces, so an absolute alternative stands on its own", () => {
    expect(toolDetails(call("Glob", { pattern: "{/etc,x}/passwd", path: "src" }))).toEqual(["{/etc/**/passwd,src/x/passwd}"]);
    expect(toolDetails(call("Glob", { pattern: "**/*.{ts,tsx}", path: "src" }))).toEqual(["{src/**/*.ts,src/**/*.tsx}"]);
    expect(toolDetails(call("Glob", { pattern: "{..,x}/secrets/*", path: "src" }))).toEqual(["src/{..,x}/secrets/*"]);
  });
});

describe("a tool input field that is present but not a string", () => {
  const denied = toolPolicy({ deny: ["Bash(rm *)", "Write(/etc/**)"], onUnknownTool: () => {} });
  const allowed = toolPolicy({
    allow: ["Bash(ls *)", "Write(**)", "WebFetch(domain:example.com)"],
    default: "deny",
    onUnknownTool: () => {},
  });
  const run = (policy: typeof denied, name: string, input: Record<string, unknown>) =>
    withMiddleware(createAgentStack(), policy).run("toolCall", call(name, input), () => ({ content: "ran" }));

  it("is a detail that cannot be read, not a missing one", () => {
    expect(toolDetails(call("Bash", { command: ["rm", "-rf", "/"] }))).toEqual([UNREADABLE_DETAIL]);
    expect(toolDetails(call("mcp__x", { path: "src", query: 5 }))).toEqual(["src", UNREADABLE_DETAIL]);
    expect(toolDetails(call("Glob", { path: "src", pattern: ["/etc/*"] }))).toEqual([UNREADABLE_DETAIL]);
    expect(toolDetails(call("Bash", {}))).toEqual([]);
    expect(toolDetails(call("Bash", { command: null }))).toEqual([]);
  });

  it("is caught by a deny condition of toolPolicy, as an unreadable command is", async () => {
    expect(await run(denied, "Bash", { command: ["rm", "-rf", "/"] })).toMatchObject({ _tag: "Rejected" });
    expect(await run(denied, "Write", { file_path: ["/etc/passwd"] })).toMatchObject({ _tag: "Rejected" });
    expect(await run(denied, "Bash", {})).toMatchObject({ _tag: "Completed" });
  });

  it("satisfies no allow condition", async () => {
    expect(await run(allowed, "Bash", { command: ["ls"] })).toMatchObject({ _tag: "Rejected" });
    expect(await run(allowed, "Write", { file_path: ["src/x"] })).toMatchObject({ _tag: "Rejected" });
    expect(await run(allowed, "WebFetch", { url: { href: "https://example.com" } })).toMatchObject({ _tag: "Rejected" });
    expect(await run(allowed, "Bash", { command: "ls" })).toMatchObject({ _tag: "Completed" });
  });
});
