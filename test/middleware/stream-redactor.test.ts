import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { StreamRedactor } from "../../src/middleware/stream-redactor.ts";
import { splitAt } from "./harness.ts";

const secrets = [
  "bob.smith@example.com",
  "4111 1111 1111 1111",
  "+1 415 555 0100",
  "192.168.10.20",
  "2001:db8::ff00:42:8329",
  "sk-proj-abcdefghijklmnopqrstuvwxyz0123",
  "ghp_" + "A1b2".repeat(9),
  "AKIAIOSFODNN7EXAMPLE",
  "xoxb-123456789012-abcdefghij",
  "api_token=Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi",
];
/** What of a secret must never be released: an assignment's value, not its name. */
const hidden = (secret: string): string => secret.slice(secret.indexOf("=") + 1);

/** Feed `chunks` through a fresh stream redactor; what the consumer would receive. */
const stream = (chunks: readonly string[], redactor = createRedactor(), options = {}) => {
  const s = new StreamRedactor(redactor, options);
  let out = "";
  const releases: string[] = [];
  for (const c of chunks) {
    const step = s.push(c);
    out += step.text;
    releases.push(out);
  }
  out += s.end().text;
  return { out, releases };
};

describe("a stream redactor", () => {
  it("never emits a secret split across two chunks at any index, and emits what redacting the whole text would", () => {
    const redactor = createRedactor();
    for (const secret of secrets) {
      const text = `Here it is: ${secret} - keep it safe.`;
      const whole = redactor.text(text).value;
      for (let i = 0; i <= text.length; i++) {
        const { out } = stream([text.slice(0, i), text.slice(i)], redactor);
        expect(out, `${secret} split at ${i}`).toBe(whole);
        expect(out).not.toContain(hidden(secret));
      }
    }
  });

  it("releases nothing it would take back: one character at a time, every release is a prefix of the redacted whole", () => {
    const redactor = createRedactor();
    for (const secret of secrets) {
      const text = `${"padding ".repeat(30)}${secret}${" and more".repeat(30)}`;
      const whole = redactor.text(text).value;
      const { releases } = stream([...text], redactor);
      expect(releases.some((r) => r.length > 0 && r.length < whole.length)).toBe(true); // it did stream
      for (const released of releases) expect(whole.startsWith(released)).toBe(true);
    }
  });

  it("never emits a secret under any chunking (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...secrets),
        fc.string({ unit: fc.constantFrom("a", " ", "x", ".", "\n", "é"), maxLength: 40 }),
        fc.string({ unit: fc.constantFrom("b", " ", "y", ",", "\n"), maxLength: 40 }),
        fc.array(fc.nat(200), { maxLength: 8 }),
        (secret, before, after, cuts) => {
          const text = `${before} ${secret} ${after}`;
          const { out } = stream(
            splitAt(
              text,
              cuts.map((c) => c % (text.length + 1)),
            ),
          );
          expect(out).not.toContain(hidden(secret));
          expect(out).toBe(createRedactor().text(text).value);
        },
      ),
      { numRuns: 500 },
    );
  });

  /** Every way to cut `text` in two, and one character at a time. */
  const chunkings = (text: string): string[][] => [
    [...text],
    ...Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]),
  ];

  /** Streamed, `text` comes out as the whole text's redaction and blocks what it blocks, however it is cut. */
  const asWhole = (text: string, options: { strategies?: Record<string, "block" | "redact"> } = {}, streamOptions = {}) => {
    const redactor = createRedactor(options);
    const whole = redactor.text(text);
    for (const chunks of chunkings(text)) {
      const s = new StreamRedactor(redactor, streamOptions);
      let out = "";
      for (const c of chunks) out += s.push(c).text;
      const end = s.end();
      out += end.text;
      const label = chunks.length > 2 ? "one character at a time" : `split at ${chunks[0]?.length}`;
      expect(end.blocked, label).toEqual(whole.blocked);
      if (whole.blocked.length === 0) expect(out, label).toBe(whole.value);
    }
  };

  it("comes out as the whole text's redaction for every kind of the corpus, split at every index", () => {
    const samples = [
      "export GH_TOKEN=ghp_" + "Xy9kQ2mN7pL4rT8vW1zB5cD3fG6hJ0aE1234",
      '{"client_secret": "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB", "n": 1}',
      "curl -H 'Authorization: Bearer Xy9kQ2mN7pL4rT8vW1zB5cD3fG6hJ0aE' https://x.test",
      "post to https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/abcdefghijklmnopqrstuvwx now",
      "DATABASE_URL=postgres://app:s3cret-Pa55@db.internal:5432/app",
      "password: hunter22!\nuser: bob",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAxk9mQ2pL7rT4vW8zB1cD5yXk9mQ2pL7rT4vW8zB1cD5y\n-----END RSA PRIVATE KEY-----\nok",
      "GET /x?email=alice%40example.com&token%3D" + "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB",
      '{"log":"a\\nsk-proj-' + "Xy9kQ2mN7pL4rT8vW1zB5cD3".repeat(2) + '\\n"}',
    ];
    for (const sample of samples) {
      asWhole(`${sample}${" tail".repeat(30)}`);
      for (const kind of ["api_key", "secret", "email"]) asWhole(`${sample}${" tail".repeat(30)}`, { strategies: { [kind]: "block" } });
    }
  });

  it("holds a secret's value while its name was released long before: the stream keeps the name as context", () => {
    const padding = "x".repeat(300);
    const value = "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB";
    const text = `${padding} "api_token":    "${value}" done${" tail".repeat(40)}`;
    expect(createRedactor().text(text).value).toContain('"api_token":    "[REDACTED:secret]"');
    asWhole(text);
  });

  it("holds a JWT from its eyJ until its signature arrives, however long its payload", () => {
    const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${"c3ViIjoiMTIzNDU2Nzg5MCIsIm5hbWUiOiJKb2huIERvZSJ9".repeat(4)}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;
    asWhole(`Bearer ${jwt}\n`);
    asWhole(`Bearer ${jwt}\n`, { strategies: { api_key: "block" } });
  });

  it("scans held text with what it released as look-behind context: a token's tail is not a new token", () => {
    asWhole(`k=Zm9vYmFyQmF6cXV4MTIz/4111 1111 1111 1111${" ".repeat(140)}`);
    asWhole(`k=Zm9vYmFyQmF6cXV4MTIz/192.168.10.20${" ".repeat(140)}`);
    asWhole(`-ghp_${"A1b2".repeat(9)}${" and more".repeat(16)}`);
    asWhole(`mail ${"firstname.lastname.with.many.parts.and.more.".repeat(2)}x@example.com now`);
  });

  it("holds a JWT whose chunk ends at the dot before its payload, or one or two letters into it", () => {
    const jwt = `eyJ${"a".repeat(205)}.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`;
    asWhole(`Bearer ${jwt} ok`, { strategies: { api_key: "block" } });
    asWhole(`Bearer ${jwt} ok`);
  });

  it("holds an email whose domain has many labels until it is whole, and a long token until it ends", () => {
    asWhole(`mail x@${"1".repeat(63)}.${"2".repeat(63)}.${"3".repeat(63)}.com now`);
    let seed = 7;
    const random = () => (
      (seed = (seed * 1103515245 + 12345) & 0x7fffffff), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[seed % 62]
    );
    // A dull start judged with its random tail is a secret: none of it may go out before the token ends.
    const token = "a".repeat(140) + Array.from({ length: 700 }, random).join("");
    expect(createRedactor().text(`token=${token} end`).value).toBe("token=[REDACTED:secret] end");
    const { out } = stream([...`token=${token} end`]);
    expect(out).toBe("token=[REDACTED:secret] end");
  });

  it("keeps the kinds a held JWT overlapped when it releases it past maxHold: a blocked one still blocks", () => {
    // A signature running into something phone-like: the whole text finds both, and blocks.
    const jwt = `eyJ${"h".repeat(2040)}.eyJ${"p".repeat(2040)}.SflKxwRJSMeK-415-555-0100`;
    const redactor = createRedactor({ strategies: { phone: "block" } });
    expect(redactor.text(`Bearer ${jwt} ok`).blocked).toEqual(["phone"]);
    const s = new StreamRedactor(redactor);
    let out = s.push(`Bearer ${jwt}`).text;
    out += s.push(" ok").text;
    expect(s.end().blocked).toContain("phone");
    expect(out).not.toContain("555");
  });

  it("sees released text as look-behind context when it looks for an unfinished match: an eyJ inside a word is no JWT", () => {
    // A long dotted identifier, one character at a time but ".eyJ" at once: the cut falls right before that eyJ.
    const text = `id xeyJ${"abc".repeat(660)}.eyJ${"def".repeat(1000)}.ghi ok`;
    const at = text.indexOf(".eyJd");
    const chunks = [...text.slice(0, at), ".eyJ", ...text.slice(at + 4)];
    const redactor = createRedactor({ strategies: { api_key: "block" } });
    const s = new StreamRedactor(redactor);
    let out = "";
    for (const c of chunks) out += s.push(c).text;
    const end = s.end();
    expect(end.blocked).toEqual([]);
    expect(out + end.text).toBe(text);
    expect(redactor.text(text).value).toBe(text);
  });

  it("decides a block only on whole matches: part of a card is no phone number, part of an address no shorter one", () => {
    asWhole("4111 1111 1111 1111", { strategies: { phone: "block" } });
    asWhole("mail bob@example.comx-y", { strategies: { email: "block" } });
    asWhole("build 10.0.0.1.5 done", { strategies: { ip_address: "block" } });
  });

  it("recognises the longest email its window allows, sent one character at a time", () => {
    asWhole(`mail ${"j".repeat(63)}@${"d".repeat(63)}.io now`);
  });

  it("redacts the rest of a match it had to release early (past maxHold) while its token goes on", () => {
    const key = "sk-ant-api03-" + "Xy9kQ2mN7pL4rT8vW1zB5cD3fG6hJ0aE".repeat(5) + "AA";
    for (const chunks of chunkings(`key ${key} done`)) {
      const { out } = stream(chunks, createRedactor(), { maxHold: 132 });
      expect(out.startsWith("key [REDACTED:api_key]"), out).toBe(true);
      expect(out.endsWith(" done"), out).toBe(true);
      expect(out.replace(/\[REDACTED:api_key\]/g, ""), out).toBe("key  done");
    }
  });

  it("redacts only the token it released early: the words after it stream as they are", () => {
    const key = "sk-" + "Xy9kQ2mN7pL4rT8vW1zB5cD3fG6hJ0aE".repeat(5);
    const words = " word".repeat(60);
    for (const chunks of chunkings(`key ${key}${words}`)) {
      const { out } = stream(chunks, createRedactor(), { maxHold: 140 });
      expect(out.replace(/(\[REDACTED:api_key\])+/, "K"), out).toBe(`key K${words}`);
    }
  });

  it("releases a JWT longer than maxHold redacted, none of it in the clear", () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJ${"c3ViIjoiMTIzNDU2Nzg5MCIsIm5hbWUiOiJKb2huIERvZSJ9".repeat(12)}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;
    for (const chunks of chunkings(`Bearer ${jwt} ok`)) {
      const { out } = stream(chunks, createRedactor(), { maxHold: 200 });
      expect(out.replace(/(\[REDACTED:api_key\])+/, "K"), out).toBe("Bearer K ok");
    }
  });

  it("redacts the rest of a match let out past maxHold only up to the end of its token, and blocks on what follows", () => {
    const jwt = `eyJ${"h".repeat(200)}.eyJ${"p".repeat(100)}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;
    const text = `{"token":"${jwt}","mail":"bob@example.com","n":1}`;
    const { out } = stream([...text], createRedactor(), { maxHold: 200 });
    expect(out.replace(/(\[REDACTED:api_key\])+/, "K")).toBe('{"token":"K","mail":"[REDACTED:email]","n":1}');
    const blocking = createRedactor({ strategies: { email: "block" } });
    const s = new StreamRedactor(blocking, { maxHold: 200 });
    for (const c of text) s.push(c);
    expect(s.end().blocked).toEqual(["email"]);
  });

  it("comes out as the whole text's redaction under any chunking of secrets in awkward company (property)", () => {
    const company = ["k=", "/", "-", ".", "5 ", " ", "x", "=", "@", ":", "1 ", "eyJ", "\n", "é"];
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    fc.assert(
      fc.property(
        fc.constantFrom(...secrets, jwt),
        fc.array(fc.constantFrom(...company), { maxLength: 10 }).map((a) => a.join("")),
        fc.array(fc.constantFrom(...company), { maxLength: 10 }).map((a) => a.join("")),
        fc.array(fc.nat(300), { maxLength: 8 }),
        fc.constantFrom<Record<string, "block" | "redact">>({}, { phone: "block" }, { secret: "block" }, { api_key: "block" }),
        (secret, before, after, cuts, strategies) => {
          const text = `${before}${secret}${after}${" tail".repeat(30)}`;
          const redactor = createRedactor({ strategies });
          const whole = redactor.text(text);
          const s = new StreamRedactor(redactor);
          let out = "";
          for (const c of splitAt(
            text,
            cuts.map((c) => c % (text.length + 1)),
          ))
            out += s.push(c).text;
          const end = s.end();
          expect(end.blocked).toEqual(whole.blocked);
          if (whole.blocked.length === 0) expect(out + end.text).toBe(whole.value);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("holds back only the window: clean text longer than it streams before the end", () => {
    const s = new StreamRedactor(createRedactor(), { holdBack: 10 });
    expect(s.push("hello world, this is clean").text).toBe("hello world, thi");
    expect(s.pending).toBe("s is clean");
    expect(s.end().text).toBe("s is clean");
  });

  it("holds a growing match whole, and releases it redacted once it exceeds maxHold", () => {
    const s = new StreamRedactor(createRedactor(), { holdBack: 48, maxHold: 100 });
    let out = s.push("key sk-" + "a".repeat(60)).text;
    expect(out).toBe("key ");
    out += s.push("b".repeat(60)).text;
    expect(out).toContain("[REDACTED:api_key]");
    out += s.push("c".repeat(10) + " done").text + s.end().text;
    expect(out).not.toMatch(/a{5}|b{5}/);
  });

  it("stops releasing anything once a blocked kind appears whole, and releases none of it before", () => {
    const s = new StreamRedactor(createRedactor({ strategies: { api_key: "block" } }), { holdBack: 48 });
    // At the end of the text the key may still grow into something that is not one: it is held, and decides nothing yet.
    expect(s.push("x".repeat(60) + " AKIAIOSFODNN7EXAMPLE")).toEqual({ text: "x".repeat(33), blocked: [] });
    expect(s.push(" more").text).toBe("x".repeat(5)); // clean text before it still streams
    expect(s.push(" and more text than the window holds back, so the key leaves it").text).toBe("");
    expect(s.pending).toBe("");
    expect(s.end()).toEqual({ text: "", blocked: ["api_key"] });
  });

  it("never splits a surrogate pair between released and held text", () => {
    const s = new StreamRedactor(createRedactor(), { holdBack: 1 });
    const text = "ab😀";
    const first = s.push(text.slice(0, 3)).text;
    expect(first).toBe("ab");
    expect(first + s.push(text.slice(3)).text + s.end().text).toBe(text);
  });

  it("checks its options", () => {
    expect(() => new StreamRedactor(createRedactor(), { holdBack: -1 })).toThrow(/holdBack/);
    expect(() => new StreamRedactor(createRedactor(), { holdBack: 10, maxHold: 5 })).toThrow(/maxHold/);
  });
});
