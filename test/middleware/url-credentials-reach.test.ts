/**
 * Passwords in URLs are looked for by reading back from each at sign to the first character a
 * user or a password cannot hold. What that finds must be what a plain reading finds: the last
 * `://` before each at sign, and the URL pattern tried from its scheme.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { scan, urlCredentials } from "../../src/middleware/detectors.ts";

const userinfo = /[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/(?<user>[^\s:/?#@"'<>]{0,256}):(?<pass>[^\s/?"'<>]{1,256})@/y;
const schemeChar = /[A-Za-z0-9+.-]/;
const placeholder = (pass: string, user: string): boolean =>
  /^(?:\$|\{|<|%\()/.test(pass) ||
  /^(.)\1*$/.test(pass) ||
  /^[A-Z_]+$/.test(pass) ||
  /^(?:string|str|text|none|null|nil|true|false|undefined|required|optional|password|passwd|secret|changeme|example|placeholder|redacted|hidden|masked|\*+|x+|\.+)$/i.test(
    pass,
  ) ||
  /^(?:my|your)?(?:password|pwd|secret)$/i.test(pass) ||
  pass === user ||
  pass.length < 4;

/** The passwords a plain reading finds: from each at sign, the last `://` before it within 520 characters. */
const plainly = (text: string): [number, number][] => {
  const out: [number, number][] = [];
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", at + 1)) {
    const sep = text.lastIndexOf("://", at - 1);
    if (sep === -1 || sep + 3 > at || at - sep > 520) continue;
    const nextAt = text.indexOf("@", at + 1);
    if (nextAt !== -1 && nextAt - at <= 256 && !/[\s/?"'<>]/.test(text.slice(at + 1, nextAt))) continue;
    let s = sep;
    while (s > 0 && schemeChar.test(text[s - 1] as string) && sep - s < 30) s--;
    userinfo.lastIndex = s;
    const m = userinfo.exec(text);
    if (m === null || userinfo.lastIndex !== at + 1) continue;
    const user = m.groups?.user ?? "";
    const pass = m.groups?.pass ?? "";
    const passStart = at - pass.length;
    if (pass === "x-oauth-basic") {
      if (user.length > 0) out.push([passStart - 1 - user.length, passStart - 1]);
      continue;
    }
    if (!placeholder(pass, user)) out.push([passStart, at]);
  }
  return out;
};

const found = (text: string): [number, number][] => [...urlCredentials.find(text)].map((m) => [m.start, m.end]);

const pieces = fc.constantFrom(
  "https://",
  "postgres://",
  "://",
  "//",
  ":/",
  "@",
  ":",
  "/",
  "?",
  "#",
  " ",
  "\n",
  "\u00a0",
  "\u2003",
  '"',
  "'",
  "<",
  ">",
  "bob",
  "s3cr3t-Pa55",
  "p@ss",
  "db.example.com",
  "é",
  "日本",
  "x-oauth-basic",
  "a".repeat(300),
  "x".repeat(200),
  "a@b",
  "@@",
);
const texts = fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(""));

describe("passwords in URLs", () => {
  test.prop([texts], { numRuns: 3000 })("are what a plain reading from each at sign finds", (text) => {
    expect(found(text)).toEqual(plainly(text));
  });

  it("are found at the very start and end of a text, next to each other and after characters beyond Latin-1", () => {
    for (const text of [
      "https://bob:s3cr3t-Pa55@db",
      "x https://bob:s3cr3t-Pa55@",
      "https://a:s3cr3t-Pa55@h https://b:0th3r-Pa55@h",
      "日本https://bob:s3cr3t-Pa55@db 日本",
      "é\u2003redis://:s3cr3t-Pa55@cache",
      "postgres://app:p@ss#1@db/x",
    ])
      expect(found(text), text).toEqual(plainly(text));
    expect(scan("日本https://bob:s3cr3t-Pa55@db", [urlCredentials])).toEqual([{ kind: "secret", start: 14, end: 25 }]);
  });

  it("are found after a chain of at signs with nothing between them that ends a user or password", () => {
    for (const text of [
      `https://bob:${"p@".repeat(100)}x@db`,
      `https://bob:${"a@".repeat(300)}x@db`,
      `${"a".repeat(70)}@`.repeat(40),
      `https://bob:s3cr3t${"@x".repeat(5)}@db https://ann:${"a".repeat(250)}@db`,
      `${"a@b ".repeat(300)}https://bob:s3cr3t-Pa55@db`,
      `https://bob:s3cr3t-Pa55@db ${"a@b ".repeat(300)} https://ann:0th3r-Pa55@db`,
      `${"a@b ".repeat(300)}`,
    ])
      expect(found(text), text.slice(0, 40)).toEqual(plainly(text));
  });

  it("are not looked for past 520 characters before the at sign", () => {
    const text = `https://bob:${"a".repeat(600)}@db`;
    expect(found(text)).toEqual(plainly(text));
    expect(found(text)).toEqual([]);
  });
});
