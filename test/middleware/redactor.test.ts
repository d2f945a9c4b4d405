import { describe, expect, it } from "vitest";
import { defaultDetectors, highEntropy, scan } from "../../src/middleware/detectors.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";

describe("a redactor", () => {
  it("redacts with a label by default", () => {
    expect(createRedactor().text("mail bob@example.com or call +1 415 555 0100").value).toBe(
      "mail [REDACTED:email] or call [REDACTED:phone]",
    );
  });

  it("masks all but the last four characters, and short matches whole", () => {
    const r = createRedactor({ strategy: "mask" });
    expect(r.text("card 4111 1111 1111 1111").value).toBe("card ***************1111");
    expect(r.replace("pin", "12345678")).toBe("********");
  });

  it("hashes to a stable sha256 prefix, changed by a salt", () => {
    const a = createRedactor({ strategy: "hash" }).text("bob@example.com").value;
    expect(a).toMatch(/^\[email:sha256:[0-9a-f]{12}\]$/);
    expect(createRedactor({ strategy: "hash" }).text("bob@example.com").value).toBe(a);
    expect(createRedactor({ strategy: "hash", salt: "pepper" }).text("bob@example.com").value).not.toBe(a);
  });

  it("reports kinds to block without rewriting them, and applies per-kind strategies", () => {
    const r = createRedactor({ strategies: { api_key: "block", email: "mask" } });
    const out = r.text("key AKIAIOSFODNN7EXAMPLE for bob@example.com");
    expect(out.blocked).toEqual(["api_key"]);
    expect(out.kinds).toEqual(["api_key", "email"]);
    expect(out.value).toBe("key AKIAIOSFODNN7EXAMPLE for ***********.com");
  });

  it("blocks a span when any kind merged into it is blocked: an API key that is also a high-entropy secret", () => {
    const out = createRedactor({ detectors: [...defaultDetectors(), highEntropy()], strategies: { secret: "block" } }).text(
      "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    );
    expect(out.blocked).toEqual(["secret"]);
    expect(out.kinds).toEqual(["api_key", "secret"]);
  });

  it("rewrites a span of several kinds with the strictest of their strategies: a mask shows no part of a secret", () => {
    const r = createRedactor({ detectors: [...defaultDetectors(), highEntropy()], strategies: { email: "mask" } });
    const text = "bob@example.com/Xk9mQ2pL7rT4vW8zB1cD5yz";
    expect(scan(text, r.detectors)).toEqual([{ kind: "email", start: 0, end: text.length, also: ["secret"] }]);
    expect(r.text(text).value).toBe("[REDACTED:email]");
  });

  it("is idempotent: its own markers are not found again", () => {
    for (const strategy of ["redact", "mask", "hash"] as const) {
      const r = createRedactor({ strategy });
      const once = r.text("a@b.io 4111111111111111 sk-abcdefghijklmnopqrstuvwx Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi 10.1.2.3").value;
      expect(r.text(once).value).toBe(once);
    }
  });

  it("rewrites strings inside JSON-like values, keeps keys and untouched parts by identity", () => {
    const clean = { n: 1, list: ["ok"] };
    const value = { user: "bob@example.com", clean, nested: [{ ip: "10.0.0.1" }], __proto__key: "x" };
    const out = createRedactor().value(value);
    expect(out.value).toEqual({ user: "[REDACTED:email]", clean, nested: [{ ip: "[REDACTED:ip_address]" }], __proto__key: "x" });
    expect(out.value.clean).toBe(clean);
    expect(createRedactor().value(clean).value).toBe(clean);
  });

  it("scans object keys as it scans values, rewriting a key that holds data and keeping every entry", () => {
    const value = { "alice@example.com": { role: "admin" }, "bob@example.com": { role: "dev" }, ["AKIA" + "Z".repeat(16)]: 1, plain: "ok" };
    const out = createRedactor().value(value);
    expect(out.value).toEqual({
      "[REDACTED:email]": { role: "admin" },
      "[REDACTED:email]#2": { role: "dev" },
      "[REDACTED:api_key]": 1,
      plain: "ok",
    });
    expect(out.kinds).toEqual(["email", "api_key"]);
    expect(Object.keys(out.value)).toHaveLength(4);
    // A key already named like a redacted one is kept, and the redacted one numbered.
    expect(createRedactor().value({ "a@b.io": 1, "[REDACTED:email]": 2 }).value).toEqual({
      "[REDACTED:email]#2": 1,
      "[REDACTED:email]": 2,
    });
    // Hashes tell keys apart, so none is numbered.
    expect(Object.keys(createRedactor({ strategy: "hash" }).value({ "a@b.io": 1, "c@d.io": 2 }).value)).toEqual([
      expect.stringMatching(/^\[email:sha256:/),
      expect.stringMatching(/^\[email:sha256:/),
    ]);
  });

  it("blocks a value whose key holds a blocked kind, as it blocks a value", () => {
    const r = createRedactor({ strategies: { email: "block" } });
    expect(r.value({ users: { "alice@example.com": { admin: true } } }).blocked).toEqual(["email"]);
    expect(createRedactor({ strategies: { api_key: "block" } }).value([{ ["ghp_" + "A1b2".repeat(9)]: "cached" }]).blocked).toEqual([
      "api_key",
    ]);
  });

  it("reads a value with its key as its name: a password or a token under such a key is a secret, a count under max_tokens is not", () => {
    const r = createRedactor();
    expect(r.value({ password: "hunter22", api_token: "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB", note: "hunter22" }).value).toEqual({
      password: "[REDACTED:secret]",
      api_token: "[REDACTED:secret]",
      note: "hunter22",
    });
    expect(r.value({ db: { password: 12345678 } }).value).toEqual({ db: { password: "[REDACTED:secret]" } });
    const usage = {
      max_tokens: 4096,
      input_tokens: 1234,
      token_type: "Bearer",
      public_key: "MCowBQYDK2VwAyEA9k3Lx2pQ8rT5vW1zB6cD4fG7hJ0aE3sK9mN2qR5tU8w=",
    };
    expect(r.value(usage).value).toBe(usage);
  });

  it("scans numbers as long as card numbers, and leaves other numbers as they are", () => {
    expect(createRedactor().value({ card: 4111111111111111, count: 4111, id: 1700000000123 }).value).toEqual({
      card: "[REDACTED:credit_card]",
      count: 4111,
      id: 1700000000123,
    });
  });

  it("keeps a __proto__ key a plain key (no prototype pollution)", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": "a@b.io"}}') as Record<string, unknown>;
    const out = createRedactor().value(hostile).value as Record<string, unknown>;
    expect(Object.getOwnPropertyNames(out)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it("refuses values too deep or cyclic rather than pass them unchecked", () => {
    let deep: unknown = "a@b.io";
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => createRedactor().value(deep)).toThrow(/deeper than 64/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => createRedactor().value(cyclic)).toThrow(/cycle/);
  });

  it("checks its options when built", () => {
    expect(() => createRedactor({ strategy: "shred" as never })).toThrow(/strategy must be one of/);
    expect(() => createRedactor({ strategies: { email: "nope" as never } })).toThrow(/strategies.email/);
    expect(() => createRedactor({ detectors: [{}] as never })).toThrow(/detectors/);
  });
});

describe("scrubbing for logs", () => {
  it("rewrites every match, block kinds included", () => {
    const r = createRedactor({ strategies: { api_key: "block", email: "hash" } });
    expect(r.scrub("AKIAIOSFODNN7EXAMPLE bob@example.com")).toMatch(/^\[REDACTED:api_key\] \[email:sha256:[0-9a-f]{12}\]$/);
    expect(r.scrub("nothing here")).toBe("nothing here");
  });
});
