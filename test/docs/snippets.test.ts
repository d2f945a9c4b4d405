/**
 * Every ```ts block of the pages of docs/ is a program a reader can copy (it imports what it uses
 * from agent-onion) or is marked ```ts fragment. `npm run test:package` compiles and runs the
 * programs against the installed package.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conventionProblem, tsSnippets } from "../package/readme-snippets.ts";

const root = join(import.meta.dirname, "..", "..");
const pages = readdirSync(join(root, "docs"))
  .filter((f) => f.endsWith(".md"))
  .sort()
  .map((f) => `docs/${f}`);

describe("the TypeScript blocks of docs/", () => {
  const snippets = pages.flatMap((p) => tsSnippets(readFileSync(join(root, p), "utf8"), p));

  it("are each a complete program importing from agent-onion, or marked as a fragment", () => {
    expect(snippets.length).toBeGreaterThan(0);
    expect(snippets.map(conventionProblem).filter((p) => p !== undefined)).toEqual([]);
  });

  it("have names that are unique file names", () => {
    const names = snippets.map((s) => s.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});
