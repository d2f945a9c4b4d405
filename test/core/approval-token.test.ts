import { describe, expect, it } from "vitest";
import { canonicalJson, digestOf, readToken, signToken, signingKeys } from "../../src/core/approval-token.ts";

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
