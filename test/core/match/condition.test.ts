import { describe, expect, it } from "vitest";
import { compileCondition } from "../../../src/core/match/condition.ts";
import { compileGlob, normalizePath } from "../../../src/core/match/glob.ts";

describe("a path condition normalises the path before matching", () => {
  const src = compileCondition("Edit", "src/**");
  it.each([
    ["src/a.ts", true],
    ["./src/a.ts", true],
    ["src//a.ts", true],
    ["src/./lib/a.ts", true],
    ["src/lib/../a.ts", true],
    ["src\\lib\\a.ts", true],
    ["src/../.env", false],
    ["src/../../etc/passwd", false],
    ["../src/a.ts", false],
    ["/src/a.ts", false],
    ["srcx/a.ts", false],
    ["", false],
  ])("src/** on %j → %s", (path, expected) => {
    expect(src(path)).toBe(expected);
  });

  it("normalises to NFC, so a decomposed é matches a composed pattern", () => {
    expect(compileCondition("Read", "caf\u00e9/**")("cafe\u0301/menu.txt")).toBe(true);
  });

  it("matches dotfiles with wildcards, but never . or .. segments", () => {
    expect(compileGlob("*")(".env")).toBe(true);
    expect(compileGlob("src/*")("src/.env")).toBe(true);
    expect(compileGlob("**")("../x")).toBe(false);
    expect(compileGlob("**/.env")("../.env")).toBe(false);
    expect(compileGlob("../shared/**")("../shared/x")).toBe(true);
    expect(compileGlob("*.ts")("../a.ts")).toBe(false);
  });

  it("reads Claude Code's //absolute and ./relative forms", () => {
    expect(compileGlob("//etc/**")("/etc/passwd")).toBe(true);
    expect(compileGlob("//etc/**")("etc/passwd")).toBe(false);
    expect(compileGlob("./.env")(".env")).toBe(true);
    expect(compileGlob("./.env")("a/.env")).toBe(false);
    expect(compileGlob(".env")("a/b/.env")).toBe(true);
  });

  it("treats braces, extglobs and a leading ! literally", () => {
    expect(compileGlob("{a,b}.ts")("a.ts")).toBe(false);
    expect(compileGlob("{a,b}.ts")("{a,b}.ts")).toBe(true);
    expect(compileGlob("+(a).ts")("+(a).ts")).toBe(true);
    expect(compileGlob("!secret")("public")).toBe(false);
  });

  it("supports ?, bracket classes and escapes", () => {
    expect(compileGlob("file?.txt")("file1.txt")).toBe(true);
    expect(compileGlob("[a-c].ts")("b.ts")).toBe(true);
    expect(compileGlob("[!a].ts")("b.ts")).toBe(true);
    expect(compileGlob("[!a].ts")("a.ts")).toBe(false);
    expect(compileGlob("[[:digit:]]*")("9lives")).toBe(true);
    expect(compileGlob("\\*.ts")("*.ts")).toBe(true);
    expect(compileGlob("\\*.ts")("a.ts")).toBe(false);
    expect(compileGlob("?")("😀")).toBe(true);
  });

  it("lets a/** and */** both match the directory itself (picomatch matches only the first)", () => {
    expect(compileGlob("src/**")("src")).toBe(true);
    expect(compileGlob("*/**")("src")).toBe(true);
  });

  it("refuses an empty pattern", () => {
    expect(() => compileGlob("./")).toThrow(/empty/);
  });

  it("normalizePath resolves . and .. and trailing slashes", () => {
    expect(normalizePath("src/../.env")).toBe(".env");
    expect(normalizePath("a\\b\\..\\c/")).toBe("a/c");
    expect(normalizePath("/")).toBe("/");
    expect(normalizePath("")).toBe(".");
  });
});

describe("a domain condition compares the URL's host", () => {
  const exact = compileCondition("WebFetch", "domain:example.com");
  const subs = compileCondition("WebFetch", "domain:*.example.com");
  it.each([
    [exact, "https://example.com/a", true],
    [exact, "http://EXAMPLE.com:8080/a", true],
    [exact, "https://example.com./a", true],
    [exact, "example.com/docs", true],
    [exact, "example.com:443/docs", true],
    [exact, "https://www.example.com/", false],
    [exact, "https://example.com.evil.net/", false],
    [exact, "https://evil.net/example.com", false],
    [exact, "https://example.com@evil.net/", false],
    [exact, "https://evil.net/?u=https://example.com", false],
    [subs, "https://api.example.com/x", true],
    [subs, "https://a.b.example.com/x", true],
    [subs, "https://example.com/x", false],
    [subs, "https://notexample.com/x", false],
  ])("%# %s", (condition, url, expected) => {
    expect(condition(url)).toBe(expected);
  });

  it("compares international names in punycode", () => {
    expect(compileCondition("WebFetch", "domain:bücher.de")("https://xn--bcher-kva.de/")).toBe(true);
  });

  it("matches a URL it cannot parse (fails towards the guard), but not a missing one", () => {
    expect(exact("http://[bad")).toBe(true);
    expect(exact(undefined)).toBe(false);
  });
});
