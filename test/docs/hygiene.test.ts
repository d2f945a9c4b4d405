/**
 * The pages users read say what the library is and does, not how it got there: no commit
 * hashes, clock times, issue numbers or "this session" in README.md, CONTRIBUTING.md or docs/
 * (history lives in git and CHANGELOG.md). Their relative links resolve, and every page of docs/
 * can be reached from README.md or docs/index.md.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { type Token, type Tokens, marked } from "marked";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const pagesUnder = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? pagesUnder(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : []))
    .sort();

const docs = pagesUnder("docs");
const checked = ["README.md", "CONTRIBUTING.md", ...docs];
const text = (page: string): string => readFileSync(join(root, page), "utf8");

/** What may be a short commit hash: 7 to 12 hex digits, with both letters and digits, standing alone. */
const commitHash = /(?<=^|[\s(`[])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,12}(?=$|[\s)`,.;:\]])/g;

/**
 * Whether a hash names a commit of this repository (its history, which pages must not narrate),
 * rather than one of another project a page pins. Without the full history to ask, every
 * candidate counts.
 */
const fullHistory = spawnSync("git", ["rev-parse", "--is-shallow-repository"], { cwd: root, encoding: "utf8" }).stdout?.trim() === "false";
const isOurCommit = (hash: string): boolean =>
  !fullHistory || spawnSync("git", ["cat-file", "-e", `${hash}^{commit}`], { cwd: root }).status === 0;

/** A time of day with its zone, "at" a time, or a date and time (not one quoted as `code`, an example value). */
const clockTime =
  /\b(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?\s?(?:UTC|GMT)\b|\bat (?:[01]?\d|2[0-3]):[0-5]\d\b|(?<![`\w-])\d{4}-\d\d-\d\d[T ]\d\d:\d\d/g;
const issueNumber = /\b(?:issue|task|pull request|PR)s? #?\d+\b/gi;
const thisSession = /\bthis session\b/gi;

/** Each hit of `pattern` in `page`, as `page:line: text`. */
const hits = (page: string, pattern: RegExp): string[] =>
  text(page)
    .split("\n")
    .flatMap((line, i) =>
      [...line.matchAll(pattern)].filter((m) => pattern !== commitHash || isOurCommit(m[0])).map((m) => `${page}:${i + 1}: ${m[0]}`),
    );

/** Every token of a Markdown page, nested ones included (links sit inside paragraphs, lists, tables). */
const tokensOf = (page: string): Token[] => {
  const all: Token[] = [];
  marked.walkTokens(marked.lexer(text(page)), (t) => {
    all.push(t);
  });
  return all;
};

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
const anchorsOf = (page: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const t of tokensOf(page)) {
    if (t.type !== "heading") continue;
    const base = (t as Tokens.Heading).text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
};

/** The relative links of a page, each as written and as a path from the repository root (with its anchor). */
const relativeLinks = (page: string): { href: string; target: string; anchor: string | undefined }[] =>
  tokensOf(page)
    .filter((t): t is Tokens.Link | Tokens.Image => t.type === "link" || t.type === "image")
    .map((t) => t.href)
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href))
    .map((href) => {
      const [path = "", anchor] = href.split("#");
      const target = path === "" ? page : normalize(join(dirname(page), decodeURIComponent(path)));
      return { href, target, anchor };
    });

/** What is wrong with one link: a target outside the repository or missing, or an anchor no heading has. */
const brokenLink = (page: string, link: { href: string; target: string; anchor: string | undefined }): string | undefined => {
  if (relative(root, join(root, link.target)).startsWith("..")) return `${page}: ${link.href} leaves the repository`;
  if (!existsSync(join(root, link.target))) return `${page}: ${link.href} names a missing file`;
  if (link.anchor === undefined || link.anchor === "" || !link.target.endsWith(".md") || statSync(join(root, link.target)).isDirectory())
    return undefined;
  return anchorsOf(link.target).has(link.anchor) ? undefined : `${page}: ${link.href} names a heading ${link.target} does not have`;
};

describe("the pages users read", () => {
  it("include README.md, CONTRIBUTING.md and every page of docs/", () => {
    expect(docs.length).toBeGreaterThan(10);
    expect(docs).toContain("docs/index.md");
  });

  it.each(checked)("%s cites no commit hash, clock time, issue number or this session", (page) => {
    expect([...hits(page, commitHash), ...hits(page, clockTime), ...hits(page, issueNumber), ...hits(page, thisSession)]).toEqual([]);
  });

  it.each(checked)("%s links only to files and headings that exist", (page) => {
    expect(relativeLinks(page).flatMap((link) => brokenLink(page, link) ?? [])).toEqual([]);
  });

  it("reach every page of docs/ from README.md or docs/index.md, and docs/index.md from README.md", () => {
    const linked = new Set(
      ["README.md", "docs/index.md"].flatMap((page) =>
        relativeLinks(page)
          .filter((l) => l.target !== page)
          .map((l) => l.target),
      ),
    );
    expect(docs.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe("the hygiene checks", () => {
  it("find a commit hash, a clock time, an issue number and this session in prose, but not ordinary numbers or words", () => {
    const found = (line: string) =>
      [commitHash, clockTime, issueNumber, thisSession].flatMap((p) =>
        [...line.matchAll(p)].map((m) => m[0]).filter((m) => p !== commitHash || isOurCommit(m)),
      );
    expect(found("Fixed in d6782d3, see issue 2 (measured at 21:31, ran 23:05 UTC, 2026-11-28T21:31Z) in this session")).toEqual([
      "d6782d3",
      "at 21:31",
      "23:05 UTC",
      "2026-11-28T21:31",
      "issue 2",
      "this session",
    ]);
    expect(
      found("1,000 hooks cost 12.5 ms; deadbeef and 1234567 are not hashes; ratio 3:2; tissue 4; a log line `2024-01-15 10:00:00`"),
    ).toEqual([]);
  });

  it.skipIf(!fullHistory)("leave alone a hash that names no commit of this repository, such as another project's pinned commit", () => {
    expect(isOurCommit("d6782d3")).toBe(true);
    expect(isOurCommit("004902b")).toBe(false);
  });

  it("read a link's anchor as GitHub does", () => {
    expect([...anchorsOf("docs/concepts.md")]).toContain("the-rules-r1-to-r14");
  });
});
