import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { StreamRedactor } from "../../src/middleware/stream-redactor.ts";
import { corpus } from "../fixtures/redaction/corpus.ts";

// The forms an attacker's review found leaking (quoted and separated beyond ASCII, HTML
// entities, escaped URLs, config files, markup, URL passwords with `#` or `@`, token kinds of
// gitleaks' rules): the corpus holds them, labelled; here each is checked where else a secret
// travels: under `block`, as an object key and a value, and streamed in two chunks at every split.
const review = corpus.slice(corpus.findIndex((item) => item.id === "perplexity"));
const secrets = review.filter((item) => item.group === "secret");

describe("secrets in the forms an attacker's review found", () => {
  it("are many, of many kinds", () => {
    expect(secrets.length).toBeGreaterThanOrEqual(55);
    expect(new Set(secrets.map((item) => item.kind)).size).toBeGreaterThanOrEqual(25);
  });

  it("block a tool result under block, as a value and as an object key", () => {
    const r = createRedactor({ strategy: "block" });
    for (const item of secrets) {
      expect([item.id, r.value({ output: item.text }).blocked.length > 0]).toEqual([item.id, true]);
      expect([item.id, r.value({ [item.text]: true }).blocked.length > 0]).toEqual([item.id, true]);
    }
  });

  it("come out of a stream as out of one scan, split in two at any index", () => {
    const r = createRedactor();
    for (const item of secrets) {
      const whole = r.text(item.text).value;
      const step = Math.max(1, Math.floor(item.text.length / 97));
      for (let at = 1; at < item.text.length; at += step) {
        const s = new StreamRedactor(r);
        const out = s.push(item.text.slice(0, at)).text + s.push(item.text.slice(at)).text + s.end().text;
        if (out !== whole) expect({ id: item.id, at, out }).toEqual({ id: item.id, at, out: whole });
      }
    }
  });

  it("are found in config files read as objects: docker's auth, .npmrc's _auth, a password holding # and @", () => {
    const r = createRedactor();
    const auth = Buffer.from("bot:Xk9#mPq2vLw7").toString("base64");
    const config = { auths: { "https://index.docker.io/v1/": { auth } }, _auth: auth, password: "p@ss#word1" };
    expect(r.value(config).value).toEqual({
      auths: { "https://index.docker.io/v1/": { auth: "[REDACTED:secret]" } },
      _auth: "[REDACTED:secret]",
      password: "[REDACTED:secret]",
    });
  });

  it("leave alone what only looks like them: an auth flag, a certificate, a four-part version, entities in prose", () => {
    const r = createRedactor();
    for (const text of [
      `{"auth": "required", "auth_type": "oauth2"}`,
      "certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=",
      "Version=4.0.0.0, PublicKeyToken=b03f5f7f11d50a3a",
      "<p>Say &quot;hello&quot; &amp; it&#39;s done</p>",
      "password protected; password reset; Password authentication is disabled",
    ])
      expect(r.text(text).value).toBe(text);
  });
});
