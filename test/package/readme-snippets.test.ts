/**
 * Reading the README's programs (the consumer test compiles and runs them in real projects).
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { asCommonJs, conventionProblem, tsSnippets } from "./readme-snippets.ts";

const fixture = readFileSync(new URL("../fixtures/package/README.md", import.meta.url), "utf8");
const page = readFileSync(new URL("../fixtures/package/docs/page.md", import.meta.url), "utf8");

describe("tsSnippets", () => {
  it("finds every ```ts and ```typescript block, in lists too, with the line of its fence", () => {
    const found = tsSnippets(fixture, "README.md");
    expect(found.map((s) => s.where)).toEqual(["README.md:6", "README.md:27"]);
    expect(found[0]?.output).toBe("blocked: no rm\n");
    expect(found[0]?.code).toMatch(/^import \{ Reject, createAgentStack \} from "agent-onion";\n/);
    expect(found[1]?.code).toMatch(/^import \{ guards \} from "agent-onion\/middleware";\n/);
  });

  it("skips fragments, other languages, and fences inside a longer fence", () => {
    const code = tsSnippets(fixture, "README.md")
      .map((s) => s.code)
      .join("");
    expect(code).not.toContain("Continue });");
    expect(code).not.toContain("npm install");
    expect(code).not.toContain("inside a Markdown example");
  });
});

describe("tsSnippets on a docs page", () => {
  it("names each program after its page and line, and reads what it needs to run from its info string", () => {
    expect(tsSnippets(page, "docs/page.md").map((s) => [s.where, s.name, s.needs])).toEqual([
      ["docs/page.md:5", "docs-page-5", "nothing"],
      ["docs/page.md:19", "docs-page-19", "compile-only"],
      ["docs/page.md:28", "docs-page-28", "redis"],
    ]);
  });

  it("takes the ```text block right after a program as its output, and no ```text block after prose", () => {
    expect(tsSnippets(page, "docs/page.md").map((s) => s.output)).toEqual(["Rejected\n", undefined, undefined]);
  });
});

describe("conventionProblem", () => {
  it("asks each program to import from agent-onion, and says how to mark a partial example", () => {
    const [snippet] = tsSnippets("Text.\n\n```ts\nconst stack = createAgentStack();\n```\n", "README.md");
    expect(conventionProblem(snippet!)).toBe(
      'README.md:3: a ```ts block must be a complete program that imports from "agent-onion" (mark a partial example as ```ts fragment)',
    );
    expect(tsSnippets(fixture, "README.md").map(conventionProblem)).toEqual([undefined, undefined]);
  });

  it("names the page and the line of a docs block that imports nothing from agent-onion", () => {
    const [snippet] = tsSnippets('# Page\n\n```ts compile-only\nimport { z } from "zod";\nz.string();\n```\n', "docs/page.md");
    expect(conventionProblem(snippet!)).toMatch(/^docs\/page\.md:3: a ```ts block must be a complete program/);
    expect(tsSnippets(page, "docs/page.md").map(conventionProblem)).toEqual([undefined, undefined, undefined]);
  });
});

describe("asCommonJs", () => {
  it("keeps the imports on top and runs the rest in an async function, so top-level await compiles as CommonJS", () => {
    const code = asCommonJs(
      'import { run } from "agent-onion";\nimport type { X } from "agent-onion";\nconst x: X = await run();\nconsole.log(x);\n',
    );
    const out = ts.transpileModule(code, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      reportDiagnostics: true,
    });
    expect(out.diagnostics).toEqual([]);
    expect(out.outputText).toMatch(/require\("agent-onion"\)/);
    expect(code.indexOf("import type")).toBeLessThan(code.indexOf("(async () => {"));
    expect(code).toContain("(async () => {\nconst x: X = await run();\nconsole.log(x);\n})().catch(");
  });
});
