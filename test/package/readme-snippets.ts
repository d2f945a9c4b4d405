/**
 * The TypeScript snippets of README.md and of the pages of docs/, as programs a user can copy. The
 * convention: every ```ts (or ```typescript) block is a complete program that imports from
 * `agent-onion` (or one of its subpaths) and runs to completion; a block whose info string says
 * `fragment` (```ts fragment) is shown to the reader and skipped here. Words after the language
 * say what a program needs to run: `compile-only` (a model provider, a key or the network: it is
 * type-checked, not run) or `redis` (a Redis server, at REDIS_URL). A ```text block right after a
 * program is what it prints. Blocks are read with a Markdown parser (marked), so fences inside
 * lists, longer fences and `~~~` fences are found as GitHub shows them.
 */
import { marked } from "marked";
import ts from "typescript";

/** What a program needs to run: nothing outside the machine, a Redis server, or more (it is only compiled). */
export type Needs = "nothing" | "redis" | "compile-only";

/** One ```ts block of a Markdown file. */
export interface Snippet {
  /** `README.md:28`: where the block's opening fence is. */
  readonly where: string;
  /** A file name for it: `readme-28`, `docs-agent-11` for docs/agent.md. */
  readonly name: string;
  readonly code: string;
  readonly needs: Needs;
  /** What the page shows it prints: the ```text block right after it. */
  readonly output?: string;
}

const typeScriptLanguages = new Set(["ts", "typescript"]);

/**
 * The TypeScript programs of a Markdown text: every ```ts block but fragments.
 *
 * @example
 * tsSnippets("```ts\nimport { Reject } from \"agent-onion\";\n```\n", "README.md") // [{ where: "README.md:1", name: "readme-1", code: "...", needs: "nothing" }]
 */
export const tsSnippets = (markdown: string, file: string): Snippet[] => {
  const lines = markdown.split("\n");
  const prefix = file
    .replace(/\.md$/i, "")
    .split("/")
    .map((part) => part.toLowerCase().replace(/[^a-z0-9]+/g, "-"))
    .join("-");
  let cursor = 0;
  const found: Snippet[] = [];
  // The program the last token closed, while nothing else has come after it.
  let previous: { snippet: Snippet; index: number } | undefined;
  marked.walkTokens(marked.lexer(markdown), (token) => {
    const last = previous;
    if (token.type !== "space") previous = undefined;
    if (token.type !== "code") return;
    const code = token as { lang?: string; text: string; raw: string; codeBlockStyle?: string };
    if (code.codeBlockStyle === "indented") return;
    const fence = (code.raw.split("\n")[0] ?? "").trim();
    const at = lines.findIndex((l, i) => i >= cursor && l.trim() === fence);
    if (at >= 0) cursor = at + 1;
    const [language, ...meta] = (code.lang ?? "").trim().split(/\s+/);
    const lang = (language ?? "").toLowerCase();
    if (lang === "text" && last) {
      found[last.index] = { ...last.snippet, output: `${code.text}\n` };
      return;
    }
    if (!typeScriptLanguages.has(lang) || meta.includes("fragment")) return;
    const line = at + 1;
    const needs: Needs = meta.includes("compile-only") ? "compile-only" : meta.includes("redis") ? "redis" : "nothing";
    const snippet: Snippet = { where: `${file}:${line}`, name: `${prefix}-${line}`, code: `${code.text}\n`, needs };
    previous = { snippet, index: found.length };
    found.push(snippet);
  });
  return found;
};

/**
 * Why `snippet` does not follow the convention, or undefined: it must import from `agent-onion`.
 *
 * @example
 * conventionProblem({ where: "README.md:3", name: "readme-3", code: "const x = 1;\n", needs: "nothing" }) // "README.md:3: ..."
 */
export const conventionProblem = (snippet: Snippet): string | undefined => {
  const source = ts.createSourceFile(`${snippet.name}.ts`, snippet.code, ts.ScriptTarget.ES2022, true);
  const imports = source.statements.filter(ts.isImportDeclaration).map((s) => (s.moduleSpecifier as ts.StringLiteral).text);
  return imports.some((m) => m === "agent-onion" || m.startsWith("agent-onion/"))
    ? undefined
    : `${snippet.where}: a \`\`\`ts block must be a complete program that imports from "agent-onion" (mark a partial example as \`\`\`ts fragment)`;
};

/**
 * The snippet as a CommonJS program: its imports stay at the top (TypeScript compiles them to
 * `require`), and the rest runs in an async function, since CommonJS has no top-level `await`.
 *
 * @example
 * asCommonJs("import { x } from \"agent-onion\";\nawait x();\n") // 'import { x } from "agent-onion";\n(async () => {\nawait x();\n})()...'
 */
export const asCommonJs = (code: string): string => {
  const source = ts.createSourceFile("snippet.ts", code, ts.ScriptTarget.ES2022, true);
  const isImport = (s: ts.Statement): boolean => ts.isImportDeclaration(s) || ts.isImportEqualsDeclaration(s);
  const imports = source.statements.filter(isImport);
  const body = source.statements.filter((s) => !isImport(s));
  const text = (nodes: readonly ts.Statement[]) =>
    nodes
      .map((s) => s.getFullText(source))
      .join("")
      .replace(/^\n+/, "");
  return `${text(imports)}\n\n(async () => {\n${text(body)}\n})().catch((error: unknown) => {\n  console.error(error);\n  process.exit(1);\n});\n`;
};
