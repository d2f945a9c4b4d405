import { describe, expect, it } from "vitest";
import {
  checkDecision,
  ClaudeApprovalError,
  keyBytes,
  pausedKind,
  signPaused,
  stableJson,
  verifyPaused,
  type ClaudePausedApproval,
} from "../../../src/adapters/claude-agent-sdk/paused.ts";

const key = keyBytes("a-test-key-that-is-long-enough-for-hmac-sha256", "test");
const now = 1_800_000_000_000;
const record = signPaused(key, {
  kind: pausedKind,
  version: 1,
  sessionId: "9d7c3a52-0000-4000-8000-000000000001",
  toolUse: { id: "toolu_1", name: "Bash", input: { command: "git push", description: "push" } },
  inputDigest: "digest",
  asks: [{ hook: "approval", reason: "push to main?" }],
  createdAt: now,
  expiresAt: now + 60_000,
});

const problemOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ClaudeApprovalError);
    return (error as ClaudeApprovalError).problem;
  }
};

describe("paused approvals", () => {
  it("verify as signed, after a trip through JSON", () => {
    expect(verifyPaused(key, JSON.parse(JSON.stringify(record)), now + 1)).toEqual(record);
  });

  it("sign the same whatever the order of the input's keys", () => {
    const reordered = { ...record, toolUse: { ...record.toolUse, input: { description: "push", command: "git push" } } };
    expect(verifyPaused(key, reordered, now)).toEqual(reordered);
    expect(stableJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it.each([
    ["the input", { ...record, toolUse: { ...record.toolUse, input: { command: "git push --force" } } }],
    ["the tool", { ...record, toolUse: { ...record.toolUse, name: "Write" } }],
    ["the call id", { ...record, toolUse: { ...record.toolUse, id: "toolu_2" } }],
    ["the session", { ...record, sessionId: "another" }],
    ["the digest", { ...record, inputDigest: "other" }],
    ["the reason", { ...record, asks: [{ hook: "approval", reason: "harmless" }] }],
    ["the expiry", { ...record, expiresAt: record.expiresAt + 1 }],
    ["the signature", { ...record, signature: record.signature.replace(/^./, (c) => (c === "A" ? "B" : "A")) }],
  ])("refuse a record whose %s was changed", (_what, changed) => {
    expect(problemOf(() => verifyPaused(key, changed, now))).toBe("tampered");
  });

  it("refuse a record signed with another key", () => {
    const other = keyBytes("another-key-that-is-long-enough-for-hmac-sha256", "test");
    expect(problemOf(() => verifyPaused(other, record, now))).toBe("tampered");
  });

  it("refuse a record after its expiry, and take it up to it", () => {
    expect(problemOf(() => verifyPaused(key, record, record.expiresAt + 1))).toBe("expired");
    expect(verifyPaused(key, record, record.expiresAt)).toEqual(record);
  });

  it.each([
    ["not an object", "paused"],
    ["another kind", { ...record, kind: "x" }],
    ["another version", { ...record, version: 2 }],
    ["no session", { ...record, sessionId: "" }],
    ["an input that is not an object", { ...record, toolUse: { ...record.toolUse, input: "git push" } }],
    ["asks that are not a list", { ...record, asks: "approval" }],
    ["an expiry that is not a number", { ...record, expiresAt: "tomorrow" }],
    ["no signature", (({ signature: _, ...rest }: ClaudePausedApproval) => rest)(record)],
  ])("refuse as malformed %s", (_what, value) => {
    expect(problemOf(() => verifyPaused(key, value, now))).toBe("malformed");
  });
});

describe("decisions", () => {
  it.each([
    [{ decision: "approve" }, { decision: "approve" }],
    [
      { decision: "approve", reason: "ok" },
      { decision: "approve", reason: "ok" },
    ],
    [
      { decision: "deny", reason: "not now" },
      { decision: "deny", reason: "not now" },
    ],
    [{ decision: "deny" }, { decision: "deny", reason: "denied" }],
    [
      { decision: "edit", input: { command: "ls" } },
      { decision: "edit", input: { command: "ls" } },
    ],
  ])("take %j", (given, taken) => {
    expect(checkDecision(given, "Bash")).toEqual(taken);
  });

  it.each([
    true,
    "approve",
    null,
    {},
    { decision: "reject" },
    { decision: "yes" },
    { decision: "approve", reason: 1 },
    { decision: "edit" },
    { decision: "edit", input: "rm -rf /" },
    { decision: "edit", input: ["rm"] },
  ])("refuse %j", (given) => {
    expect(problemOf(() => checkDecision(given, "Bash"))).toBe("decision");
  });
});

describe("keys", () => {
  it("need at least 32 bytes, as a string or bytes", () => {
    expect(() => keyBytes("short", "claudeAgentGuard")).toThrow("claudeAgentGuard: pause.secret must hold at least 32 bytes");
    expect(() => keyBytes(42, "claudeAgentGuard")).toThrow("must be a string or a Uint8Array, got 42");
    expect(keyBytes(new Uint8Array(32), "x")).toHaveLength(32);
  });
});
