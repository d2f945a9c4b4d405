import { describe, expect, it } from "vitest";
import { apiKey, creditCard, defaultDetectors, email, entropy, highEntropy, ipv4, ipv6, luhn, partialStart, pattern, phone, scan, windowOf } from "../../src/middleware/detectors.ts";

const found = (text: string, detectors = defaultDetectors()) => scan(text, detectors).map((d) => `${d.kind}:${text.slice(d.start, d.end)}`);

describe("detectors", () => {
  it("find emails, Luhn-valid card numbers, phone numbers and IPv4 and IPv6 addresses", () => {
    expect(found("mail bob.smith+tag@mail.example.co.uk today")).toEqual(["email:bob.smith+tag@mail.example.co.uk"]);
    expect(found("card 4111 1111 1111 1111, or 4111-1111-1111-1111")).toEqual(["credit_card:4111 1111 1111 1111", "credit_card:4111-1111-1111-1111"]);
    expect(found("call +1 415 555 0100 or (415) 555-0100")).toEqual(["phone:+1 415 555 0100", "phone:(415) 555-0100"]);
    expect(found("hosts 10.0.0.1, 2001:db8::ff00:42:8329 and ::ffff:192.0.2.128.")).toEqual([
      "ip_address:10.0.0.1", "ip_address:2001:db8::ff00:42:8329", "ip_address:::ffff:192.0.2.128",
    ]);
  });

  it("find API keys by their prefixes", () => {
    const keys = [
      "sk-proj-abcdefghijklmnopqrstuvwxyz0123", "sk_live_abcdefghijklmnop1234", "ghp_" + "A1b2".repeat(9), "github_pat_" + "a1B2_".repeat(5),
      "AKIAIOSFODNN7EXAMPLE", "xoxb-123456789012-abcdefghij", "AIza" + "x".repeat(35), "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ];
    for (const key of keys) expect(found(`key=${key} ok`, [apiKey])).toEqual([`api_key:${key}`]);
  });

  it("find random-looking tokens but leave identifiers, hex hashes, UUIDs and plain numbers alone", () => {
    expect(found("token Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi end", [highEntropy()])).toEqual(["secret:Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi"]);
    const harmless = "getUserAccountById2024Handler 3f786850e387550fdab836ed7e6dc881de23001b 550e8400-e29b-41d4-a716-446655440000 1700000000123 2024-01-15 call_1";
    expect(found(harmless)).toEqual([]);
  });

  it("reject near misses: a card number failing Luhn, an octet over 255, a time, a MAC address, C++ scopes", () => {
    expect(found("4111 1111 1111 1112 192.168.1.300 12:30:45 aa:bb:cc:dd:ee:ff std::vector a::b")).toEqual([]);
  });

  it("resolve overlaps: leftmost wins, then longest, then the detector listed first", () => {
    const both = [pattern("short", /abc/), pattern("long", /abcdef/)];
    expect(found("xabcdefx", both)).toEqual(["long:abcdef"]);
    expect(found("xabcx", [pattern("a", /abc/), pattern("b", /abc/)])).toEqual(["a:abc"]);
  });

  it("merge overlapping matches into one span, so no part of either is left out, and name every kind in it", () => {
    expect(scan("/home/alice/x9Kq2LmP7zR4/bob.smith@example.com", defaultDetectors())).toEqual([{ kind: "secret", start: 0, end: 46, also: ["email"] }]);
    expect(found("GET /var/lib/app/sessions/Xk9mQ2pL7rT4vW8zB1cD5/4111 1111 1111 1111 ok")).toEqual(["secret:/var/lib/app/sessions/Xk9mQ2pL7rT4vW8zB1cD5/4111 1111 1111 1111"]);
  });

  it("try again one character on after a rejected candidate: a card after a stray digit is found", () => {
    // "5 4111 1111 1111 1111" is one 17-digit candidate failing Luhn; the card starts at the 4.
    expect(found("call 5 4111 1111 1111 1111")).toEqual(["credit_card:4111 1111 1111 1111"]);
  });

  it("try again past a whole character after a rejected candidate of a unicode pattern: no endless loop on an emoji", () => {
    const emoji = pattern("emo", /\p{Extended_Pictographic}\d+/u, { validate: (m) => m.length > 10 });
    expect(scan("see 😀12 ok", [emoji])).toEqual([]);
    expect(scan("😀😀", [pattern("empty", /(?:)/u)])).toEqual([]);
  });

  it("scan from an offset with the text before it as look-behind context only", () => {
    const text = "k=Zm9vYmFyQmF6cXV4MTIz/4111 1111 1111 1111";
    // From 18, "MTIz/4111" would look like the start of a token were the text before it not context.
    expect(scan(text, defaultDetectors(), 18)).toEqual(scan(text, defaultDetectors()));
    expect(scan("x bob@example.com", [email], 3)).toEqual([]); // the match starts before the offset
  });

  it("say where an unfinished JWT starts at the end of a text, and nothing when none does", () => {
    expect(partialStart("token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx", defaultDetectors())).toBe(7);
    expect(partialStart("token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx.abc done", defaultDetectors())).toBeUndefined();
    expect(() => pattern("x", /a/, { partial: /a/ })).toThrow(/partial must be a RegExp ending with \$/);
    expect(() => pattern("x", /a/, { partial: /a\$/ })).toThrow(/partial must be/); // a literal dollar
    expect(() => pattern("x", /a/, { partial: /a$/m })).toThrow(/partial must be/); // $ at every line end
    expect(pattern("x", /a/, { partial: /a$/ }).partial?.("ba", 0)).toBe(1);
  });

  it("scan megabytes in linear time (bounded quantifiers, no ReDoS)", () => {
    const hostile = "a".repeat(1_000_000) + "@" + "b.".repeat(200_000) + " " + "1 ".repeat(200_000) + ":".repeat(100_000);
    const started = performance.now();
    scan(hostile, defaultDetectors());
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("scan long runs of digits as fast as plain text: a phone number can be read only one way", () => {
    const timed = (text: string): number => {
      const started = performance.now();
      scan(text, defaultDetectors());
      return performance.now() - started;
    };
    const crafted = " +1(1234)11111111111111111111a".repeat(20_000);
    const plain = "the quick brown fox jumps over".repeat(20_000);
    timed(plain);
    // Groups of one to four digits made this about 60 times as slow as plain text.
    expect(timed(crafted) / Math.max(timed(plain), 1)).toBeLessThan(10);
    expect(found("4111 1111 1111 1112 and +1 (415) 555-0100")).toEqual(["phone:+1 (415) 555-0100"]);
  });

  it("custom patterns: the g flag is added, empty matches are skipped, a validator filters, options are checked", () => {
    const ticket = pattern("ticket", /TCK-(\d{6})/, { validate: (m) => !m.endsWith("000000") });
    expect(found("TCK-123456 TCK-000000", [ticket])).toEqual(["ticket:TCK-123456"]);
    expect(found("abc", [pattern("empty", /x*/)])).toEqual([]);
    expect(() => pattern("", /x/)).toThrow(TypeError);
    expect(() => pattern("k", /x/, { window: 0 })).toThrow(/window/);
    expect(() => highEntropy({ minLength: 2 })).toThrow(/minLength/);
  });

  it("know how much a stream must hold back: the largest window", () => {
    expect(windowOf([email, creditCard, phone, ipv4, ipv6])).toBe(132);
    expect(windowOf([])).toBe(0);
  });

  it("compute Luhn checksums and entropy", () => {
    expect(luhn("79927398713")).toBe(true);
    expect(luhn("79927398710")).toBe(false);
    expect(luhn("12a4")).toBe(false);
    expect(entropy("aaaa")).toBe(0);
    expect(entropy("abcd")).toBe(2);
  });
});
