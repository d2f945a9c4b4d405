import { describe, expect, it } from "vitest";
import { canonicalJson, digestOf, readToken, signToken, signValue, signingKeys, valueSigned } from "../../src/core/approval-token.ts";

const keys = signingKeys("k".repeat(32));
const claims = { id: "a1", point: "toolCall", hook: "approval", digest: digestOf({ a: 1 }), iat: 1, exp: 2 };

describe("approval tokens", () => {
  it("read back what they sign, with any of the keys given (rotation)", () => {
    const token = signToken(claims, keys);
    expect(readToken(token, keys)).toEqual({ ok: true, claims });
    const rotated = signingKeys(["n".repeat(32), "k".repeat(32)]);
    expect(readToken(token, rotated)).toEqual({ ok: true, claims });
    expect(readToken(signToken(claims, rotated), keys)).toEqual({ ok: false, problem: "signature" });
  });

  it("refuse a changed payload or signature, and what is no token", () => {
    const token = signToken(claims, keys);
    const [v, payload, sig] = token.split(".") as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: 9e15 })).toString("base64url");
    expect(readToken(`${v}.${forged}.${sig}`, keys)).toEqual({ ok: false, problem: "signature" });
    expect(readToken(`${v}.${payload}.${sig.slice(0, -2)}AA`, keys)).toEqual({ ok: false, problem: "signature" });
    for (const bad of ["", "ao1.x", "ao2.e30.AAAA", 42, null]) expect(readToken(bad, keys)).toEqual({ ok: false, problem: "malformed" });
  });

  it("refuse keys shorter than 32 bytes, and a missing key", () => {
    expect(() => signingKeys("short")).toThrow(/at least 32 bytes \(got 5\)/);
    expect(() => signingKeys([])).toThrow(/non-empty list/);
    expect(() => signingKeys(undefined)).toThrow(/must be a string or a Uint8Array/);
  });
});

describe("digests", () => {
  it("are the same for equal data in any key order, and differ otherwise", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
    expect(digestOf({ a: 1, b: { c: 2 } })).toBe(digestOf({ b: { c: 2 }, a: 1 }));
    expect(digestOf({ command: "ls" })).not.toBe(digestOf({ command: "ls " }));
  });
});

describe("signed values", () => {
  const value = { runId: "r1", history: [{ role: "user", content: "hi" }] };

  it("verify as signed whatever the order of their keys, under any key of a rotation", () => {
    const signature = signValue("turn-state", value, keys);
    expect(valueSigned("turn-state", { history: [{ content: "hi", role: "user" }], runId: "r1" }, signature, keys)).toBe(true);
    expect(valueSigned("turn-state", value, signature, signingKeys(["n".repeat(32), "k".repeat(32)]))).toBe(true);
  });

  it.each([
    ["a changed value", () => valueSigned("turn-state", { ...value, runId: "r2" }, signValue("turn-state", value, keys), keys)],
    ["another purpose", () => valueSigned("turn-state", value, signValue("draft", value, keys), keys)],
    ["another key", () => valueSigned("turn-state", value, signValue("turn-state", value, signingKeys("n".repeat(32))), keys)],
    ["a token for a signature", () => valueSigned("turn-state", value, signToken(claims, keys), keys)],
    ["no signature", () => valueSigned("turn-state", value, undefined, keys)],
    ["a truncated signature", () => valueSigned("turn-state", value, signValue("turn-state", value, keys).slice(0, -4), keys)],
  ])("refuse %s", (_what, check) => {
    expect(check()).toBe(false);
  });
});
